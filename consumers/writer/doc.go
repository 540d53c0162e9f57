// Package writer is the writer agent: it starts a page request with its
// kind's plan (the reference set, from the kind's Planner) and drafts the
// page one sentence at a time, each sentence drafted only after the one
// before it is final (Alstorian §2.2.2 and §2.3.2), so an error is fixed
// before later sentences can build on it.
//
// # Kinds
//
// The loop serves every kind of page alike and dispatches on the
// request's kind through the process's registry (internal/ports/kind). The
// biography kind lives in the subpackage biography: its planner
// (Retriever, the knowledge-graph retrieval), and its Spec, which
// registers this package's drafters.
//
// # Drafting
//
// A Drafter writes sentence k given the sentences accepted so far. Offline
// is the deterministic extractive engine: from the reference set it
// computes a plan — identity, birth, examination (with the Gregorian year
// from internal/lang/zh/era), career and highest office, notable acts copied from
// the entry, death — and each sentence is either copied verbatim from a
// cited chunk or templated from KG facts whose evidence is in the cited
// chunk, in the language of the sources. The plan is the stage's; how a
// sentence is worded and how a source's sentence is read (its names, its
// dates, its clauses, the grades of its offices) is the language's, in
// internal/lang/zh/compose. LLM drafts the same plan item by
// item through an eino chat model, with the references and the accepted
// sentences in the prompt, and checks that its citations are references.
//
// # Evidence of other documents
//
// The references of other documents than the entry's (the chunks the
// entity linker resolved to the subject, and his own chunks there) give
// the page what they say of him whether or not the extractor read a fact
// in them (elsewhere.go, reading them with compose.Reader). A sentence of such a text names him by his name,
// or by an alias or given name once the text has named him. Every such
// sentence of a text about him — one that names him, sentence for
// sentence, at least as often as his own entry does: an archive note, in
// any wording — is on the page; of the sentences of other texts, those
// whose clause he opens (alone or after an office title) compete for the
// budget of their number, new facts first, and those that name him in
// passing are left out. A sentence is copied verbatim, cut to the clauses
// from his name on (with a clause that dates it just before) when it is
// longer than MaxCopy, and cites its chunk. One its text dates — an era
// date, a Gregorian year, or a year counted from the date the sentence
// before names — is placed in time order among the life's items (the
// entry's sentences dated as the entry reads); an undated one goes to a
// part of its own after the life. The plan does not depend on which
// document triggered the regeneration, so a note stays on every version
// until it is retracted or superseded.
//
// # Budgets and page stats
//
// No fixed number of sentences bounds a page: the entry's length (its
// sentences) sets how many notable acts the life gets, the number of
// other texts' sentences that make him a clause's topic how many of those
// are taken (budget, ⌈√(n/3)⌉ each), and every sentence of a text about
// him is taken. Offline.PlanStats counts what the plan did, and the loop
// adds the counters to the page's stats: plan_life_budget and
// plan_other_budget; other_passages (distinct sentences of other
// documents that name him), other_devoted, other_dated, other_undated;
// left_out and left_out_<reason> for life_budget (an entry sentence worth
// a notable act, beyond the life's budget), budget (a topical sentence of
// another document beyond its budget), in_passing, too_long (no part
// naming him fits MaxCopy), said (the page says it already) and
// overruled (an expert decision ruled its value out).
//
// A page with an undated passage of another document is sectioned: every
// sentence names its section (Draft.Section: 生平 and 其他文献, Life and
// From other documents, by the sources' language), and the assembler
// groups them into Page.Sections; Page.Sentences stays the flat list.
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
// A kind with a Reviewer and an Editor (the topic page, APOLLO) runs
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
