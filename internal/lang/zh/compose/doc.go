// Package compose is the offline drafter's knowledge of how a biography
// in classical Chinese is written and read: the wording of the sentences
// it templates from facts (an examination with its Gregorian year, a
// career list, the highest office, a posthumous name), the ranking of
// offices by grade, the names a text calls its subject by (given names,
// a prince's entry, a relative's paragraph that opens inside an entry),
// and the reading of a passage of another document — which year its own
// words date it to, whether the subject is the topic of one of its
// clauses, and which of its clauses to copy when it is too long.
//
// The writer stage (consumers/writer) keeps the plan of a page, its
// citations and its reference sets; it calls these functions with the
// texts and the corpus profile (internal/lang/profile) the plan uses.
// The word lists the rules read are data files under data/, one entry a
// line after a '#' header that says what the list holds and which rule
// reads it.
package compose
