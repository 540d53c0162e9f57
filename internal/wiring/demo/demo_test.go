package demo_test

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/internal/wiring/demo"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
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

func TestDiscussionsFixture(t *testing.T) {
	ds, err := demo.Discussions()
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 3 {
		t.Fatalf("demo ships %d discussions, want 3", len(ds))
	}
	again, _ := demo.Discussions()
	pronoun := regexp.MustCompile(`(?i)\b(he|she|him|her|his|it|its|they|them)\b`)
	role := regexp.MustCompile(`(?i)\bthe (coach|club|chairman|mayor|council|company|association|committee|chief executive)\b`)
	ids := map[string]bool{}
	for i, d := range ds {
		if d.ID == "" || ids[d.ID] || d.ID != again[i].ID {
			t.Fatalf("discussion %d: id %q empty, repeated or unstable", i, d.ID)
		}
		ids[d.ID] = true
		if n := len(d.Background); n < 3 || n > 6 {
			t.Errorf("%s has %d paragraphs, want 3 to 6", d.ID, n)
		}
		if n := len(d.Turns); n < 4 || n > 8 {
			t.Errorf("%s has %d turns, want 4 to 8", d.ID, n)
		}
		if len(d.Participants()) < 2 {
			t.Errorf("%s has fewer than two participants", d.ID)
		}
		var pronouns, roles int
		for _, tu := range d.Turns {
			pronouns += len(pronoun.FindAllString(tu.Utterance, -1))
			roles += len(role.FindAllString(tu.Utterance, -1))
		}
		if pronouns == 0 || roles == 0 {
			t.Errorf("%s: turns hold %d pronouns and %d role phrases; want references to resolve", d.ID, pronouns, roles)
		}
	}
}

// TestSendDiscussionsThroughTheBroker publishes the demo's discussions
// through an app on its embedded broker (kfake over loopback TCP), as
// `annalist demo` does, and reads them back as the discussions stage
// would: every shipped discussion, for the tenant, under its event id.
func TestSendDiscussionsThroughTheBroker(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a, err := app.Open(ctx, app.Config{DataDir: t.TempDir()}, zerolog.Nop(), app.Needs{Broker: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	const tenant = "demo-test"
	var out bytes.Buffer
	n, err := demo.SendDiscussions(ctx, a, tenant, &out)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := demo.Discussions()
	if n != len(want) || !strings.Contains(out.String(), fmt.Sprintf("sent %d discussions", n)) {
		t.Fatalf("SendDiscussions: %d sent, printed %q; want %d and the count", n, out.String(), len(want))
	}

	var mu sync.Mutex
	got := map[string]pipeline.Input{}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	stage := topology.Stage{Name: "demo-test", Reads: []string{topology.Discussions}}
	done := make(chan error, 1)
	go func() {
		done <- kafka.Run(runCtx, a.Config.Kafka, stage, pipeline.Batch(func(_ context.Context, in pipeline.Input) ([]pipeline.Output, error) {
			d, ok := in.Msg.(schemas.Discussion)
			if !ok {
				return nil, fmt.Errorf("%w: %T on the discussions topic", pipeline.ErrPermanent, in.Msg)
			}
			mu.Lock()
			got[d.ID] = in
			if len(got) == len(want) {
				stop()
			}
			mu.Unlock()
			return nil, nil
		}), kafka.Options{})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatalf("read %d of %d discussions back before the deadline", len(got), len(want))
	}
	mu.Lock()
	defer mu.Unlock()
	for _, d := range want {
		in, ok := got[d.ID]
		if !ok {
			t.Errorf("discussion %s was not on the topic", d.ID)
			continue
		}
		if !reflect.DeepEqual(in.Msg, d) {
			t.Errorf("discussion %s came back as %+v", d.ID, in.Msg)
		}
		if ev := producers.DiscussionEventID(d); in.Meta.Tenant != tenant || in.Meta.EventID != ev {
			t.Errorf("discussion %s: tenant %q event %q; want %s and %s", d.ID, in.Meta.Tenant, in.Meta.EventID, tenant, ev)
		}
	}
}
