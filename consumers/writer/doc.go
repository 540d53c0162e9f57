// Package writer is the writer agent: it starts a page request with its
// kind's plan (the reference set, from the kind's Planner) and drafts the
// page one sentence at a time, each sentence drafted only after the one
// before it is final (Alstorian §2.2.2 and §2.3.2), so an error is fixed
// before later sentences can build on it.
//
// # Kinds
//
// The loop serves every kind of page alike and dispatches on the
// request's kind through the process's registry (internal/kind). The
// biography kind lives in the subpackage biography: its planner
// (Retriever, the knowledge-graph retrieval), and its Spec, which
// registers this package's drafters.
//
// # Drafting
//
// A Drafter writes sentence k given the sentences accepted so far. Offline
// is the deterministic extractive engine: from the reference set it
// computes a plan — identity, birth, examination (with the Gregorian year
// from internal/era), career and highest office, notable acts copied from
// the entry, death — and each sentence is either copied verbatim from a
// cited chunk or templated from KG facts whose evidence is in the cited
// chunk, in the language of the sources. LLM drafts the same plan item by
// item through an eino chat model, with the references and the accepted
// sentences in the prompt, and checks that its citations are references.
//
// Loop (handler.go) is the stage: it stores the reference set in agent
// memory (genmem.Memory) and moves each request through drafts, verdicts
// and corrections.
//
// # Incremental regeneration
//
// With WithPrevious, a request for a page that exists (and every
// scheduler's regeneration, Request.Trigger) starts from the current
// version, whose sentences its start records in memory. The loop drafts
// as always, but before a draft goes to the verifier it looks for a
// previous sentence that says the same (the same words, or the same
// facts) and still stands: every chunk it cites and every chunk of its
// facts is in the new reference set, and every fact it states is still
// one of the subject's. That sentence is kept as it was, with its
// citations and status, without a verification round, and the loop
// drafts the next index in the same step; pages whose evidence did not
// change cost no verification at all, and sentences for new evidence
// come where the plan puts them. A draft that takes the place of a
// previous sentence that no longer stands is rewritten, one that takes
// none is added, and previous sentences nothing took are removed: the
// counters kept, rewritten, added and removed, in the page's stats.
// Params["incremental"] = "false" writes the page afresh.
//
// # Review
//
// A kind with a Reviewer and an Editor (the topic page, seed 001) runs
// the review loop once its drafter's plan is done (review.go): the
// reviewer reads the page, every sentence of which has passed the
// verifier, and returns structured findings (coverage of the curated key
// entities, redundancy, order, section balance); the editor turns them
// into edits. Drops and moves apply at once; every sentence the editor
// writes is drafted at the next free index and goes through the verifier
// and the solvers like any draft. At most LoopConfig.MaxReviewRounds (3)
// rounds; the page ends when a round finds nothing or the bound is
// reached. A reviewer or editor whose model answers are unusable is
// replaced by the kind's offline one for that round. The page stats count
// review_rounds, findings_<type> and edits_<op>.
package writer
