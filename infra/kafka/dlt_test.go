package kafka_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// A poison input is dead-lettered; the list shows it with its error; after
// the handler is fixed a replay publishes it to its topic again and the
// stage handles it once; a second replay, and a replay whose marker was
// lost (a crash between publish and mark), handle it no more.
func TestDeadLettersListAndReplay(t *testing.T) {
	e := newEnv(t)
	fx := e.newEffects()
	var reject atomic.Bool
	reject.Store(true)
	h := func(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
		for _, in := range ins {
			if d := in.Msg.(schemas.Document); reject.Load() && d.Text == "poison" {
				return nil, pipeline.Permanentf("document %s: poison refused", d.DocID)
			}
		}
		return fx.handle(ctx, ins)
	}
	e.run(h, kafka.Options{Deduper: e.seen})
	e.publish(doc("p1", "poison"), doc("g1", "ok"))
	e.waitIdle()
	marks := kafka.NewRedisReplayMarks(e.redis)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	q := kafka.DLTQuery{Topics: []string{e.in}}

	dls, err := kafka.ListDeadLetters(ctx, e.cfg, marks, q)
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	if len(dls) != 1 {
		t.Fatalf("%d dead letters, want 1: %+v", len(dls), dls)
	}
	dl := dls[0]
	if dl.Topic != e.in || dl.EventID != "ev-p1" || dl.Type != schemas.TypeDocument || dl.Group != e.stage.Group() ||
		!strings.Contains(dl.Error, "poison refused") || !dl.Permanent || dl.Attempts != 1 || dl.Replayed || dl.Key != "p1" {
		t.Errorf("dead letter = %+v", dl)
	}
	if dl.Time.IsZero() || dl.Offset < 0 || dl.Partition < 0 {
		t.Errorf("dead letter has no time or origin: %+v", dl)
	}
	if n := e.sideEffects("ev-p1"); n != 0 {
		t.Fatalf("side effects of the poison before the fix = %d", n)
	}

	// Selection: a time after the dead letter, or another position, selects
	// nothing; its own position selects it.
	for _, sel := range []kafka.DLTQuery{
		{Topics: q.Topics, Since: dl.Time.Add(time.Minute)},
		{Topics: q.Topics, Positions: []kafka.DLTPosition{{Partition: dl.DLTPartition, Offset: dl.DLTOffset + 1}}},
	} {
		if got, err := kafka.ListDeadLetters(ctx, e.cfg, marks, sel); err != nil || len(got) != 0 {
			t.Errorf("list %+v = %d dead letters, %v; want none", sel, len(got), err)
		}
	}
	own := kafka.DLTQuery{Topics: q.Topics, Since: dl.Time.Add(-time.Minute), Positions: []kafka.DLTPosition{{Partition: dl.DLTPartition, Offset: dl.DLTOffset}}}
	if got, err := kafka.ListDeadLetters(ctx, e.cfg, marks, own); err != nil || len(got) != 1 {
		t.Errorf("list by its own position = %d dead letters, %v; want 1", len(got), err)
	}

	reject.Store(false)
	res, err := kafka.ReplayDeadLetters(ctx, e.cfg, marks, own)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if len(res.Replayed) != 1 || res.Skipped != 0 {
		t.Fatalf("replay = %d replayed, %d skipped; want 1 and 0", len(res.Replayed), res.Skipped)
	}
	e.waitIdle()
	if n := e.sideEffects("ev-p1"); n != 1 {
		t.Fatalf("side effects of the replayed dead letter = %d, want 1", n)
	}
	var replayed int
	for _, m := range e.readAll(e.in) {
		if header(m, schemas.HeaderEventID) != "ev-p1" {
			continue
		}
		replayed++
		if string(m.Key) != "p1" || header(m, schemas.HeaderTraceID) != "tr-p1" {
			t.Errorf("copy of ev-p1: key %q trace %q", m.Key, header(m, schemas.HeaderTraceID))
		}
		for _, h := range m.Headers {
			if strings.HasPrefix(h.Key, "dlt_") {
				t.Errorf("copy of ev-p1 carries the header %s", h.Key)
			}
		}
	}
	if replayed != 2 {
		t.Errorf("%d records of ev-p1 on %s, want the original and one replay", replayed, e.in)
	}

	again, err := kafka.ReplayDeadLetters(ctx, e.cfg, marks, q)
	if err != nil || len(again.Replayed) != 0 || again.Skipped != 1 {
		t.Fatalf("second replay = %d replayed, %d skipped, %v; want 0, 1, nil", len(again.Replayed), again.Skipped, err)
	}
	if dls, err := kafka.ListDeadLetters(ctx, e.cfg, marks, q); err != nil || len(dls) != 1 || !dls[0].Replayed {
		t.Fatalf("list after the replay = %+v, %v; want one, replayed", dls, err)
	}

	// The marker lost: the record is published again, and the stage's
	// seen: marker makes it a no-op.
	if err := e.redis.Del(ctx, kafka.ReplayedKey(topology.DLT(e.in), kafka.DLTPosition{Partition: dl.DLTPartition, Offset: dl.DLTOffset})).Err(); err != nil {
		t.Fatal(err)
	}
	if res, err := kafka.ReplayDeadLetters(ctx, e.cfg, marks, q); err != nil || len(res.Replayed) != 1 {
		t.Fatalf("replay without the marker = %d replayed, %v; want 1", len(res.Replayed), err)
	}
	e.waitIdle()
	if n := e.sideEffects("ev-p1"); n != 1 {
		t.Errorf("side effects after replaying twice = %d, want 1", n)
	}
	if n := e.sideEffects("ev-g1"); n != 1 {
		t.Errorf("side effects of the good input = %d, want 1", n)
	}

	counts, err := kafka.DeadLetterCounts(ctx, e.cfg, []string{e.in, e.out})
	if err != nil || counts[e.in] != 1 || counts[e.out] != 0 {
		t.Errorf("counts = %v, %v; want in=1 out=0", counts, err)
	}
}

func TestParseSinceAndPosition(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"":                     {},
		"1h":                   now.Add(-time.Hour),
		"2026-01-01T00:00:00Z": time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		if got, err := kafka.ParseSince(in, now); err != nil || !got.Equal(want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"yesterday", "-1h", "2026-01-01"} {
		if _, err := kafka.ParseSince(bad, now); err == nil {
			t.Errorf("ParseSince(%q) accepted", bad)
		}
	}
	if p, err := kafka.ParseDLTPosition("0:17"); err != nil || p != (kafka.DLTPosition{Partition: 0, Offset: 17}) {
		t.Errorf("ParseDLTPosition(0:17) = %v, %v", p, err)
	}
	for _, bad := range []string{"", "17", "a:1", "0:-1", "0:1:2"} {
		if _, err := kafka.ParseDLTPosition(bad); err == nil {
			t.Errorf("ParseDLTPosition(%q) accepted", bad)
		}
	}
	if _, err := kafka.DLTTopics("nope"); err == nil {
		t.Error("DLTTopics(nope) accepted")
	}
	if ts, err := kafka.DLTTopics("all"); err != nil || len(ts) != len(topology.Topics()) {
		t.Errorf("DLTTopics(all) = %v, %v", ts, err)
	}
}
