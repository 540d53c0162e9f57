// Package eval computes annalist's quality metrics on evaluation data that
// lives outside the repository. Each metric is a function of the data
// folder and of the system under test, passed in as a function, so the
// same code scores the offline engine, an LLM engine, or a baseline.
//
// # Segmentation
//
// Segmentation scores a chunker on biography volumes in the manner of the
// History of Ming (one .txt file per volume; `annalist eval segmentation`).
// Line 1 of a volume lists the people it covers, their names run together;
// a parenthesised run lists relatives attached to the entry of the name
// before it, also run together ("刘基(子琏璟)宋濂" lists 刘基 with his sons
// 琏 and 璟, then 宋濂). Documents are built exactly as the ingest producer
// builds them (stable id from file name and content, profile left empty so
// the chunker detects it, as in the pipeline). An entry chunk is a chunk
// with a non-empty subject. The rules, exactly:
//
//   - Main string: line 1 with every parenthesised part removed (nesting
//     counted; both ASCII and full-width parentheses), and with whitespace
//     and the heading markers ◎ ○ △ · removed. Groups: the text of each
//     parenthesised part, one group per run between parentheses.
//   - A volume is named when its line 1 does not start with ◎ (a category
//     title such as "◎循吏") and leaves a non-empty main string without
//     sentence punctuation (，。：；！？; a prose line lists nobody). Only named volumes count towards
//     exactness and recall; every volume counts towards precision.
//   - Exact: the subjects of the volume's entry chunks, in order,
//     concatenated, equal the main string.
//   - Recall: the subjects are aligned with the main string: the chain of
//     subjects, in chunk order, that occur at increasing, non-overlapping
//     offsets of the main string and cover the most of its characters. Each
//     aligned subject is a listed main name that begins its own chunk.
//     The names of the main string no subject covers are missed; since
//     names run together, a missed run of g characters counts as
//     max(1, round(g/2.6)) names (2.6 is the mean length of the main names
//     of the development data). name_recall = aligned subjects /
//     (aligned subjects + missed names).
//   - Precision: an entry chunk is listed when its subject occurs as a
//     substring of the volume's main string or of one of its groups.
//     For a volume that is not named, line 1 lists nobody; the volume's
//     own listing is then its heading lines — the lines, line 1 included,
//     whose main string has no sentence punctuation (a ◎ volume names its
//     people on such a line after its introduction) — parsed the same way.
//     name_precision = listed entry chunks / entry chunks, over all
//     volumes; name_precision_named_volumes is the same over named volumes
//     only, where the listing is line 1 alone.
package eval
