// Package verifier is the verifier stage (Alstorian §2.3.2, ARCHITECTURE.md §2):
// every draft sentence is checked against the request's reference set
// before the writer may go on, so errors do not cascade.
//
// A sentence is split into atomic facts (Atomic): clauses that carry one
// piece of information, with names (字X, 号Y), native places (X人) and dates
// kept as facts of their own. The reference set's corpus profile
// (internal/lang/profile) decides how: classical-Chinese clause rules under a
// Chinese profile, English ones under an English profile, whatever
// characters the sentence holds; the examination terms, the office titles
// and the kinship words that open another person's sentence are the
// profile's data. Each fact is decided:
//
//   - supported: a reference includes it — verbatim up to punctuation, or
//     as a knowledge-graph fact of the subject whose chunk is in the set, or
//     (a Gregorian year) derived by the era table from a supported era date
//     of the same sentence;
//   - not_supported: a reference gives a different value for the same slot
//     (another year, place, name, rank); the differing segment decides the
//     error type the router dispatches on: era, alias, knowledge_lack,
//     ref_conflict (the references disagree among themselves) or other;
//   - not_included: nothing kept says it or contradicts it (a fabricated
//     clause).
//
// The sentence is supported when every fact is; otherwise it is
// not_supported when any fact is (with the first such fact's error type),
// else not_included. Every decision carries evidence (chunk id, rune span
// and text) and a message that names the wrong and the right value.
//
// Two checkers implement Checker. Offline is deterministic and lexical;
// Judge asks a chat model (eino) with a versioned prompt and validates its
// strict JSON answer; a malformed answer is retried once, then the draft
// goes to the offline checker. Handler wires a Checker into the pipeline:
// drafts in, one verdict out per draft, the reference set read from agent
// memory (RefSource).
//
// # How the offline checker decides
//
// References are filtered per fact by token Jaccard (internal/lang/text,
// CJK-aware: Han characters and bigrams) of their sentences with the fact
// and with the whole sentence; the best few are kept. Then, in order:
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
// # What is kept between checks
//
// A reference set is indexed once (its passages and a postings list of
// their tokens) and kept for the next sentences of the page
// (Config.CacheSize sets). Each reference text is prepared once — runes,
// normalized text, dates, passages and their token sets — and shared by
// every set that holds the same chunk text (Config.DocCacheSize texts):
// the sets of different pages share most of their chunks, a topic page's
// set holding hundreds.
package verifier
