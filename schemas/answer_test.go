package schemas_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/annalist-dev/annalist/schemas"
)

// Documents are an addition to the request: a request written before
// them decodes unchanged, one without them encodes as before, and one
// with them keeps them through the wire.
func TestRequestDocumentsAreCompatible(t *testing.T) {
	old := `{"request_id":"r","kind":"biography","subject":"叶向高","priority":2}`
	var r schemas.Request
	if err := json.Unmarshal([]byte(old), &r); err != nil || r.Documents != nil || r.Validate() != nil {
		t.Fatalf("old request = %+v, %v", r, err)
	}
	b, err := json.Marshal(r)
	if err != nil || string(b) != old {
		t.Fatalf("re-encoded = %s, %v; want %s", b, err, old)
	}
	r = schemas.Request{RequestID: "r", Kind: schemas.KindAnswer, Subject: "Who?",
		Documents: []schemas.AnswerDocument{{Title: "T", Text: "A passage."}, {Text: "Another."}}}
	b, err = json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back schemas.Request
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, r) || back.Validate() != nil {
		t.Fatalf("round trip = %+v, %v; want %+v", back, err, r)
	}
	r.Documents = append(r.Documents, schemas.AnswerDocument{Title: "empty", Text: "  "})
	if err := r.Validate(); !errors.Is(err, schemas.ErrInvalid) {
		t.Fatalf("a document without text: %v; want ErrInvalid", err)
	}
}

func TestAnswerDocRef(t *testing.T) {
	for k := 1; k <= 12; k++ {
		if got, ok := schemas.ParseAnswerDocRef(schemas.AnswerDocRef(k)); !ok || got != k {
			t.Errorf("ParseAnswerDocRef(AnswerDocRef(%d)) = %d, %v", k, got, ok)
		}
	}
	for _, bad := range []string{"answerdoc:0", "answerdoc:-1", "answerdoc:01", "answerdoc:", "disc:x:p1", "answerdoc:x"} {
		if k, ok := schemas.ParseAnswerDocRef(bad); ok {
			t.Errorf("ParseAnswerDocRef(%q) = %d, true", bad, k)
		}
	}
}

// A page's documents are an addition too: a page written before them
// decodes unchanged and encodes as before, one with them keeps them.
func TestPageDocumentsAreCompatible(t *testing.T) {
	old := `{"subject":"Who?","kind":"answer","version":1,"request_id":"r","sentences":[]}`
	var p schemas.Page
	if err := json.Unmarshal([]byte(old), &p); err != nil || p.Documents != nil {
		t.Fatalf("old page = %+v, %v", p, err)
	}
	if b, err := json.Marshal(p); err != nil || string(b) != old {
		t.Fatalf("re-encoded = %s, %v; want %s", b, err, old)
	}
	p.Documents = []schemas.AnswerDocument{{Title: "T", Text: "A passage."}}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var back schemas.Page
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, p) {
		t.Fatalf("round trip = %+v, %v; want %+v", back, err, p)
	}
}
