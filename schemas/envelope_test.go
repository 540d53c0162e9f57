package schemas_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

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
		schemas.Retraction{DocID: "d1", Source: "a.txt", Reason: schemas.RetractSuperseded, SupersededBy: "d2"},
		schemas.Discussion{ID: "42", Background: []schemas.Paragraph{{Index: 1, Text: "Halep won."}},
			Turns: []schemas.Turn{{Participant: "Person1", Utterance: "She deserved it."}}},
		schemas.FeedItem{ID: "42", Version: 1, Published: "2026-11-24T10:00:00Z", Summary: schemas.DiscussionSummary{ID: "42",
			Opinions: []schemas.ParticipantOpinions{{Participant: "Person1", Sentences: []schemas.OpinionSentence{{
				Text: "Person1 thinks that Halep deserved it.", Entities: []string{"Halep"}, Citations: []schemas.TurnCitation{{Turn: 0}}}}}}}},
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
		// The decoded message is the current struct of its type: of the
		// version on the wire, or upgraded from it.
		if m.MessageType() != meta.Type || m.SchemaVersion() < meta.Version {
			t.Fatalf("decoded %s v%d from headers %s v%d", m.MessageType(), m.SchemaVersion(), meta.Type, meta.Version)
		}
		if _, _, _, err := schemas.Encode(m, meta); err != nil {
			t.Fatalf("decoded message does not re-encode: %v", err)
		}
	})
}

// A field a consumer does not know is an additive change of the same
// version, made by a producer upgraded before it: every type decodes with
// it, ignoring it, rather than dead-lettering.
func TestDecodeIgnoresUnknownFieldsOfAKnownVersion(t *testing.T) {
	for _, m := range samples() {
		t.Run(m.MessageType(), func(t *testing.T) {
			_, val, hs, err := schemas.Encode(m, schemas.Meta{EventID: "e"})
			if err != nil {
				t.Fatal(err)
			}
			var fields map[string]any
			if err := json.Unmarshal(val, &fields); err != nil {
				t.Fatal(err)
			}
			fields["added_later"] = map[string]any{"nested": []any{1, "x", nil}}
			fields["also_new"] = 3.5
			extended, _ := json.Marshal(fields)
			got, _, err := schemas.Decode(hs, extended)
			if err != nil {
				t.Fatalf("%s with unknown fields: %v", extended, err)
			}
			if !reflect.DeepEqual(got, m) {
				t.Fatalf("decoded %#v, want %#v", got, m)
			}
		})
	}
}

// The rolling upgrade of a breaking change, on a message type of the test's
// own. Version 1 of a "note" had one "name" and a "text"; version 2 split
// the name into family and given name and renamed text to body, so it
// bumped the schema version. During the upgrade both versions are on the
// topic, and a consumer of the new build reads both into the current
// struct.

// noteV1 is version 1 as it was on the wire, frozen.
type noteV1 struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Text string `json:"text"`
}

// note is the current struct, version 2.
type note struct {
	ID     string `json:"id"`
	Family string `json:"family"`
	Given  string `json:"given"`
	Body   string `json:"body"`
}

func (note) MessageType() string    { return "note" }
func (note) SchemaVersion() int     { return 2 }
func (n note) PartitionKey() string { return n.ID }
func (n note) Validate() error {
	if n.ID == "" || n.Family == "" {
		return fmt.Errorf("%w: note: id and family are required", schemas.ErrInvalid)
	}
	return nil
}

// upgradeNote splits a version-1 name: its first character is the family
// name (true of the single-character surnames the test uses).
func upgradeNote(old noteV1) (note, error) {
	family, size := utf8.DecodeRuneInString(old.Name)
	if old.Name == "" || family == utf8.RuneError {
		return note{}, fmt.Errorf("%w: note %s: no name to split", schemas.ErrInvalid, old.ID)
	}
	return note{ID: old.ID, Family: string(family), Given: old.Name[size:], Body: old.Text}, nil
}

func noteRegistry() *schemas.Registry {
	r := schemas.NewRegistry()
	schemas.Register[note](r)
	schemas.RegisterUpgrade(r, 1, upgradeNote)
	return r
}

