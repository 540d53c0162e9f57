// Package text holds the CJK-aware text primitives every stage shares:
// rune offsets (all spans in annalist count runes, not bytes), sentence
// splitting for classical Chinese and English, tokenising for overlap
// measures, and the Jaccard similarity the verifier filters references by.
//
// Chinese is tokenised by characters and adjacent character bigrams, since
// classical Chinese has no word delimiters and a word segmenter would be
// both slow and wrong on it; English is tokenised by lowercased words.
package text
