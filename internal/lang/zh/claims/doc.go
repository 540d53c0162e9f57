// Package claims reads the claims a biography sentence makes and checks
// them against reference text: classical-Chinese rules, with English ones
// for a profile in English where the rules are shared. It is the language
// knowledge of the verifier stage (consumers/verifier), which reads the
// drafts and references, calls Check and writes the verdicts.
//
// # Reading a sentence
//
// A sentence is split into atomic facts (Atomic, Read): clauses that carry
// one piece of information, with names (字X, 号Y), native places (X人) and
// dates kept as facts of their own. A corpus profile (internal/lang/profile,
// through a Lexicon) decides how: classical-Chinese clause rules under a
// Chinese profile, English ones under an English profile, whatever
// characters the sentence holds; the examination terms, the office titles
// and the kinship words that open another person's sentence are the
// profile's data. The words the rules themselves read (appointment verbs,
// name markers, relative year words, characters that rule out a place or a
// death) are the lists under data/, one entry a line.
//
// # Checking a sentence
//
// Check decides each fact against an Index of the reference set (its
// texts prepared once by Prepare, which a caller may keep between sets):
//
//   - supported: a reference includes it — verbatim up to punctuation, or
//     as a knowledge-graph fact of the subject whose chunk is in the set, or
//     (a Gregorian year) derived by the era table from a supported era date
//     of the same sentence;
//   - not_supported: a reference gives a different value for the same slot
//     (another year, place, name, rank); the differing segment decides the
//     error type: era, alias, knowledge_lack, ref_conflict (the references
//     disagree among themselves) or other;
//   - not_included: nothing kept says it or contradicts it (a fabricated
//     clause).
//
// Every decision carries evidence (chunk id, rune span and text) and a
// message that names the wrong and the right value. References are
// filtered per fact by token Jaccard (internal/lang/text, CJK-aware: Han
// characters and bigrams) of their sentences with the fact and with the
// whole sentence; the best few are kept (Options). Then, in order:
//
//  1. A sentence found whole in a reference (the extractive drafter's
//     copies) is supported, except for what the subject's KG or the
//     experts say otherwise about the same slot: a disputed value, a
//     ruled-out value, an examination or death date the KG gives as
//     another year.
//  2. Slots of the subject are checked against its KG facts: the name an
//     identity sentence opens with, 字, 号, X人, the degree and rank of the
//     examination the clause says he passed. A value the KG does not give
//     is not supported (alias for names, other for places, knowledge_lack
//     for degrees); a value the references give two ways is ref_conflict;
//     expert decisions settle both.
//  3. Dates are anchored. A date is supported by the KG date of the event
//     its clause states (an examination, a death), or by the passage that
//     states that event with that date — never by the same date written
//     elsewhere, so a changed year cannot hide behind another event of the
//     year. The passage that states the event with another comparable date
//     (both give a year) at the same place contradicts it: era.
//  4. Gregorian years follow the era table: a year that is not the table's
//     year of the era date it glosses is era, even when the era date is
//     right; otherwise it is as supported as that date.
//  5. Any other fact is supported when a kept reference writes it.
//     Otherwise the sentence is aligned character by character with the
//     passages most like it, and a segment of the fact that differs from
//     the passage, with aligned text around it, is a contradiction when
//     both sides are values of one kind — two dates (era), two degrees or
//     two office titles (knowledge_lack), two names after 字 or 号 (alias),
//     or, for a fact that aligns well, a short other value (other). Text
//     the passage lacks, or a fact that hardly aligns, is not_included.
//
// A sentence of the subject's page that names no one else is read as
// being about the subject; one that opens with a kinsman (父允中，…), a
// succession (子X嗣), another man's identity or another man passing an
// examination (鼎举弘治十八年进士) is about someone else, and the subject's
// KG facts are then not applied to it. No rule knows which value an
// error put in: every check compares the sentence with the references.
//
// CheckConflict decides a sentence that states a disagreement of the
// references (a conflict draft): each of its facts must be stated by the
// chunk it names, and era dates and Gregorian years must still agree with
// the era table.
//
// # The seam
//
// The verifier calls plain functions: NewLexicon once per profile, Prepare
// and NewIndex once per reference text and set (it caches both), then
// Check or CheckConflict per draft. Its model judge uses Read for the
// facts to ask about, Reading.ApplyEraTable to overrule the model on
// Gregorian years, and the Index accessors (Docs, Doc, DocOf, Passages,
// Passage, Jaccards) to choose the references it shows.
package claims
