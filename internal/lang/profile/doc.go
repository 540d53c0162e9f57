// Package profile holds the corpus profiles: what the stages know about a
// kind of text, kept as data files rather than in each stage's code.
//
// A profile is a directory of embedded files (data/<name>/):
//
//   - profile.tsv: settings — the language, how documents are chunked
//     (entries, windows, glossary), the entry patterns (formula words,
//     appraisal openers, particles that begin no name), names (compound
//     surnames, introducing words), kinship characters, office joiners and
//     prefixes, the offline drafter's plan and wording limits, the review
//     question of reference conflicts;
//   - offices.tsv: the office lexicon, one row per title with its grade
//     and whether the extractor takes it from narrative text and the
//     verifier recognises it;
//   - exams.tsv: examination terms with their level and kind;
//   - kin.tsv: kinship words with the surname their bearer has and where
//     each stage reads them;
//   - chunk_demos.json: the chunker's demonstrations for the model;
//   - regex_demos.tsv: the extractor's hand-made regexes for the model.
//
// A profile may extend another (it takes every setting and file it does not
// give itself), and a profile without a language (generic) names, per
// language, the profile whose language data text in that language is read
// with. The eras are never a list of the profile's: they are internal/lang/zh/era's
// table, with the profile's preference among dynasties.
//
// Profile names are defined here (Liezhuan, Generic, Glossary, English);
// documents, chunks and reference sets carry them, and the stages look a
// profile up with Set.For. Adding a corpus is adding a directory of files:
// Load reads whatever directories its file system holds.
//
// A Set and its profiles are immutable and safe for concurrent use.
package profile
