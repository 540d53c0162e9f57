package text

import "math"

// BM25's constants, at their customary values (Robertson and Zaragoza):
// k1 saturates a term's count, b normalizes by the document's length.
const (
	BM25K1 = 1.2
	BM25B  = 0.75
)

// BM25Term is the BM25 weight of one query term in one document: the
// term occurs tf times in the document and in df of the n documents, and
// the document is docLen long against an average of avgLen (in the same
// unit). A document's score is the sum over the query's terms.
func BM25Term(tf, df, n, docLen, avgLen float64) float64 {
	idf := math.Log(1 + (n-df+0.5)/(df+0.5))
	return idf * tf * (BM25K1 + 1) / (tf + BM25K1*(1-BM25B+BM25B*docLen/avgLen))
}
