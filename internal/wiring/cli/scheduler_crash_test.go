package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/internal/wiring/cli"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// TestSchedulerKilledMidBurstLosesNoPage runs the scheduler as a process
// of its own beside one for every other stage, around a broker and a
// redis-server. Twenty pages are published; then a burst of new
// documents names ten of their subjects, and the scheduler is killed
// with SIGKILL once the first of those pages has followed while the
// others have not. After a restart every one of the ten pages gets a
// version that names its document, and the other ten keep theirs.
func TestSchedulerKilledMidBurstLosesNoPage(t *testing.T) {
	if testing.Short() {
		t.Skip("multi-process crash test")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg, common := processes(t, ctx)
	var others []string
	for _, s := range app.AllStages() {
		if s != "scheduler" {
			others = append(others, s)
		}
	}
	startChild(t, append(append([]string{"consume"}, others...), common...)...)
	sched := []string{"consume", "scheduler", "--schedule-window", "200ms", "--schedule-lease", "2s"}
	scheduler := startChild(t, append(sched, common...)...)

	vol, names := cli.LivingVolume(20)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "001.txt"), []byte(vol), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errs, code := run(t, append([]string{"ingest", dir, "--json"}, common...)...); code != 0 {
		t.Fatalf("ingest: exit %d\n%s\n%s", code, out, errs)
	}
	a, err := app.Open(ctx, cfg, zerolog.Nop(), app.Needs{Broker: true, Redis: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	tenant := schemas.DefaultTenant
	var reqs []schemas.Request
	for _, n := range names {
		reqs = append(reqs, schemas.Request{Kind: schemas.KindBiography, Subject: n})
	}
	res, err := a.Generate(ctx, tenant, false, true, reqs)
	if err != nil {
		t.Fatal(err)
	}
	base := map[string]int{}
	for _, r := range res {
		if r.Page == nil {
			t.Fatalf("page of %s: %+v", r.Request.Subject, r.Status)
		}
		base[r.Request.Subject] = r.Page.Version
	}

	// The burst: one document for each of ten subjects, 50 ms apart.
	docs := map[string]string{}
	for _, n := range names[:10] {
		text, err := cli.UpdateText(ctx, a, tenant, n, 0)
		if err != nil {
			t.Fatal(err)
		}
		it, err := producers.NewItem(schemas.Document{Source: "notes/" + n + ".txt", Collection: "notes", Text: text})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.SendVersions(ctx, tenant, []producers.Item{it}); err != nil {
			t.Fatal(err)
		}
		docs[n] = it.Doc.DocID
		time.Sleep(50 * time.Millisecond)
	}
	followed := func(n string) bool {
		p, err := a.Pages.Current(ctx, tenant, n)
		if err != nil {
			t.Fatal(err)
		}
		return p.Version > base[n] && slices.Contains(p.TriggerDocIDs, docs[n])
	}
	count := func() int {
		k := 0
		for _, n := range names[:10] {
			if followed(n) {
				k++
			}
		}
		return k
	}
	// Kill as soon as one page followed while others have not.
	for {
		k := count()
		if k > 0 {
			if k == 10 {
				t.Fatal("every page followed before the kill; nothing was in flight")
			}
			if err := scheduler.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = scheduler.cmd.Wait()
			t.Logf("scheduler killed with %d of 10 pages followed", k)
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("no page followed before the deadline; scheduler stderr:\n%s", scheduler.stderr)
		}
		time.Sleep(2 * time.Millisecond)
	}
	stale, err := a.Pages.StaleCount(ctx, tenant)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d pages stale while the scheduler is down", stale)
	startChild(t, append(sched, common...)...)

	for count() < 10 {
		if ctx.Err() != nil {
			var lost []string
			for _, n := range names[:10] {
				if !followed(n) {
					lost = append(lost, n)
				}
			}
			t.Fatalf("pages lost after the restart: %v", lost)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, n := range names[10:] {
		vs, err := a.Pages.Versions(ctx, tenant, n)
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) != 1 {
			t.Errorf("%s has %d versions without a changed dependency", n, len(vs))
		}
	}
	for _, n := range names[:10] {
		stale, err := a.Pages.Stale(ctx, tenant, schemas.KindBiography, n)
		if err != nil {
			t.Fatal(err)
		}
		p, err := a.Pages.Current(ctx, tenant, n)
		if err != nil {
			t.Fatal(err)
		}
		st, err := a.Pages.Request(ctx, tenant, p.RequestID)
		if err != nil {
			t.Fatal(err)
		}
		if stale || st.State != pages.RequestPublished || p.Reason != schemas.ReasonNewEvidence {
			t.Errorf("%s: stale %v, request %+v, reason %q", n, stale, st, p.Reason)
		}
	}
}
