package topic

// SentenceWithin exports sentenceWithin to the package's tests.
var SentenceWithin = sentenceWithin
