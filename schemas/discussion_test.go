package schemas_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/annalist-dev/annalist/schemas"
)

// A KGDS record decodes as a discussion as it is: SBK and KGD read, a
// numeric or string id kept as a string, the gold fields ignored.
func TestDiscussionDecodesAKGDSRecord(t *testing.T) {
	rec := `{"id": 7, "SBK": [{"paragraph_index": 1, "paragraph_text": "Ann Lee won."}],
		"KGD": [{"participant": "Person1", "utterance": "She deserved it."}],
		"BSP": [{"paragraph_index": 1}], "CAO": ["Person1 thinks that **Ann Lee** deserved it."]}`
	var d schemas.Discussion
	if err := json.Unmarshal([]byte(rec), &d); err != nil {
		t.Fatal(err)
	}
	if d.ID != "7" || len(d.Background) != 1 || d.Background[0].Index != 1 || len(d.Turns) != 1 ||
		d.Turns[0].Participant != "Person1" {
		t.Fatalf("decoded %+v", d)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`{"id": "a1", "SBK": [], "KGD": []}`), &d); err != nil || d.ID != "a1" {
		t.Fatalf("string id: %+v %v", d, err)
	}
	if err := json.Unmarshal([]byte(`{"id": [1], "SBK": []}`), &d); err == nil {
		t.Error("an id that is a list decoded")
	}
}

func TestDiscussionValidate(t *testing.T) {
	p := []schemas.Paragraph{{Index: 1, Text: "Ann Lee won."}}
	turns := []schemas.Turn{{Participant: "Person1", Utterance: "She deserved it."}}
	for name, d := range map[string]schemas.Discussion{
		"no background":    {Turns: turns},
		"empty paragraph":  {Background: []schemas.Paragraph{{Index: 1, Text: " "}}, Turns: turns},
		"index twice":      {Background: append(p, schemas.Paragraph{Index: 1, Text: "Again."}), Turns: turns},
		"no turn":          {Background: p},
		"turn without who": {Background: p, Turns: []schemas.Turn{{Utterance: "x"}}},
	} {
		if err := d.Validate(); !errors.Is(err, schemas.ErrInvalid) {
			t.Errorf("%s: %v; want ErrInvalid", name, err)
		}
	}
	d := schemas.Discussion{Background: p, Turns: append(turns, schemas.Turn{Participant: "Person2", Utterance: "No."},
		schemas.Turn{Participant: "Person1", Utterance: "Yes."})}
	if got := d.Participants(); len(got) != 2 || got[0] != "Person1" || got[1] != "Person2" {
		t.Errorf("participants %v", got)
	}
}
