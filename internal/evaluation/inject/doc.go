// Package inject puts one known error into a sentence of a generated page,
// so that the verifier, the router and the solvers can be measured
// against a ground truth (`annalist eval injection`) and so that scripted
// chat models in tests can write wrong sentences on purpose.
//
// Six types of error are injected, each into a slot the sentence already
// has (Inject reports ok=false when it has none):
//
//   - era: the year of an era date is changed to another year the same era
//     was counted (万历十一年 → 万历十四年); a Gregorian annotation beside it
//     is left as it was, so the two disagree.
//   - gregorian: a Gregorian year is moved by one to nine years (1583 →
//     1586).
//   - place: the native place of an identity sentence (…，福清人。) is
//     swapped with another person's native place from the Pool.
//   - courtesy: the courtesy name of an identity sentence (字进卿) is
//     swapped with another person's courtesy name from the Pool.
//   - rank: an examination degree or rank is changed: 进士 ↔ 举人, 一甲/二甲/
//     三甲, 状元/榜眼/探花, 会元 ↔ 解元.
//   - fabricated: a plausible clause that no source gives is appended
//     before the final full stop (…举进士，尝游历岭南诸郡。).
//
// An Injection records the sentence before and after, the wrong value put
// in and the right value it replaced. The wrong value never occurs in the
// original sentence, so Residual — whether a later wording still carries
// the error — is a plain substring test. The Injection is the evaluator's
// ground truth; it must never be shown to the system under test.
//
// Injection is deterministic given the sentence, the pool and the random
// source, so a seeded evaluation is reproducible.
package inject
