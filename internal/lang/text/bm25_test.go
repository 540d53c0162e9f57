package text_test

import (
	"math"
	"testing"

	"github.com/annalist-dev/annalist/internal/lang/text"
)

// BM25Term's weight of a term in a document of average length is the
// term's IDF times tf(k1+1)/(tf+k1); a longer document weighs it less,
// and a term in more documents weighs less.
func TestBM25Term(t *testing.T) {
	idf := math.Log(1 + (10-2+0.5)/(2+0.5))
	for _, c := range []struct {
		tf   float64
		want float64
	}{{1, idf}, {3, idf * 3 * 2.2 / (3 + 1.2)}} {
		if got := text.BM25Term(c.tf, 2, 10, 7, 7); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("tf %v: %v, want %v", c.tf, got, c.want)
		}
	}
	if long, avg := text.BM25Term(1, 2, 10, 14, 7), text.BM25Term(1, 2, 10, 7, 7); long >= avg {
		t.Errorf("a document twice the average length weighs %v, not less than %v", long, avg)
	}
	if common, rare := text.BM25Term(1, 8, 10, 7, 7), text.BM25Term(1, 2, 10, 7, 7); common >= rare {
		t.Errorf("a term in 8 of 10 documents weighs %v, not less than one in 2 (%v)", common, rare)
	}
}
