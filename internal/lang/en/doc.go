// Package en is the English fact reader (its subpackage discourse reads
// discussions): hand-made patterns for
// English biographical prose, run by the extractor stage
// (consumers/extractor) on chunks an English corpus profile reads.
//
// The patterns find births ("was born in 1523 in Fuqing"), deaths ("died
// in 1571, aged 71": the age is a relation of its own, death_age), native
// places ("a native of Fuqing"), appointments ("was appointed Grand
// Secretary": an office must read as a title) and courtesy, art and pen
// names ("Ye Xianggao, courtesy name Jinqing", "Ye Xianggao (courtesy name
// Jinqing) of Fuqing", "His courtesy name was Jinqing"). The subject of a
// pattern is an explicit name or a pronoun; a pronoun refers to the last
// person introduced before it in the chunk, or to the chunk's entry when
// none was, and a lone surname to the full name the chunk wrote before.
// Each pattern runs only on the sentences that hold its anchor words
// (factkit.FindAll).
package en
