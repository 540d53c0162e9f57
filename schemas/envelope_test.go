package schemas_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/schemas"
)

func samples() []schemas.Message {
	return []schemas.Message{
		schemas.Document{DocID: "d1", Source: "a.txt", Text: "叶向高，字进卿，福清人。"},
		schemas.Chunk{ChunkID: "d1-0000", DocID: "d1", Seq: 0, Total: 1, Profile: "liezhuan", Method: "pattern",
			Subject: "叶向高", Entry: "叶向高", Start: 0, End: 3, Text: "叶向高"},
		schemas.Triplet{TripletID: "t1", Head: "叶向高", HeadType: schemas.EntityPerson, Relation: schemas.RelCourtesyName,
			Tail: "进卿", ChunkID: "d1-0000", DocID: "d1", Span: schemas.Span{Start: 4, End: 6}, Method: "regex", Confidence: 0.9},
		schemas.KGUpdate{EntityID: "person:叶向高", Name: "叶向高", Type: schemas.EntityPerson, Created: true},
		schemas.Request{RequestID: "r1", Kind: schemas.KindBiography, Subject: "叶向高"},
		schemas.Draft{RequestID: "r1", Kind: schemas.KindBiography, Subject: "叶向高", Index: 0, Text: "叶向高，字进卿。", Citations: []string{"d1-0000"}},
		schemas.Verdict{RequestID: "r1", Subject: "叶向高", Status: schemas.StatusSupported},
		schemas.Repair{RequestID: "r1", Solver: "era"},
		schemas.Correction{RequestID: "r1", Solver: "era", Outcome: schemas.OutcomeCorrected, Text: "x"},
		schemas.Review{ReviewID: "v1", Subject: "叶向高", Status: "open"},
		schemas.Page{Subject: "叶向高", Kind: schemas.KindBiography, Version: 1,
			Sentences: []schemas.PageSentence{{Text: "x", Status: "supported", Citations: []schemas.Citation{{ChunkID: "d1-0000"}}}}},
	}
}

func TestRoundTripEveryType(t *testing.T) {
	if len(samples()) != len(schemas.Types()) {
		t.Fatalf("samples cover %d of %d types", len(samples()), len(schemas.Types()))
	}
	for _, m := range samples() {
		t.Run(m.MessageType(), func(t *testing.T) {
			key, val, hs, err := schemas.Encode(m, schemas.Meta{EventID: "e1", Tenant: "acme"})
			if err != nil {
				t.Fatal(err)
			}
			if string(key) != m.PartitionKey() {
				t.Fatalf("key %q, want %q", key, m.PartitionKey())
			}
			got, meta, err := schemas.Decode(hs, val)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, m) {
				t.Fatalf("round trip: got %#v want %#v", got, m)
			}
			want := schemas.Meta{Type: m.MessageType(), Version: 1, EventID: "e1", TraceID: "e1", Tenant: "acme"}
			if meta != want {
				t.Fatalf("meta %+v, want %+v", meta, want)
			}
		})
	}
}

func headers(typ, version string) []schemas.Header {
	return []schemas.Header{
		{Key: schemas.HeaderType, Value: []byte(typ)},
		{Key: schemas.HeaderSchemaVersion, Value: []byte(version)},
		{Key: schemas.HeaderEventID, Value: []byte("e")},
	}
}

func TestDecodeErrors(t *testing.T) {
	valid := `{"doc_id":"d","source":"s","text":"x"}`
	tests := []struct {
		name    string
		hs      []schemas.Header
		value   string
		wantErr error
	}{
		{"unknown version", headers("document", "2"), valid, schemas.ErrUnknownVersion},
		{"version zero", headers("document", "0"), valid, schemas.ErrUnknownVersion},
		{"version not a number", headers("document", "v1"), valid, schemas.ErrUnknownVersion},
		{"unknown type", headers("letter", "1"), valid, schemas.ErrUnknownType},
		{"missing type", headers("", "1"), valid, schemas.ErrMissingHeader},
		{"missing event id", headers("document", "1")[:2], valid, schemas.ErrMissingHeader},
		{"malformed json", headers("document", "1"), `{"doc_id":`, schemas.ErrDecode},
		{"unknown field", headers("document", "1"), `{"doc_id":"d","text":"x","colour":1}`, schemas.ErrDecode},
		{"trailing data", headers("document", "1"), valid + valid, schemas.ErrInvalid},
		{"fails validation", headers("document", "1"), `{"doc_id":"","text":"x"}`, schemas.ErrInvalid},
		{"chunk span mismatch", headers("chunk", "1"), `{"chunk_id":"c","doc_id":"d","seq":0,"total":1,"profile":"g","method":"w","start":0,"end":5,"text":"ab"}`, schemas.ErrInvalid},
		{"bad tenant", append(headers("document", "1"), schemas.Header{Key: schemas.HeaderTenant, Value: []byte("a}b")}), valid, schemas.ErrInvalid},
		{"not utf-8", headers("document", "1"), "{\"doc_id\":\"\xff\"}", schemas.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := schemas.Decode(tt.hs, []byte(tt.value))
			if err == nil {
				t.Fatal("want an error")
			}
			if !errors.Is(err, tt.wantErr) || !errors.Is(err, schemas.ErrDecode) {
				t.Fatalf("error %v: want %v and ErrDecode", err, tt.wantErr)
			}
		})
	}
}

func TestEncodeRequiresEventIDAndValidMessage(t *testing.T) {
	if _, _, _, err := schemas.Encode(schemas.Document{DocID: "d", Text: "x"}, schemas.Meta{}); !errors.Is(err, schemas.ErrMissingHeader) {
		t.Fatalf("no event id: %v", err)
	}
	if _, _, _, err := schemas.Encode(schemas.Document{DocID: "d"}, schemas.Meta{EventID: "e"}); !errors.Is(err, schemas.ErrInvalid) {
		t.Fatalf("empty text: %v", err)
	}
	if _, _, _, err := schemas.Encode(schemas.Page{Subject: "s", Kind: "biography", Version: 1,
		Sentences: []schemas.PageSentence{{Text: "uncited"}}}, schemas.Meta{EventID: "e"}); err == nil || !strings.Contains(err.Error(), "citation") {
		t.Fatalf("uncited sentence must not encode: %v", err)
	}
}

// FuzzDecode: any headers and value either decode into a message that
// validates and re-encodes, or fail with an error wrapping ErrDecode.
func FuzzDecode(f *testing.F) {
	for _, m := range samples() {
		_, val, _, _ := schemas.Encode(m, schemas.Meta{EventID: "e"})
		f.Add(m.MessageType(), "1", string(val))
	}
	f.Add("document", "2", `{}`)
	f.Add("chunk", "1", `{"chunk_id":"c","doc_id":"d","seq":0,"total":1,"start":0,"end":1,"text":"é"}`)
	f.Fuzz(func(t *testing.T, typ, version, value string) {
		m, meta, err := schemas.Decode(headers(typ, version), []byte(value))
		if err != nil {
			if !errors.Is(err, schemas.ErrDecode) {
				t.Fatalf("error does not wrap ErrDecode: %v", err)
			}
			return
		}
		if m.MessageType() != meta.Type || m.SchemaVersion() != meta.Version {
			t.Fatalf("decoded %s v%d from headers %s v%d", m.MessageType(), m.SchemaVersion(), meta.Type, meta.Version)
		}
		if _, _, _, err := schemas.Encode(m, meta); err != nil {
			t.Fatalf("decoded message does not re-encode: %v", err)
		}
	})
}
