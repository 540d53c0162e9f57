// Package segment reads volumes of classical-Chinese biographies (列传, in
// the manner of the History of Ming and the Draft History of Qing, and the
// scholars' records, 学案) into entries: who each piece of a volume is
// about. Its rules are the language's; the words they read (entry
// formulas, kinship words, introducing words, offices, markers) are a
// corpus profile's data (internal/lang/profile), and whether a written
// name is a person's is weighed by the profile's name judge
// (internal/lang/zh/names).
//
// # Use
//
// New makes the rules of a profile and NewDoc prepares a text; both are
// made once and read many times. The reader calls:
//
//   - Rules.EntryOpenings: how many lines open with a name and an entry
//     formula, the evidence that a text is a volume of biographies;
//   - Rules.Marks: where the pieces of a volume start and what each
//     starts (text outside entries, a main entry, a sub-entry), with the
//     person as listed or written;
//   - Rules.Structure: the marks of the text outside entries and the
//     listing lines, for a reader that finds the entries another way
//     (the chunker's model engine);
//   - Rules.Read: the marks, from Marks or from elsewhere, ordered into
//     pieces that tile the text, each with its person named in full where
//     the volume shows the name (Pieces does the same for text read
//     without entry rules);
//   - Rules.Listed: the listing's parenthesised groups.
//
// The chunker stage (consumers/chunker) calls these and cuts the pieces
// into chunks; nothing here knows of chunks or documents.
//
// # What a volume is
//
// A volume may open with a listing of the people it covers (its first
// line, or heading lines without sentence punctuation; relatives in
// parentheses or run on with "、"), then one entry per person, each
// opening with the person's name and a formula that shows a person:
// "Name，字X，Place人", "Name，Place人", "Name，X氏，世居Y", "Name，满洲正白
// 旗人", "Name，武善弟", "Name者，…", "Name字X，号Y"; or a sentence inside a
// line with the full formula (a lost paragraph break). Names are checked
// against what the volume itself shows about its names (the characters
// they begin with, their lengths). Openings whose name is a date ("二月
// 初一", "嘉靖间") or begins with a particle do not count. The listing,
// when there is one, confirms: its main names, aligned in order with the
// openings, are the main entries, named as listed, so the main entries of
// a volume spell its listing (liezhuan.go). Without one, the text alone
// says which openings are main entries (open.go).
//
// People whose own entry opens inside another's — relatives with a
// formula of their own ("子琮，字季玉", "布善，武善弟"), attached people
// (附传: "袁萃，字圣起，吴县人。" inside 徐贞明's entry), people the listing
// names in parentheses (刘基(子琏璟)) — open sub-entries: the piece names
// the person (a given name completed when the text shows the surname:
// 申用嘉 for "用嘉，举人" in 申时行's entry; subentry.go) and keeps the
// entry it opens in. Such a person may also be brought in inside a
// sentence: "代之者刘璋，字廷信" (he who replaced him), or after a comma
// with an introducing word, "…部侍郎者，有王景，字景彰"; the piece then
// begins there (introduced.go). Without a listing, an opening is attached
// when the text says so: a kinship, introducing or office word before the
// name ("季子铭", "同邑刘俨", "郎中胡琏"), a kinship clause naming someone
// of the open entry, a given name the text wrote before in full, or a
// short paragraph without strong evidence. An opening that does not show
// a person ("互市者，…") starts a piece without a subject.
//
// People are people: an opening the listing does not confirm gets a
// subject, main or attached, only when the profile's name judge takes
// what it writes for a name (names.go). Before the judge reads it, the
// words that are not the name come off: an introducing word, an office, a
// prince's fief and title, a woman's title before her family name and 氏,
// and a kinship word, with whose relative the person is ("子琮", "养子德济",
// "晔从弟旦", "思诚孙清"; the kinship words are the profile's and those its
// two-character words show how to make, 世父 as 世子). "宪成既废，名益高"
// and "帝崩，无子" open nothing. A kinship word is never part of a
// subject: the relative's own name is, completed with the surname the
// kinship implies (杨旦 after "杨晔" for "晔从弟旦"), and a given name
// written alone is completed with the surname the volume writes it with
// (李拱辰 after "同官李拱辰"), a woman known by her family name alone
// keeping the words that say whose she is ("宋德成妻姜氏"). Text before the
// first entry (the listing line, a category volume's introduction),
// heading lines and the closing appraisal (赞曰) are pieces that belong to
// no entry.
//
// The cases the rules are held to are testdata/readings.jsonl, one volume
// and its reading a line.
package segment
