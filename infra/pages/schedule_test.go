package pages_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/schemas"
)

var (
	bio    = func(s string) pages.PageRef { return pages.PageRef{Kind: schemas.KindBiography, Subject: s} }
	t0     = time.UnixMilli(1_700_000_000_000)
	window = 300 * time.Millisecond
	maxD   = 3 * time.Second
	lease  = 10 * time.Second
)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

func subjects(cs []pages.Claimed) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Page.Subject)
	}
	return out
}

// The dependency index: a page is found through the entity it is about and
// through every chunk it cites, in every kind, each page once; an entity
// or chunk no page rests on finds nothing.
func TestDependentsByEntityAndChunkOverKinds(t *testing.T) {
	ctx := context.Background()
	s := pages.New(redistest.Client(t))
	b := page("r-bio", "c1", "c2")
	if _, _, err := s.Publish(ctx, "t", b, "e-ye"); err != nil {
		t.Fatal(err)
	}
	ans := page("r-ans", "c2")
	ans.Kind = schemas.KindAnswer
	if _, _, err := s.Publish(ctx, "t", ans, "e-ye"); err != nil {
		t.Fatal(err)
	}
	other := page("r-other", "c3")
	other.Subject = "申时行"
	if _, _, err := s.Publish(ctx, "t", other, "e-shen"); err != nil {
		t.Fatal(err)
	}
	both := []pages.PageRef{{Kind: schemas.KindAnswer, Subject: "叶向高"}, bio("叶向高")}
	var qs []pages.DependentsQuery
	var want [][]pages.PageRef
	for _, tc := range []struct {
		name             string
		entities, chunks []string
		want             []pages.PageRef
	}{
		{"entity", []string{"e-ye"}, nil, both},
		{"chunk of one kind", nil, []string{"c1"}, []pages.PageRef{bio("叶向高")}},
		{"chunk of both kinds", nil, []string{"c2", "c9"}, both},
		{"entity and chunk", []string{"e-shen"}, []string{"c1"}, []pages.PageRef{bio("叶向高"), bio("申时行")}},
		{"nothing depends", []string{"e-none"}, []string{"c9"}, nil},
		{"empty", nil, nil, nil},
	} {
		got, err := s.Dependents(ctx, "t", tc.entities, tc.chunks)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: dependents = %v, %v; want %v", tc.name, got, err, tc.want)
		}
		qs = append(qs, pages.DependentsQuery{Entities: tc.entities, Chunks: tc.chunks})
		want = append(want, tc.want)
	}
	// The same questions asked together get the same answers, each in its
	// place.
	all, err := s.DependentsMany(ctx, "t", qs)
	if err != nil || len(all) != len(want) {
		t.Fatalf("dependents of %d queries: %d answers, %v", len(qs), len(all), err)
	}
	for i := range want {
		if !slices.Equal(all[i], want[i]) {
			t.Errorf("query %d asked together: %v, want %v", i, all[i], want[i])
		}
	}
	if got, err := s.Dependents(ctx, "other", []string{"e-ye"}, []string{"c1"}); err != nil || len(got) != 0 {
		t.Errorf("another tenant's dependents = %v, %v; want none", got, err)
	}
}

