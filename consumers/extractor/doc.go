// Package extractor is the extractor stage: regex-driven relation
// extraction (Alstorian §2.2.1). A chunk goes in; triplets (head, relation,
// tail) come out, each with its chunk id, doc id, entry, the rune span of
// its evidence within the chunk, the method and pattern that found it and
// a confidence.
//
// Three methods, in order of trust:
//
//   - "regex": hand-made patterns, compiled once per profile. For classical-Chinese
//     biographies (liezhuan) a paragraph or sentence that opens with
//     "Name，字X，号Y，Place人" introduces a person; its clauses give the
//     courtesy name, art name, other names and native place. Narrative
//     patterns find the jinshi year and rank, offices (verb + a phrase
//     that must end in a known office title), death (its time, and the
//     age at death as a relation of its own: "卒，年七十一" is death_age
//     七十一, never a death dated 七十一) and named relatives (父X, 子X
//     …). For English prose: born, died (and "aged 71"), native of,
//     appointed, courtesy name/styled. The chunk's corpus profile
//     (internal/lang/profile) decides which: Chinese patterns under a Chinese
//     profile, English ones under an English profile, whatever characters
//     the text holds; the eras (internal/lang/zh/era's table), the office lexicon,
//     the examination terms, the kinship words and the hand-made regex
//     demonstrations are the profile's data.
//   - "llm_regex": when the opening chunk of an entry lacks a relation the
//     profile expects (Config.Expect), regexes that the model wrote for
//     earlier chunks are tried from agent memory; if none fits, the model
//     is asked to write one for this chunk, with hand-made and remembered
//     regexes as demonstrations. The proposal is compiled with Go's RE2
//     (linear time, no backreferences or lookaround) and validated
//     (CheckRegex lists the rules); a regex that passes is stored in memory.
//   - "llm": plan B, when no regex validates: the model returns triplets in
//     a strict JSON schema, kept only if the relation was asked for and the
//     tail and evidence are verbatim in the chunk.
//
// The model is asked only when its answer can pay (Gating in llm.go): not
// when the person's text lacks every cue word of the relation's patterns
// (the words every match of a hand-made or stored pattern must contain),
// not for a relation and chunk shape whose remembered outcomes yield less
// than one fact per Config.MinYieldCalls calls, and plan B only after a
// rejected regex, not after the model answered that the chunk does not
// state the fact. Config.AskAlways turns the gates off.
//
// Precision comes before recall: a wrong triplet becomes a wrong sentence
// in a biography. So the head of a narrative fact is the chunk's entry
// person only when the clause names no one else (ownClause) and the
// sentence is not about a relative; a relative's sub-entry ("子琮，字季玉")
// starts a section whose facts belong to the relative, and so does the
// text of a chunk the chunker gives to one (Chunk.SubEntry, set on an
// attached person's chunks: "用嘉，举人。历官广西参政" is 申用嘉's, not
// 申时行's); a
// succession ("子隐王尚炳嗣", "俊卒，弟杰嗣") starts a section about the heir
// that runs to the end of its paragraph, so a line of princes or nobles
// does not pile its deaths on the first holder, and each heir is linked to
// the holder before him (relative, qualifier succession=1); a section
// whose person cannot be named yields nothing; an office tail must end
// with a known office title; a death needs a time. People are also
// introduced after a time or a colon ("洪武初，有张琬者，鄱阳人", "殉难者：
// 萧震，侯官人"), after a semicolon ("…巴人；童存德，字居敬"), by a paragraph
// that opens with whose relative they are ("鄂乐舜亦鄂尔泰从子") or with a
// kinship word and a given name ("子维城，举万历四十七年进士": the paragraph
// is the son's). An opening gives one native place; a relative the text
// names after a kinship word and then as a subject ("孙同敞", "同敞负志节")
// takes the office written after the verb with his name ("改同敞尚宝卿")
// and the paragraph that opens with him; a death told after the head's
// death ("守仁既卒") is someone else's; a paragraph that opens with another
// name and his degree ("平定郗夔，弘治十五年进士") gives the head no degree.
// Every
// triplet of an entry's chunk keeps Entry and EntryChunk whatever its
// head: the KG anchors each person an entry introduces to that entry, the
// sub-entry's person as an entity of his own.
//
// People are people (persons.go): every person a triplet names becomes a
// node of the knowledge graph, so the rules that read names ask for
// evidence. A sentence that opens with words and a comma introduces a
// person only when the profile's fitted name judge (internal/lang/zh/names) takes
// the words for a name; where only a "…人" clause would present him, that
// clause must be written with characters the corpus's native places hold
// (data/place_chars.tsv, counted from the development volumes'
// openings), else the words must read as a name by themselves and begin
// with a surname the corpus writes. Words the judge reads as a clause's
// ("世宗即位，复行人") stay with the person before them; a sentence that
// introduces someone the evidence does not name gives its facts to no
// one. A given name is named in full when the text wrote the person in
// full before, and names no one when nothing completes it and it does not
// begin with a surname the corpus writes; a kinship word that, with the
// words after it, writes a named person's given name ("子兴喜" in 郭子兴's
// entry) is part of that name; a woman written by her family's name and
// 氏 gives it to her parents' line, her husband's to her children. The
// listing's groups are read only when they are names (no sentence
// punctuation: archive books write notes in parentheses). Whatever rule
// read it, no person's name holds other than name characters, is one
// character, or is "X某" or "X公"; the chunker's entry, subject and
// sub-entry are taken as given.
//
// Memory is consumer-side (the Memory interface); infra/memory keeps it in
// Redis. The model is any eino model.BaseChatModel; infra/llm supplies one
// with timeouts, retries and a concurrency limit. Stats counts chunks,
// triplets, model calls made and calls saved by remembered regexes.
//
// Speed: RE2 cannot skip ahead to a literal in patterns that begin with an
// alternation or an optional part, so each narrative pattern is run only on
// the sentences that contain its anchor words (findAll), and office verbs
// are matched where they occur. Beyond that, a pattern does not run where
// it cannot match (prefilter.go): what its parsed syntax says of every
// match — words one of which it holds, the runes it begins with, its
// longest length, its alphabet — is read once, so it holds whatever the
// pattern is made of; patterns led by an era date are kept per first
// character of the era, and character classes are tested with rune sets
// (runeset.go). The offline extractor handles the whole mingshi-liezhuan
// corpus (1.58 M characters) in about half a second on one core (see
// BenchmarkExtractCorpus).
package extractor
