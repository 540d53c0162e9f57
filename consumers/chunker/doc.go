// Package chunker is the chunker stage: it splits each document into
// chunks that tile it — concatenated, the chunks give the document text
// back exactly; offsets are runes — and publishes them on the chunks topic.
// It implements the training-free pattern-enhanced chunking of the
// Alstorian paper (§2.2.1): a corpus profile supplies the entry
// pattern and a few hand-made demonstrations.
//
// # Profiles
//
// A document names its profile (schemas.Document.Profile) or the chunker
// detects it (Detect) from the evidence of entry openings: lines that open
// with a name and a person's formula (字, 号, a clan, 世居, a banner, a
// native place, a kinship clause, "Name者，"), at least one per 20,000
// characters; names that are dates ("二月初一", "嘉靖间") or begin with a
// particle do not count. Profiles are data (internal/lang/profile): each says how
// its documents are chunked and holds the entry patterns and
// demonstrations; the embedded ones are:
//
//   - liezhuan: volumes of biographies in the manner of the History of
//     Ming and the Draft History of Qing, and the scholars' records (学案).
//     One entry chunk per person, Subject set to the person; a long entry
//     is split at paragraph, then sentence ends into continuation chunks
//     (empty Subject, Entry and EntryChunk set). A chunk never spans two
//     people as far as the text shows.
//
//     Entries are found from the text alone: a line that opens with a
//     name and a formula that shows a person ("Name，字X，Place人",
//     "Name，Place人", "Name，X氏，世居Y", "Name，满洲正白旗人",
//     "Name，武善弟", "Name者，…", "Name字X，号Y"; the formulas are the
//     profile's data), or a sentence inside a line with the full formula
//     (a lost paragraph break). Names are checked against what the volume
//     itself shows about its names (the characters they begin with, their
//     lengths; see liezhuan.go). The listing on the volume's first line,
//     when there is one, confirms: its main names, aligned in order with
//     the openings, are the main entries, named as listed, so the main
//     entry chunks of a volume spell its listing.
//
//     People whose own entry opens inside another's — relatives with a
//     formula of their own ("子琮，字季玉", "布善，武善弟"), attached people
//     (附传: "袁萃，字圣起，吴县人。" inside 徐贞明's entry), people the
//     listing names in parentheses (刘基(子琏璟)) — are attached
//     persons: their chunk has Attached set, Subject and SubEntry the
//     person (a given name completed when the text shows the surname:
//     申用嘉 for "用嘉，举人" in 申时行's entry; see subentry.go), and Main
//     the person whose entry it opens in; the chunks cut from the rest of
//     that person's text have SubEntry and Main set too. Entry and
//     EntryChunk stay the main person's: the knowledge graph anchors the
//     people an entry introduces to the entry, so a relative's own facts
//     and the main text's edge naming him meet on one person. So their
//     facts are theirs, never the main person's, and the main person's
//     reference set leaves their text out unless it names him. Such a person may also be brought
//     in inside a sentence: "代之者刘璋，字廷信" (he who replaced him), or
//     after a comma with an introducing word, "…部侍郎者，有王景，字景彰";
//     the chunk then begins there. Without a listing, an opening is
//     attached when the text says so: a kinship, introducing or office
//     word before the name ("季子铭", "同邑刘俨", "郎中胡琏"), a kinship
//     clause naming someone of the open entry, a given name the text wrote
//     before in full, or a short paragraph without strong evidence. An
//     opening that does not show a person ("互市者，…") splits without a
//     subject.
//
//     People are people: an opening the listing does not confirm gets a
//     subject, main or attached, only when the profile's name judge
//     (internal/lang/zh/names, fitted on the corpus: the characters of the name,
//     whether the volume writes it again, whether it begins with a name
//     the volume presents, and what the words after it say) takes what it
//     writes for a name. Before the judge reads it, the words that are
//     not the name come off: an introducing word, an office, a prince's
//     fief and title, a woman's title before her family name and 氏, and
//     a kinship word, with whose relative the person is ("子琮", "养子德济",
//     "晔从弟旦", "思诚孙清"; the kinship words are the profile's and those
//     its two-character words show how to make, 世父 as 世子). "宪成既废，
//     名益高" (宪成 and his dismissal) and "帝崩，无子" open nothing; their
//     text stays the entry's person's. A kinship word is never part of a
//     subject: the relative's own name is, completed with the surname the
//     kinship implies (杨旦 after "杨晔" for "晔从弟旦"), and a given name
//     written alone is completed with the surname the volume writes it
//     with (李拱辰 after "同官李拱辰"; see subentry.go), a woman known by
//     her family name alone keeping the words that say whose she is
//     ("宋德成妻姜氏"). Text before the first entry (the listing line, a category
//     volume's introduction), heading lines and the closing appraisal
//     (赞曰) form chunks that belong to no entry. See liezhuan.go for the
//     rules.
//
//   - generic: sentence-aware windows for everything else: Chinese (。！？)
//     and English (. ! ?) sentence ends and paragraph breaks, about
//     Config.TargetChars long, never cut inside a sentence unless the
//     sentence alone exceeds Config.HardMaxChars.
//
//   - english: the same windows for English prose a document says is
//     English; the later stages read it with English rules whatever
//     characters it quotes.
//
//   - glossary: "term｜category｜definition" lines (internal/lang/zh/glossary),
//     one chunk per entry; chosen for documents of the glossary collection
//     or whose lines are such entries (glossary.go).
//
// # Engines
//
// The offline engine is deterministic and needs no network. With WithModel,
// liezhuan documents are split by the model instead: the prompt
// (prompts/liezhuan.v1.tmpl, with the profile's demonstrations,
// internal/lang/profile's chunk_demos.json) states the pattern, the model answers the
// entry starts as JSON anchors, the answer is validated (boundaries on
// sentence starts of the text, in order, so the pieces tile it), a rejected
// answer is asked again with the reason, and a document whose answers stay
// invalid falls back to the offline engine, with the reason in
// Result.Fallback, a warning in the log and Stats.LLMFallbacks counted.
// Generic documents never use the model: sentence windows gain nothing
// from it.
//
// Chunk ids are <doc id>-<seq, 4 digits>: deterministic from the document
// id and the chunk's position.
package chunker
