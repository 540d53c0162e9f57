package demo_test

import (
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/demo"
)

func TestDocumentsAreStableAndMixed(t *testing.T) {
	a, err := demo.Documents()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := demo.Documents()
	if len(a) < 4 {
		t.Fatalf("demo corpus has %d documents", len(a))
	}
	var han, latin bool
	for i := range a {
		if a[i].Doc.DocID != b[i].Doc.DocID || a[i].EventID != b[i].EventID {
			t.Fatalf("ids change between calls: %s vs %s", a[i].Doc.DocID, b[i].Doc.DocID)
		}
		han = han || strings.ContainsRune(a[i].Doc.Text, '字')
		latin = latin || strings.Contains(a[i].Doc.Text, " was ")
	}
	if !han || !latin {
		t.Fatal("the demo corpus should hold classical-Chinese and English texts")
	}
}
