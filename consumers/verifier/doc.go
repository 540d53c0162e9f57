// Package verifier is the verifier stage (Alstorian §2.3.2, DESIGN §4):
// every draft sentence is checked against the request's reference set
// before the writer may go on, so errors do not cascade.
//
// A sentence is split into atomic facts (Atomic): clauses that carry one
// piece of information, with names (字X, 号Y), native places (X人) and dates
// kept as facts of their own. Each fact is decided:
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
// Two checkers implement Checker. Offline is deterministic and lexical:
// references are filtered by token Jaccard (internal/text, CJK-aware: Han
// characters and bigrams) against the fact and the sentence, facts are
// looked up verbatim, matched against the subject's KG facts and expert
// decisions, and otherwise aligned character by character with the
// best-matching reference passage, whose differing segment is classified.
// Dates are anchored: a date is supported only by the passage that states
// the sentence's event (or by the KG fact of the event), never by the same
// date written elsewhere, so a changed year cannot hide behind another
// event of that year. Judge asks a chat model (eino) with a versioned
// prompt and validates its strict JSON answer; a malformed answer is
// retried once, then the draft falls back to the offline checker.
//
// Handler wires a Checker into the pipeline: drafts in, one verdict out
// per draft, reading the reference set from agent memory (RefSource).
package verifier
