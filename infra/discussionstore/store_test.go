package discussionstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/discussionstore"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/schemas"
)

func disc(id, text string) schemas.Discussion {
	return schemas.Discussion{ID: id, Background: []schemas.Paragraph{{Index: 1, Text: text}},
		Turns: []schemas.Turn{{Participant: "Person1", Utterance: "She deserved it."}}}
}

func item(id string, version int, at time.Time) schemas.FeedItem {
	return schemas.FeedItem{ID: id, Version: version, Published: at.UTC().Format(time.RFC3339Nano),
		Summary: schemas.DiscussionSummary{ID: id}}
}

func TestDiscussionsPutReadList(t *testing.T) {
	ctx := context.Background()
	at := time.UnixMilli(1_700_000_000_000)
	s := discussionstore.New(redistest.Client(t), discussionstore.WithClock(func() time.Time { return at }))
	tenant := "t" + time.Now().Format("150405.000000")
	if _, found, err := s.Discussion(ctx, tenant, "1"); err != nil || found {
		t.Fatalf("empty store: found=%v err=%v", found, err)
	}
	same, err := s.Put(ctx, tenant, disc("1", "Halep won."))
	if err != nil || same {
		t.Fatalf("first put: same=%v err=%v", same, err)
	}
	if same, err = s.Put(ctx, tenant, disc("1", "Halep won.")); err != nil || !same {
		t.Fatalf("same again: same=%v err=%v", same, err)
	}
	if same, err = s.Put(ctx, tenant, disc("1", "Halep lost.")); err != nil || same {
		t.Fatalf("changed: same=%v err=%v", same, err)
	}
	d, found, err := s.Discussion(ctx, tenant, "1")
	if err != nil || !found || d.Background[0].Text != "Halep lost." {
		t.Fatalf("read = %+v found=%v err=%v; want the replaced discussion", d, found, err)
	}
	at = at.Add(time.Millisecond)
	if _, err := s.Put(ctx, tenant, disc("2", "Swiatek won.")); err != nil {
		t.Fatal(err)
	}
	ids, err := s.IDs(ctx, tenant, 0)
	if err != nil || len(ids) != 2 || ids[0] != "2" {
		t.Fatalf("ids = %v err=%v; want [2 1]", ids, err)
	}
	if _, err := s.Put(ctx, tenant, schemas.Discussion{}); err == nil {
		t.Fatal("a discussion without id was stored")
	}
}

func TestFeedItemsKeepTheNewestVersionAndAnnounce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := discussionstore.New(redistest.Client(t))
	tenant := "t" + time.Now().Format("150405.000000")
	events, err := s.Subscribe(ctx, tenant)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if stored, err := s.PutItem(ctx, tenant, item("1", 2, now)); err != nil || !stored {
		t.Fatalf("v2: stored=%v err=%v", stored, err)
	}
	if stored, err := s.PutItem(ctx, tenant, item("1", 1, now.Add(time.Second))); err != nil || stored {
		t.Fatalf("older v1 after v2: stored=%v err=%v; want kept out", stored, err)
	}
	if stored, err := s.PutItem(ctx, tenant, item("2", 1, now.Add(2*time.Second))); err != nil || !stored {
		t.Fatalf("item 2: stored=%v err=%v", stored, err)
	}
	items, err := s.Items(ctx, tenant, 0)
	if err != nil || len(items) != 2 || items[0].ID != "2" || items[1].Version != 2 {
		t.Fatalf("items = %+v err=%v; want item 2, then item 1 at v2", items, err)
	}
	if one, err := s.Items(ctx, tenant, 1); err != nil || len(one) != 1 {
		t.Fatalf("limit 1: %d items, err=%v", len(one), err)
	}
	for _, want := range []string{"1", "2"} {
		select {
		case it := <-events:
			if it.ID != want {
				t.Fatalf("event for %s, want %s", it.ID, want)
			}
		case <-ctx.Done():
			t.Fatalf("no event for %s", want)
		}
	}
	if _, err := s.Item(ctx, tenant, "3"); !errors.Is(err, discussionstore.ErrNotFound) {
		t.Fatalf("missing item: err=%v, want ErrNotFound", err)
	}
	bad := item("4", 1, now)
	bad.Summary.ID = "5"
	if _, err := s.PutItem(ctx, tenant, bad); err == nil {
		t.Fatal("an invalid item was stored")
	}
}
