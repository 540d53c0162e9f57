// Package zh is the classical-Chinese fact reader, and its subpackages
// the rest of what annalist knows of the language: era (regnal eras and
// Gregorian years), names (the name judge fitted on the corpus), segment
// (entry openings and attached people), claims (a sentence's claims
// checked against evidence), glossary (examination ranks and offices).
//
// The reader applies hand-made rules
// that read the facts of biographies (liezhuan) and archive books, run by
// the extractor stage (consumers/extractor) on chunks a Chinese corpus
// profile reads (Reader). The profile's data feeds the rules: the eras
// (internal/lang/zh/era's table), the office lexicon, the examination
// terms and the kinship words are compiled into the patterns once per
// profile.
//
// A paragraph or sentence that opens with "Name，字X，号Y，Place人"
// introduces a person; its clauses give the courtesy name, art name,
// other names and native place. Narrative patterns find the jinshi year
// and rank, offices (verb + a phrase that must end in a known office
// title), death (its time, and the age at death as a relation of its own:
// "卒，年七十一" is death_age 七十一, never a death dated 七十一) and named
// relatives (父X, 子X …). The volume's listing of people names them where
// the text writes them after a title (listed.go).
//
// Precision comes before recall: a wrong triplet becomes a wrong sentence
// in a biography. So the head of a narrative fact is the chunk's entry
// person only when the clause names no one else (ownClause) and the
// sentence is not about a relative; a relative's sub-entry ("子琮，字季玉")
// starts a section whose facts belong to the relative, and so does the
// text of a chunk the chunker gives to one (Chunk.SubEntry, set on an
// attached person's chunks: "用嘉，举人。历官广西参政" is 申用嘉's, not
// 申时行's); a succession ("子隐王尚炳嗣", "俊卒，弟杰嗣") starts a section
// about the heir that runs to the end of its paragraph, so a line of
// princes or nobles does not pile its deaths on the first holder, and each
// heir is linked to the holder before him (relative, qualifier
// succession=1); a section whose person cannot be named yields nothing;
// an office tail must end with a known office title; a death needs a
// time. People are also introduced after a time or a colon ("洪武初，有张琬
// 者，鄱阳人", "殉难者：萧震，侯官人"), after a semicolon ("…巴人；童存德，字
// 居敬"), by a paragraph that opens with whose relative they are ("鄂乐舜亦
// 鄂尔泰从子") or with a kinship word and a given name ("子维城，举万历四十
// 七年进士": the paragraph is the son's). An opening gives one native
// place; a relative the text names after a kinship word and then as a
// subject ("孙同敞", "同敞负志节") takes the office written after the verb
// with his name ("改同敞尚宝卿") and the paragraph that opens with him; a
// death told after the head's death ("守仁既卒") is someone else's; a
// paragraph that opens with another name and his degree ("平定郗夔，弘治十
// 五年进士") gives the head no degree. The sections, by the person each is
// about, are handed to the stage with the facts (factkit.Reading.Parts),
// so the regexes the model writes are held to the same attribution.
//
// People are people (persons.go): every person a triplet names becomes a
// node of the knowledge graph, so the rules that read names ask for
// evidence. A sentence that opens with words and a comma introduces a
// person only when the profile's fitted name judge
// (internal/lang/zh/names) takes the words for a name; where only a "…人"
// clause would present him, that clause must be written with characters
// the corpus's native places hold (data/place_chars.tsv, counted from the
// development volumes' openings), else the words must read as a name by
// themselves and begin with a surname the corpus writes. Words the judge
// reads as a clause's ("世宗即位，复行人") stay with the person before them,
// with the clause roles counted on the development volumes
// (data/clause_roles.tsv) deciding who is the agent of a clause; a
// sentence that introduces someone the evidence does not name gives its
// facts to no one. A given name is named in full when the text wrote the
// person in full before, and names no one when nothing completes it and
// it does not begin with a surname the corpus writes; a kinship word
// that, with the words after it, writes a named person's given name
// ("子兴喜" in 郭子兴's entry) is part of that name; a woman written by her
// family's name and 氏 gives it to her parents' line, her husband's to her
// children. The listing's groups are read only when they are names (no
// sentence punctuation: archive books write notes in parentheses).
// Whatever rule read it, no person's name holds other than name
// characters, is one character, or is "X某" or "X公"; the chunker's entry,
// subject and sub-entry are taken as given.
//
// In a chunk outside every entry (an archive book's) the reader also
// offers the facts of known persons (factkit.Reading.Known): a sentence
// that opens, after a time clause at most, with a name the knowledge graph
// knows is read with that name as the head (known.go).
//
// Speed: RE2 cannot skip ahead to a literal in patterns that begin with an
// alternation or an optional part, so each narrative pattern is run only
// on the sentences that contain its anchor words (factkit.FindAll), and
// office verbs are matched where they occur. Beyond that, a pattern does
// not run where it cannot match (prefilter.go): what its parsed syntax
// says of every match — words one of which it holds, the runes it begins
// with, its longest length, its alphabet — is read once, so it holds
// whatever the pattern is made of; patterns led by an era date are kept
// per first character of the era, and character classes are tested with
// rune sets (factkit.RuneSet). The offline extractor handles the whole
// mingshi-liezhuan corpus (1.58 M characters) in about half a second on
// one core (see BenchmarkExtractCorpus in consumers/extractor).
package zh
