package producers_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset"
	"github.com/annalist-dev/annalist/producers"
)

const one = `{"id": 7, "SBK": [{"paragraph_index": 1, "paragraph_text": "Halep won."}],
 "KGD": [{"participant": "Person1", "utterance": "She deserved it."}], "CAO": "ignored"}`

const noID = `{"SBK": [{"paragraph_index": 1, "paragraph_text": "Swiatek won."}],
 "KGD": [{"participant": "Person1", "utterance": "Good for her."}]}`

func TestReadDiscussionsShapes(t *testing.T) {
	for name, tc := range map[string]struct {
		in  string
		ids int
	}{
		"one object": {one, 1},
		"array":      {"[" + one + "," + noID + "]", 2},
		"json lines": {strings.ReplaceAll(one, "\n", "") + "\n" + strings.ReplaceAll(noID, "\n", "") + "\n", 2},
	} {
		ds, err := producers.ReadDiscussions(strings.NewReader(tc.in))
		if err != nil || len(ds) != tc.ids {
			t.Errorf("%s: %d discussions, %v; want %d", name, len(ds), err, tc.ids)
			continue
		}
		if ds[0].ID != "7" {
			t.Errorf("%s: id %q, want the record's 7", name, ds[0].ID)
		}
		if tc.ids == 2 && !strings.HasPrefix(ds[1].ID, "d-") {
			t.Errorf("%s: id %q, want a content id", name, ds[1].ID)
		}
	}
	a, _ := producers.ReadDiscussions(strings.NewReader(noID))
	b, _ := producers.ReadDiscussions(strings.NewReader("[" + noID + "]"))
	if a[0].ID != b[0].ID || producers.DiscussionEventID(a[0]) != producers.DiscussionEventID(b[0]) {
		t.Errorf("the same discussion got ids %s and %s", a[0].ID, b[0].ID)
	}
}

func TestReadDiscussionsRefusesBadInput(t *testing.T) {
	noTurn := `{"SBK": [{"paragraph_index": 1, "paragraph_text": "x"}], "KGD": []}`
	changed := strings.Replace(one, "Halep won.", "Halep lost.", 1)
	for name, tc := range map[string]struct{ in, want string }{
		"empty":        {"  ", "empty input"},
		"not json":     {"{SBK", "record 1 is not JSON"},
		"bad array":    {"[1, 2", "not a JSON array"},
		"not object":   {"[" + one + ", 3]", "record 2 is not a JSON object"},
		"invalid":      {one + "\n" + noTurn, "record 2: " + "invalid"},
		"bad id":       {`{"id": "a b", "SBK": [{"paragraph_index": 1, "paragraph_text": "x"}], "KGD": [{"participant": "P", "utterance": "u"}]}`, "record 1"},
		"id twice":     {one + "\n" + changed, "given twice"},
		"empty array":  {"[]", "no discussion"},
		"bad id value": {`{"id": {"x": 1}, "SBK": [], "KGD": []}`, "record 1"},
	} {
		_, err := producers.ReadDiscussions(strings.NewReader(tc.in))
		if !errors.Is(err, producers.ErrDiscussionInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrDiscussionInput saying %q", name, err, tc.want)
		}
	}
}

// The KGDS development set reads as it is: 60 discussions, unique ids.
func TestReadDiscussionsKGDS(t *testing.T) {
	path := dataset.Path("kgds/dev.json")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("no KGDS data: %v", err)
	}
	defer f.Close()
	ds, err := producers.ReadDiscussions(f)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, d := range ds {
		ids[d.ID] = true
	}
	if len(ds) != 60 || len(ids) != 60 {
		t.Errorf("%d discussions, %d ids; want 60 and 60", len(ds), len(ids))
	}
}

type sink struct {
	items []producers.DiscussionItem
	err   error
}

func (s *sink) SendDiscussions(_ context.Context, _ string, items []producers.DiscussionItem) error {
	if s.err != nil {
		return s.err
	}
	s.items = append(s.items, items...)
	return nil
}

func TestPublishDiscussions(t *testing.T) {
	ds, err := producers.ReadDiscussions(strings.NewReader("[" + one + "," + noID + "]"))
	if err != nil {
		t.Fatal(err)
	}
	s := &sink{}
	ids, err := producers.PublishDiscussions(context.Background(), s, "t", ds)
	if err != nil || len(ids) != 2 || ids[0] != "7" || len(s.items) != 2 || s.items[1].Discussion.ID != ids[1] ||
		!strings.HasPrefix(s.items[0].EventID, "disc-") {
		t.Fatalf("ids %v, items %+v, %v", ids, s.items, err)
	}
	s.err = errors.New("broker down")
	if _, err := producers.PublishDiscussions(context.Background(), s, "t", ds); err == nil || errors.Is(err, producers.ErrDiscussionInput) {
		t.Errorf("sink down: %v, want the sink's error, not bad input", err)
	}
}
