package claims_test

import (
	"os"
	"reflect"
	"testing"

	"github.com/annalist-dev/annalist/internal/kit/goldentest"

	"github.com/annalist-dev/annalist/internal/lang/zh/claims"
	"github.com/annalist-dev/annalist/schemas"
)

// atomicCase is one line of testdata/atomic.jsonl: a sentence and the
// atomic facts Atomic reads from it, in order.
type atomicCase struct {
	Name     string         `json:"name"`
	Sentence string         `json:"sentence"`
	Facts    []schemas.Fact `json:"facts"`
}

func TestAtomic(t *testing.T) {
	goldentest.Run(t, os.DirFS("testdata"), "atomic.jsonl", func(t *testing.T, tt atomicCase, fail goldentest.Fail) {
		got := claims.Atomic(tt.Sentence)
		if len(got) == 0 && len(tt.Facts) == 0 {
			return
		}
		if !reflect.DeepEqual(got, tt.Facts) {
			fail("Atomic(%q)\n got  %+v\n want %+v", tt.Sentence, got, tt.Facts)
		}
	})
}

// FuzzAtomic checks that any text splits without panicking and into facts
// whose texts are in the sentence (Gregorian years aside, which a clause
// leaves out).
func FuzzAtomic(f *testing.F) {
	for _, s := range []string{"林敬安，字守拙，号南溪，莆田人。", "万历十一年（1583年），林敬安举进士。", "（）、，。",
		"He died in 1890, and was buried.", "元年正月甲子朔", "年六十有九", "（1583", "字"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, fact := range claims.Atomic(s) {
			if fact.Text == "" {
				t.Fatalf("Atomic(%q): empty fact %+v", s, fact)
			}
		}
	})
}
