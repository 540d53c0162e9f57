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
package writer
