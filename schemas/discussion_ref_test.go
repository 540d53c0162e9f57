package schemas_test

import (
	"testing"

	"github.com/annalist-dev/annalist/schemas"
)

func TestDiscussionRefsRoundTrip(t *testing.T) {
	for _, c := range []struct {
		id   string
		turn bool
		n    int
	}{{"42", false, 1}, {"42", true, 0}, {"a:b", true, 17}, {"x", false, 0}} {
		ref := schemas.ParagraphRef(c.id, c.n)
		if c.turn {
			ref = schemas.TurnRef(c.id, c.n)
		}
		id, turn, n, ok := schemas.ParseDiscussionRef(ref)
		if !ok || id != c.id || turn != c.turn || n != c.n {
			t.Errorf("%s: got (%q, %v, %d, %v), want (%q, %v, %d, true)", ref, id, turn, n, ok, c.id, c.turn, c.n)
		}
	}
	for _, bad := range []string{"", "disc:", "disc:42", "disc::p1", "disc:42:x1", "disc:42:p", "disc:42:p-1", "disc:42:p1a", "d1-0000"} {
		if _, _, _, ok := schemas.ParseDiscussionRef(bad); ok {
			t.Errorf("%q parsed as a discussion reference", bad)
		}
	}
}

func TestFeedItemValidate(t *testing.T) {
	ok := schemas.FeedItem{ID: "1", Version: 1, Published: "2026-11-24T10:00:00Z", Summary: schemas.DiscussionSummary{ID: "1"}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid item refused: %v", err)
	}
	wrongID := ok
	wrongID.Summary.ID = "2"
	uncited := ok
	uncited.Summary.Background.Sentences = []schemas.BackgroundSentence{{Text: "x"}}
	noVersion := ok
	noVersion.Version = 0
	for name, f := range map[string]schemas.FeedItem{"wrong id": wrongID, "uncited": uncited, "no version": noVersion} {
		if err := f.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
