// Package factkit is what the hand-made fact readers of the languages
// (internal/lang/zh, internal/lang/en) and the extractor stage
// that calls them (consumers/extractor) share: the fact a rule finds
// before it is tied to its chunk (Fact), what a reader returns for a
// chunk (Reading), which person a chunk is about (EntryPerson,
// OpensEntry), and the scanning primitives both readers run their
// patterns with (FindAll over the sentences that hold a pattern's anchor
// words, RuneSet for sets of punctuation and banned characters).
package factkit