func TestRollingUpgradeReadsBothVersions(t *testing.T) {
	r := noteRegistry()
	if got := r.Versions("note"); !reflect.DeepEqual(got, []int{1, 2}) {
		t.Fatalf("versions of note = %v, want [1 2]", got)
	}
	want := note{ID: "n1", Family: "叶", Given: "向高", Body: "字进卿"}
	_, v2, v2headers, err := schemas.Encode(want, schemas.Meta{EventID: "e2", Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	if got := header(v2headers, schemas.HeaderSchemaVersion); got != "2" {
		t.Fatalf("a note is written as version %s, want 2", got)
	}
	v1headers := func() []schemas.Header {
		return append(headers("note", "1"), schemas.Header{Key: schemas.HeaderTenant, Value: []byte("acme")})
	}
	for _, tc := range []struct {
		name    string
		hs      []schemas.Header
		value   string
		version int
	}{
		{"v1 from a producer not yet upgraded", v1headers(), `{"id":"n1","name":"叶向高","text":"字进卿"}`, 1},
		{"v1 with a field added to v1 later", v1headers(), `{"id":"n1","name":"叶向高","text":"字进卿","source":"明史"}`, 1},
		{"v2 from an upgraded producer", v2headers, string(v2), 2},
		{"v2 with a field added to v2 later", v2headers, `{"id":"n1","family":"叶","given":"向高","body":"字进卿","lang":"lzh"}`, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, meta, err := r.Decode(tc.hs, []byte(tc.value))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("decoded %#v, want the current struct %#v", got, want)
			}
			if meta.Version != tc.version || meta.Type != "note" || meta.Tenant != "acme" {
				t.Fatalf("meta %+v: want the wire version %d", meta, tc.version)
			}
		})
	}
}

func TestRollingUpgradeStillDeadLetters(t *testing.T) {
	r := noteRegistry()
	for _, tc := range []struct {
		name    string
		hs      []schemas.Header
		value   string
		wantErr error
	}{
		// A version newer than this build: a producer upgraded before its
		// consumers. Never guessed at, never dropped.
		{"version from the future", headers("note", "3"), `{"id":"n1","family":"叶","body":"x"}`, schemas.ErrUnknownVersion},
		{"version never defined", headers("note", "0"), `{"id":"n1"}`, schemas.ErrUnknownVersion},
		{"v1 the upgrade cannot convert", headers("note", "1"), `{"id":"n1","name":"","text":"x"}`, schemas.ErrInvalid},
		{"v1 with a field of the wrong type", headers("note", "1"), `{"id":"n1","name":7}`, schemas.ErrDecode},
		{"v2 that fails validation", headers("note", "2"), `{"id":"n1","given":"向高"}`, schemas.ErrInvalid},
		{"a type of the default registry", headers(schemas.TypeDocument, "1"), `{"doc_id":"d","text":"x"}`, schemas.ErrUnknownType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _, err := r.Decode(tc.hs, []byte(tc.value))
			if !errors.Is(err, tc.wantErr) || !errors.Is(err, schemas.ErrDecode) {
				t.Fatalf("decoded %#v, err %v; want an error wrapping %v and ErrDecode", m, err, tc.wantErr)
			}
		})
	}
	// The package's own registry does not know the test's type.
	if _, _, err := schemas.Decode(headers("note", "2"), []byte(`{"id":"n1","family":"叶"}`)); !errors.Is(err, schemas.ErrUnknownType) {
		t.Fatalf("the default registry read a note: %v", err)
	}
}

func TestRegistrationMistakesPanic(t *testing.T) {
	for _, tc := range []struct {
		name     string
		register func(r *schemas.Registry)
	}{
		{"type twice", func(r *schemas.Registry) { schemas.Register[note](r); schemas.Register[note](r) }},
		{"upgrade before the current version", func(r *schemas.Registry) { schemas.RegisterUpgrade(r, 1, upgradeNote) }},
		{"upgrade from the current version", func(r *schemas.Registry) { schemas.Register[note](r); schemas.RegisterUpgrade(r, 2, upgradeNote) }},
		{"upgrade from version 0", func(r *schemas.Registry) { schemas.Register[note](r); schemas.RegisterUpgrade(r, 0, upgradeNote) }},
		{"upgrade twice", func(r *schemas.Registry) {
			schemas.Register[note](r)
			schemas.RegisterUpgrade(r, 1, upgradeNote)
			schemas.RegisterUpgrade(r, 1, upgradeNote)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("registered without a panic")
				}
			}()
			tc.register(schemas.NewRegistry())
		})
	}
}

func header(hs []schemas.Header, key string) string {
	for _, h := range hs {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return ""
}
