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
//   - Attached people: a chunk marked Attached begins the entry of a
//     person whose entry opens inside another's. It is no main entry: it
//     is left out of exactness, recall and the precision above, and
//     counted apart (attached_chunks; attached_listed when the listing
//     writes the name or its given name). The subject score below counts
//     it.
//   - Subjects (subjects, subjects_named, subject_precision,
//     attached_named, not_names): every entry chunk's subject, main and
//     attached, is scored, with rules of its own (segmentation_subjects.go),
//     and subject_precision = subjects_named / subjects is the precision
//     of every subject counted. The listing here is every heading line of
//     the volume (line 1 and the lines without sentence punctuation that
//     list people: a Qing volume may put a title on line 1 and its people
//     after it). A subject is a person's name when it holds no kinship
//     word (从弟, 养子, 世父, 长子 …, or a kinship character after a name of
//     the volume: "思诚孙清"), does not begin with a name of the volume
//     and go on (a name of the volume: an earlier subject, the attached
//     chunk's main person, or their names without the first character:
//     "宪成既废"), and either the listing writes it (an attached
//     person's name only when the volume's text writes it too: the
//     listing runs names together, and "宇曹元" in "(刘宇曹元)" is none),
//     or writes it without its first one or two characters (a given name
//     the chunker completed: 刘琏 for "(子琏)"), or the chunk's first
//     sentence writes it, or it without its first one or two characters,
//     followed by "，" or "者，" and a clause that says who a person is, by
//     the rules of the entry openings below (a courtesy or other name, a
//     clan, an ancestry, a native place, a banner, a kinship), or by "、",
//     the other names of a joint entry, "，" and a courtesy name, a
//     native place, a clan or a banner. The second is what counts for a
//     subject line 1 does not list: a relative or a companion the entry
//     presents ("袁萃，字圣起，吴县人" inside 徐贞明's entry), a person of a
//     Qing volume whose line 1 lists only some. A given name completed
//     with a surname counts only when the surname is the main person's or
//     that of a name of the volume after whose given name the chunk
//     writes a kinship character and the given name ("瑜子之陶": 邱之陶
//     when 邱瑜 is one), or the volume's text (its heading lines aside)
//     writes the full name somewhere. not_names lists the others with the volume, the chunk id, the first
//     characters of the chunk and why: kinship, clause (a name of the
//     volume and more words), surname (a surname the volume never gives
//     the given name) or unshown (neither listed nor shown as a person).
//     A subject written as the histories write a person without a given
//     name ("宋德成妻姜氏", "宁妃郭氏") is a name by the same rules; the
//     score does not check that a name is written in full (时兴 for 李时
//     兴): that is read by eye.
//   - Entry openings (entries.*), for every volume, listing or not: the
//     text's own entries, read with rules independent of the chunker's
//     (openings.go): a paragraph that opens "Name，" ("Name者，", a joint
//     "Name、Name，") whose first clause, or a second clause giving a native
//     place, clan or banner, says the name is a person's — a courtesy or
//     other name, a clan (…氏), an ancestry or residence (其先, 先世,
//     世居), a native place (…人), a banner (隶…旗) or a kinship (武善弟);
//     a scholars' record opens "韩邦奇字汝节，号苑洛" with the courtesy
//     name in the name's clause; a time ("二十九年春") is no name.
//     Attached people's and relatives' entries count. recall = openings at
//     which a chunk with a subject begins / openings; precision = chunks
//     with a subject that begin at an opening, or at a sentence inside a
//     paragraph that opens the same way (a lost paragraph break) / chunks
//     with a subject. This is the measure for volumes whose line 1 lists
//     only some people (the Draft History of Qing).
//
// With --no-listing (SegmentationOptions.NoListing) the chunker sees each
// volume without line 1, so it finds entries from the text alone; the
// scores still read line 1.
package eval
