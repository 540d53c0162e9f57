// Package answer is the answer request kind (ARCHITECTURE.md §5):
// attributed answers in ALCE's format, written the RAAC way. A question
// and the documents it is answered from become an answer whose every
// sentence cites a minimal set of the documents that support it.
//
// The planner (Planner) makes the reference set: the documents the
// request carries (schemas.Request.Documents, cited by their 1-based
// place, as ALCE writes [k]), or, for a question alone, the passages a
// retrieval over the knowledge graph, the linker's mentions and the
// vectors finds (Retriever).
//
// A drafter proposes sentences with citations: the offline engine
// extracts sentences of the documents, ranked by their relevance to the
// question (Select: BM25 with the term weights counted on the documents'
// own sentences), each citing the documents it is a sentence of; the LLM
// engine asks a chat model (eino, prompt answer.v1) for sentences and
// citations in strict JSON and falls back to the offline engine when no
// answer can be used.
//
// The citation agent (Agent) then checks each proposed sentence with a
// claim-support judge (Supporter): a sentence its own citations support
// completely keeps a minimal subset of them; one they do not support gets
// citations discovered among the other documents (greedy by support score
// until complete); one nothing supports is dropped. A cited set is
// minimal: no document of it can be removed with the rest still
// supporting the sentence completely.
//
// The calibration gate (Composer) measures the citation quality of the
// drafted answer (ALCE's citation recall and precision of the citations
// as proposed, and their F1) and, below τ (DefaultTau), drafts the answer
// again from the reduced reference set, the documents the supported
// sentences cite, and keeps the better of the two.
//
// The pipeline verifies every sentence again (the verifier's answer
// checks), so nothing unverified is published.
package answer
