// Package verifier is the verifier stage (Alstorian §2.3.2, ARCHITECTURE.md §2):
// every draft sentence is checked against the request's reference set
// before the writer may go on, so errors do not cascade.
//
// A sentence is split into atomic facts, and each fact is decided
// supported, not_supported (with an error type the router dispatches on:
// era, alias, knowledge_lack, ref_conflict or other) or not_included. The
// rules that read a sentence's claims and check them against the
// references are language knowledge and live in internal/lang/zh/claims
// (its package doc says how each fact is decided); the reference set's
// corpus profile (internal/lang/profile) decides which rules and word
// lists a sentence is read with.
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
// # How the offline checker calls the rules
//
// Offline keeps one claims.Lexicon per profile, prepares each reference
// text once (claims.Prepare) and indexes each reference set once
// (claims.NewIndex), then per draft calls claims.Check, or
// claims.CheckConflict for a draft that states a disagreement of the
// references, and wraps the fact verdicts into the draft's verdict. Config
// sets the rules' thresholds (claims.Options) and the caches. Judge reads
// the sentence with claims.Read, shows the model the references the index
// scores best, and lets the era table (Reading.ApplyEraTable) overrule
// the model on Gregorian years.
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
