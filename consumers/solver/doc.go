// Package solver holds the solver agents of the generation loop (Alstorian
// §2.3.2, ARCHITECTURE.md §2): each reads a repair — a verdict the router sent it —
// and answers with one schemas.Correction that the writer re-submits to
// the verifier as the next attempt of the same sentence. A solver never
// publishes anything itself: every correction is verified again, so a
// wrong fix costs an attempt, not a wrong sentence.
//
// The five solvers, by the error type they answer:
//
//   - era (era): dates. The date the references give for the sentence's
//     event is taken from the verdict's evidence passage, else from the
//     subject's KG fact of the event; the Gregorian year is recomputed
//     with the era table (internal/lang/zh/era), after checking that the era year
//     lies within the era; both are written into the sentence.
//   - alias (alias): names. The right courtesy name, art name or name is
//     taken from the subject's KG facts and alias set (the one the
//     evidence passage shows first) and put in place of the wrong one.
//   - refconflict (ref_conflict): the references disagree. Unless an
//     expert decision settles it, the sentence states both values, each
//     with its own citation (outcome conflict: 福清人（一说晋江人）), and
//     a review is opened for an expert. Review ids are deterministic, so a
//     redelivered repair opens nothing new.
//   - knowledge (knowledge_lack): ranks, offices, old place names. The
//     wrong term is looked up in the glossary (Glossary) for its category;
//     the references' term for the same slot, of the same category,
//     replaces it, and the glossary entry is cited only when it decided
//     the choice.
//   - regenerate (not_included and other): rewrites from the supporting
//     references only: a clause no reference includes is dropped, a value
//     a reference contradicts is replaced by the reference's value, what is
//     supported is kept; the sentence is dropped when nothing supported is
//     left, or once the attempts are used up. With a chat model, the model
//     rewrites the sentence from the error messages and the supporting
//     references (prompts/regenerate.v1.tmpl), answering strict JSON that
//     is validated; a malformed answer is asked again once, then the
//     offline rewrite is used.
//
// The solvers are general: they know no injected value; they work from the
// verdict's facts and evidence and from the reference set. A replacement
// value is found by aligning the sentence with the evidence passage (the
// value between the same words on both sides), and from the subject's KG
// facts of the relation. A specialist that finds no fix of its own falls
// back to the regenerate rewrite; one that does leaves the verdict's other
// failed facts to the next verification: a wrong date or name makes the
// verifier misread the rest of the sentence, and those readings vanish
// with the fix, while a real second error costs one more attempt. A
// correction that would leave the text unchanged is answered dropped,
// since the same sentence would fail the same way.
//
// Handler wires a Solver into the pipeline: repairs in, one correction
// out (plus any reviews), reading the reference set from agent memory.
package solver