// The stale mark: set by a recorded trigger, it names the regeneration
// once claimed, and only that request's end clears it, published or
// failed (also at its deadline); a change recorded meanwhile keeps the
// page stale.
func TestStaleMarkFollowsTheRegeneration(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	s, sched := pages.New(c), pages.NewSchedule(c)
	stale := func(subject string) bool {
		t.Helper()
		ok, err := s.Stale(ctx, "t", schemas.KindBiography, subject)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	record := func(key string, now time.Time, ps ...pages.PageRef) {
		t.Helper()
		if _, err := sched.Record(ctx, "t", pages.Trigger{Reason: schemas.ReasonNewEvidence, DocIDs: []string{"d"}, Key: key},
			ps, now, window, maxD); err != nil {
			t.Fatal(err)
		}
	}
	claim := func(now time.Time) []pages.Claimed { return claimTen(t, sched, now) }
	if stale("叶向高") {
		t.Fatal("a page nothing happened to is stale")
	}
	record("u1", at(0), bio("叶向高"), bio("申时行"))
	if !stale("叶向高") || !stale("申时行") {
		t.Fatal("a recorded trigger did not mark its pages stale")
	}
	if n, err := s.StaleCount(ctx, "t"); err != nil || n != 2 {
		t.Fatalf("stale count = %d, %v; want 2", n, err)
	}
	cs := claim(at(400))
	if len(cs) != 2 {
		t.Fatalf("claimed %v; want both pages", subjects(cs))
	}
	ye, shen := cs[0], cs[1]
	if ye.Page.Subject != "叶向高" {
		ye, shen = shen, ye
	}
	// A page of another request (a user's) leaves the mark.
	if _, _, err := s.Publish(ctx, "t", page("r-user", "c1")); err != nil {
		t.Fatal(err)
	}
	if !stale("叶向高") {
		t.Fatal("a page made by another request cleared the mark of the regeneration")
	}
	p := page(ye.RequestID, "c1")
	stored, _, err := s.Publish(ctx, "t", p)
	if err != nil {
		t.Fatal(err)
	}
	if stale("叶向高") {
		t.Fatal("publishing the regeneration's page left the page stale")
	}
	if err := s.Finish(ctx, "t", ye.Request(), &stored, ""); err != nil {
		t.Fatal(err)
	}
	// A change while the regeneration runs: its end does not clear the
	// newer mark.
	record("u2", at(500), bio("申时行"))
	if err := s.Finish(ctx, "t", shen.Request(), nil, "model down"); err != nil {
		t.Fatal(err)
	}
	if !stale("申时行") {
		t.Fatal("the end of an older regeneration cleared the mark of a newer change")
	}
	if _, err := sched.Ack(ctx, "t", shen); err != nil {
		t.Fatal(err)
	}
	cs = claim(at(900))
	if len(cs) != 1 || cs[0].Page.Subject != "申时行" || cs[0].RequestID == shen.RequestID {
		t.Fatalf("claim after the newer change = %+v; want 申时行 under a new request id", cs)
	}
	// A regeneration that fails at its deadline frees the page.
	if err := s.SetRequest(ctx, "t", pages.RequestStatus{RequestID: cs[0].RequestID, Kind: schemas.KindBiography,
		Subject: "申时行", State: pages.RequestQueued, Deadline: at(-1).UTC().Format(time.RFC3339Nano)}); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Request(ctx, "t", cs[0].RequestID); err != nil || st.State != pages.RequestFailed {
		t.Fatalf("request past its deadline = %+v, %v; want failed", st, err)
	}
	if stale("申时行") {
		t.Fatal("a regeneration failed at its deadline left the page stale")
	}
	if n, err := s.StaleCount(ctx, "t"); err != nil || n != 0 {
		t.Fatalf("stale count at the end = %d, %v; want 0", n, err)
	}
}

// Debounce: a page falls due one window after its last change, never
// later than the max delay after its first; the trigger keeps the
// highest reason and the union of documents; the same update recorded
// again changes nothing.
func TestRecordDebouncesAndMerges(t *testing.T) {
	ctx := context.Background()
	sched := pages.NewSchedule(redistest.Client(t))
	rec := func(key, reason string, now time.Time, docs ...string) int {
		t.Helper()
		n, err := sched.Record(ctx, "t", pages.Trigger{Reason: reason, DocIDs: docs, Key: key},
			[]pages.PageRef{bio("叶向高")}, now, window, maxD)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	claimAt := func(now time.Time) []pages.Claimed { return claimTen(t, sched, now) }
	if n := rec("a", schemas.ReasonNewEvidence, at(0), "d1"); n != 1 {
		t.Fatalf("recorded on %d pages; want 1", n)
	}
	rec("b", schemas.ReasonRetracted, at(200), "d2")
	rec("c", schemas.ReasonNewEvidence, at(400), "d3", "d1")
	if n := rec("a", schemas.ReasonNewEvidence, at(450), "d1"); n != 0 {
		t.Fatalf("the same update again recorded on %d pages; want 0", n)
	}
	if cs := claimAt(at(699)); len(cs) != 0 {
		t.Fatalf("claimed %v before the window after the last change ended", subjects(cs))
	}
	st, err := sched.Stats(ctx, "t")
	if err != nil || st.Pending != 1 || !st.Oldest.Equal(at(0)) || st.Stale != 1 {
		t.Fatalf("stats = %+v, %v; want 1 pending since t0, 1 stale", st, err)
	}
	cs := claimAt(at(700))
	if len(cs) != 1 {
		t.Fatalf("claimed %v at the end of the window; want the page", subjects(cs))
	}
	c := cs[0]
	if c.Reason != schemas.ReasonRetracted || !slices.Equal(c.DocIDs, []string{"d1", "d2", "d3"}) || !c.First.Equal(at(0)) {
		t.Fatalf("claim = %+v; want reason retracted, docs d1 d2 d3, first t0", c)
	}
	r := c.Request()
	if r.Reason != schemas.RequestRegeneration || r.Trigger == nil || r.Trigger.Reason != schemas.ReasonRetracted ||
		r.Priority != schemas.ReasonRank(schemas.ReasonRetracted) || r.RequestID != c.RequestID || r.Subject != "叶向高" {
		t.Fatalf("request = %+v", r)
	}
	if ok, err := sched.Ack(ctx, "t", c); err != nil || !ok {
		t.Fatalf("ack = %v, %v", ok, err)
	}
	if st, err := sched.Stats(ctx, "t"); err != nil || st.Pending != 0 || !st.Oldest.IsZero() {
		t.Fatalf("stats after the ack = %+v, %v; want nothing pending", st, err)
	}

	// A steady stream: a change every 200ms from 10s on, each pushing the
	// window back; the page falls due at the max delay after the first
	// change (3s: the claim after the 16th change), not never.
	base := 10_000
	var got []pages.Claimed
	i := 0
	for ; i < 30; i++ {
		rec(fmt.Sprint("s", i), schemas.ReasonNewEvidence, at(base+200*i))
		if got = claimAt(at(base + 200*i + 100)); len(got) > 0 {
			break
		}
	}
	if len(got) != 1 || !got[0].First.Equal(at(base)) || i != 15 {
		t.Fatalf("steady stream: claimed %+v after change %d; want the page after change 15", got, i)
	}
}

// Priority: retracted before superseded before new evidence, the earliest
// due first within a reason, as many as asked for.
func TestClaimOrdersByReasonThenDue(t *testing.T) {
	ctx := context.Background()
	sched := pages.NewSchedule(redistest.Client(t))
	for i, tc := range []struct{ subject, reason string }{
		{"new-1", schemas.ReasonNewEvidence}, {"sup-1", schemas.ReasonSuperseded}, {"ret-1", schemas.ReasonRetracted},
		{"new-2", schemas.ReasonNewEvidence}, {"ret-2", schemas.ReasonRetracted}, {"sup-2", schemas.ReasonSuperseded},
	} {
		if _, err := sched.Record(ctx, "t", pages.Trigger{Reason: tc.reason, Key: tc.subject},
			[]pages.PageRef{bio(tc.subject)}, at(10*i), window, maxD); err != nil {
			t.Fatal(err)
		}
	}
	var order []string
	for _, n := range []int{3, 2, 5} {
		cs, err := sched.Claim(ctx, "t", at(1000), lease, n)
		if err != nil {
			t.Fatal(err)
		}
		order = append(order, subjects(cs)...)
	}
	want := []string{"ret-1", "ret-2", "sup-1", "sup-2", "new-1", "new-2"}
	if !slices.Equal(order, want) {
		t.Fatalf("claim order = %v; want %v", order, want)
	}
}

// Leases: a claim not acknowledged is claimed again once its lease ends,
// with the same request id (the emitter died after publishing: the
// request published again is the same one); until then no one else gets
// it. A trigger recorded while the page is in flight waits for the ack,
// then becomes a new generation.
func TestLeaseExpiryReclaimsUnderTheSameRequest(t *testing.T) {
	ctx := context.Background()
	sched := pages.NewSchedule(redistest.Client(t))
	rec := func(key string, now time.Time) {
		t.Helper()
		if _, err := sched.Record(ctx, "t", pages.Trigger{Reason: schemas.ReasonNewEvidence, DocIDs: []string{key}, Key: key},
			[]pages.PageRef{bio("叶向高")}, now, window, maxD); err != nil {
			t.Fatal(err)
		}
	}
	claim := func(now time.Time) []pages.Claimed { return claimTen(t, sched, now) }
	rec("d1", at(0))
	first := claim(at(300))
	if len(first) != 1 || first[0].Generation != 1 {
		t.Fatalf("first claim = %+v", first)
	}
	// The claimer dies here. Within the lease nothing is claimed, also
	// not the change recorded meanwhile.
	rec("d2", at(400))
	if cs := claim(at(5000)); len(cs) != 0 {
		t.Fatalf("claimed %+v while the lease ran", cs)
	}
	again := claim(at(300).Add(lease))
	if len(again) != 1 || again[0].RequestID != first[0].RequestID || !slices.Equal(again[0].DocIDs, []string{"d1"}) {
		t.Fatalf("after the lease = %+v; want the same claim %+v", again, first[0])
	}
	// The old holder's late ack still ends the claim it held (the same
	// request), and the newer change becomes claimable.
	if ok, err := sched.Ack(ctx, "t", first[0]); err != nil || !ok {
		t.Fatalf("ack = %v, %v", ok, err)
	}
	if ok, err := sched.Ack(ctx, "t", again[0]); err != nil || ok {
		t.Fatalf("second ack of the same claim = %v, %v; want false", ok, err)
	}
	next := claim(at(300).Add(lease + time.Millisecond))
	if len(next) != 1 || next[0].Generation != 2 || next[0].RequestID == first[0].RequestID ||
		!slices.Equal(next[0].DocIDs, []string{"d2"}) {
		t.Fatalf("claim of the newer change = %+v; want generation 2 with d2 alone", next)
	}
	// Released after a failed publish: claimable at once, same request.
	if err := sched.Release(ctx, "t", next[0], at(300).Add(lease+2*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if cs := claim(at(300).Add(lease + 3*time.Millisecond)); len(cs) != 1 || cs[0].RequestID != next[0].RequestID {
		t.Fatalf("claim after release = %+v; want %s", cs, next[0].RequestID)
	}
}

// Concurrent claimers (several emitter replicas) never get the same page:
// 200 pages, 8 claimers, each page claimed exactly once.
func TestConcurrentClaimersNeverShareAPage(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	sched := pages.NewSchedule(c)
	const n = 200
	var ps []pages.PageRef
	for i := range n {
		ps = append(ps, bio(fmt.Sprintf("p%03d", i)))
	}
	if _, err := sched.Record(ctx, "t", pages.Trigger{Reason: schemas.ReasonNewEvidence, Key: "k"}, ps, at(0), window, maxD); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				cs, err := sched.Claim(ctx, "t", at(1000), lease, 7)
				if err != nil {
					t.Error(err)
					return
				}
				if len(cs) == 0 {
					return
				}
				mu.Lock()
				for _, c := range cs {
					seen[c.Page.Subject]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != n {
		t.Fatalf("%d pages claimed; want %d", len(seen), n)
	}
	for s, k := range seen {
		if k != 1 {
			t.Errorf("page %s claimed %d times", s, k)
		}
	}
}

// The tenant list: a tenant with pending work or stale pages stays listed;
// one with neither is forgotten.
func TestForgetKeepsBusyTenants(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	s, sched := pages.New(c), pages.NewSchedule(c)
	if _, err := sched.Record(ctx, "t", pages.Trigger{Reason: schemas.ReasonNewEvidence, Key: "k"},
		[]pages.PageRef{bio("叶向高")}, at(0), window, maxD); err != nil {
		t.Fatal(err)
	}
	listed := func() []string {
		t.Helper()
		ts, err := sched.Tenants(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	forget := func() {
		t.Helper()
		if err := sched.Forget(ctx, "t"); err != nil {
			t.Fatal(err)
		}
	}
	forget()
	if !slices.Equal(listed(), []string{"t"}) {
		t.Fatalf("tenants with a pending page = %v; want t", listed())
	}
	cs, err := sched.Claim(ctx, "t", at(1000), lease, 1)
	if err != nil || len(cs) != 1 {
		t.Fatalf("claim = %v, %v", cs, err)
	}
	if _, err := sched.Ack(ctx, "t", cs[0]); err != nil {
		t.Fatal(err)
	}
	forget()
	if !slices.Equal(listed(), []string{"t"}) {
		t.Fatalf("tenants with a stale page = %v; want t", listed())
	}
	if _, _, err := s.Publish(ctx, "t", page(cs[0].RequestID, "c1")); err != nil {
		t.Fatal(err)
	}
	forget()
	if got := listed(); len(got) != 0 {
		t.Fatalf("tenants with nothing pending = %v; want none", got)
	}
}

// claimTen claims up to ten due pages of tenant t at now.
func claimTen(t *testing.T, sched *pages.Schedule, now time.Time) []pages.Claimed {
	t.Helper()
	cs, err := sched.Claim(context.Background(), "t", now, lease, 10)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
