package kg_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/internal/ports/graph"
	"github.com/annalist-dev/annalist/schemas"
)

// linkRow builds one row of Store.Link.
func linkRow(chunk, doc, version, token string, ents []string, seen string, force bool) []string {
	js := ""
	if len(ents) > 0 {
		js = `[{"entity":"` + ents[0] + `"}]`
	}
	f := ""
	if force {
		f = "1"
	}
	return []string{chunk, doc, version, token, js, strings.Join(ents, "\t"), seen, f}
}

func TestLinkScript(t *testing.T) {
	s, c, ye := storeWithYe(t)
	ctx := context.Background()
	surfaces, seqs, err := s.SurfacesAfter(ctx, tenant, 0, 0)
	if err != nil || !slices.Equal(surfaces, []string{"叶向高", "进卿"}) || seqs[1] <= seqs[0] {
		t.Fatalf("surfaces %v %v, %v", surfaces, seqs, err)
	}
	if err := c.HSet(ctx, "chunk:{"+tenant+"}:a-0000", "text", "叶向高入阁").Err(); err != nil {
		t.Fatal(err)
	}

	// A dictionary older than a surface the chunk holds is stale.
	ans, err := s.Link(ctx, tenant, [][]string{linkRow("a-0000", "a", "0", "t1", nil, "", false)})
	if err != nil || ans[0] != "s" {
		t.Fatalf("stale dictionary: %v, %v", ans, err)
	}
	// So is a candidate count that changed.
	ans, _ = s.Link(ctx, tenant, [][]string{linkRow("a-0000", "a", "2", "t1", []string{ye}, "叶向高\t2", false)})
	if ans[0] != "s" {
		t.Fatalf("changed candidates: %v", ans)
	}
	ans, err = s.Link(ctx, tenant, [][]string{linkRow("a-0000", "a", "2", "t1", []string{ye}, "叶向高\t1", false)})
	if err != nil || ans[0] != "w\t"+ye+"\t" {
		t.Fatalf("write: %v, %v", ans, err)
	}
	if got, _ := s.Linked(ctx, tenant, ye); !slices.Equal(got, []string{"a-0000"}) {
		t.Fatalf("linked %v", got)
	}
	if got, err := s.LinkedOf(ctx, tenant, []string{"person:nobody", ye}); err != nil || len(got) != 2 ||
		len(got[0]) != 0 || !slices.Equal(got[1], []string{"a-0000"}) {
		t.Fatalf("linked of two entities: %v, %v", got, err)
	}
	// Matched against the candidates the surface has: nothing to link
	// again (until a second person of the name arrives, below).
	if got, err := s.SurfaceChunks(ctx, tenant, []string{"叶向高"}); err != nil || len(got) != 0 {
		t.Fatalf("surface chunks %v, %v before a homonym", got, err)
	}

	// The same delivery again reports its change again; another reports
	// nothing.
	ans, _ = s.Link(ctx, tenant, [][]string{linkRow("a-0000", "a", "2", "t1", []string{ye}, "叶向高\t1", false)})
	if ans[0] != "w\t"+ye+"\t" {
		t.Fatalf("redelivery: %v", ans)
	}
	ans, _ = s.Link(ctx, tenant, [][]string{linkRow("a-0000", "a", "2", "t2", []string{ye}, "叶向高\t1", false)})
	if ans[0] != "w\t\t" {
		t.Fatalf("other delivery: %v", ans)
	}
	// Linked to nobody now: the entity loses the chunk.
	ans, _ = s.Link(ctx, tenant, [][]string{linkRow("a-0000", "a", "2", "t3", nil, "", false)})
	if ans[0] != "w\t\t"+ye {
		t.Fatalf("unlink: %v", ans)
	}
	if js, _ := s.ChunkLinks(ctx, tenant, "a-0000"); js != "" {
		t.Fatalf("mention list left: %q", js)
	}

	// The backlog holds chunks matched below a sequence, oldest first, and
	// a bump never lowers a version.
	if err := s.BumpLinkVersion(ctx, tenant, []string{"b-0000"}, 1); err != nil {
		t.Fatal(err)
	}
	ids, vers, err := s.LinkBacklog(ctx, tenant, 3, 10)
	if err != nil || !slices.Equal(ids, []string{"b-0000", "a-0000"}) || !slices.Equal(vers, []int64{1, 2}) {
		t.Fatalf("backlog %v %v, %v", ids, vers, err)
	}
	if err := s.BumpLinkVersion(ctx, tenant, []string{"a-0000"}, 1); err != nil {
		t.Fatal(err)
	}
	if ids, _, _ := s.LinkBacklog(ctx, tenant, 2, 10); !slices.Equal(ids, []string{"b-0000"}) {
		t.Fatalf("bump lowered a version: backlog %v", ids)
	}

	// A retracted document's chunk is not written.
	if err := c.HSet(ctx, "doc:{"+tenant+"}:a", "retracted", "2026-01-01T00:00:00Z").Err(); err != nil {
		t.Fatal(err)
	}
	ans, _ = s.Link(ctx, tenant, [][]string{linkRow("a-0000", "a", "2", "t4", []string{ye}, "叶向高\t1", true)})
	if ans[0] != "r" {
		t.Fatalf("retracted: %v", ans)
	}
	if got, _ := s.Linked(ctx, tenant, ye); len(got) != 0 {
		t.Fatalf("linked a retracted chunk: %v", got)
	}
	// A second person of the name: the chunk matched when the surface
	// denoted one person is to be linked again.
	if _, err := s.Apply(ctx, tenant, triplets("d9", "c-ye2", "叶向高", "c-ye2",
		fact{head: "叶向高", rel: schemas.RelCourtesyName, tail: "伯卿", start: 0, end: 6}), nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.SurfaceChunks(ctx, tenant, []string{"叶向高"}); !slices.Equal(got, []string{"a-0000"}) {
		t.Fatalf("surface chunks %v after a homonym", got)
	}
	// Several surfaces in one read: the union, each chunk once.
	if got, _ := s.SurfaceChunks(ctx, tenant, []string{"叶向高", "无名氏", "叶向高"}); !slices.Equal(got, []string{"a-0000"}) {
		t.Fatalf("surface chunks %v of three surfaces", got)
	}
}

// TestSurfaceStats: what a chunk's write adds to a surface's counts over
// the corpus (surfstat) replaces what it added before, so linking a
// chunk again counts nothing twice, and the retraction of its document
// takes its share away.
func TestSurfaceStats(t *testing.T) {
	s, c, ye := storeWithYe(t)
	ctx := context.Background()
	stat := func(want graph.SurfaceStat) {
		t.Helper()
		cands, stats, err := s.SurfaceInfo(ctx, tenant, []string{"叶向高", "无名"})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(cands[0], []string{ye}) || len(cands[1]) != 0 {
			t.Fatalf("candidates %v", cands)
		}
		if stats[0] != want || stats[1] != (graph.SurfaceStat{}) {
			t.Fatalf("stats %+v; want %+v", stats, want)
		}
		all, err := s.SurfaceStats(ctx, tenant)
		if err != nil {
			t.Fatal(err)
		}
		if want.Occurrences() > 0 && (len(all) != 1 || all["叶向高"] != want) {
			t.Fatalf("every surface's counts %+v, want 叶向高 %+v", all, want)
		}
	}
	stat(graph.SurfaceStat{})
	for _, doc := range []string{"a", "b"} {
		if err := c.HSet(ctx, "chunk:{"+tenant+"}:"+doc+"-0000", "text", "叶向高入阁，叶向高").Err(); err != nil {
			t.Fatal(err)
		}
	}
	row := func(chunk, doc, token, bins string) []string {
		return []string{chunk, doc, "2", token, `[{"entity":"` + ye + `","surface":"叶向高"}]`, ye, "叶向高\t1\t" + bins, ""}
	}
	st := func(bins ...int64) graph.SurfaceStat {
		var s graph.SurfaceStat
		copy(s.Bins[:], bins)
		return s
	}
	if _, err := s.Link(ctx, tenant, [][]string{row("a-0000", "a", "t1", "0,0,0,0,0,1,1,0"), row("b-0000", "b", "t1", "0,0,0,0,0,0,2,0")}); err != nil {
		t.Fatal(err)
	}
	stat(st(0, 0, 0, 0, 0, 1, 3, 0))
	// Linked again, read otherwise: the chunk's share is replaced.
	if _, err := s.Link(ctx, tenant, [][]string{row("a-0000", "a", "t2", "1,0,0,0,0,0,1,0")}); err != nil {
		t.Fatal(err)
	}
	stat(st(1, 0, 0, 0, 0, 0, 3, 0))
	if _, err := s.Link(ctx, tenant, [][]string{row("a-0000", "a", "t3", "1,0,0,0,0,0,1,0")}); err != nil {
		t.Fatal(err)
	}
	stat(st(1, 0, 0, 0, 0, 0, 3, 0))
	if err := c.HSet(ctx, "doc:{"+tenant+"}:b", "chunks", "1", "retracted", "2026-01-01T00:00:00Z").Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Retract(ctx, tenant, schemas.Retraction{DocID: "b", Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	stat(st(1, 0, 0, 0, 0, 0, 1, 0))
}

// TestRetractTakesEveryMatchedSurface: a surface matched in a chunk that
// names no person (so no mention of it is kept) still has its counts
// taken away with the chunk's document, and the chunk's lines go too.
func TestRetractTakesEveryMatchedSurface(t *testing.T) {
	s, c, ye := storeWithYe(t)
	ctx := context.Background()
	if err := c.HSet(ctx, "chunk:{"+tenant+"}:b-0000", "text", "叶向高与无名").Err(); err != nil {
		t.Fatal(err)
	}
	lines := "叶向高\t1\t0,0,0,0,0,0,1,0\n无名\t0\t0,0,0,1,0,0,0,0"
	row := []string{"b-0000", "b", "2", "t1", `[{"entity":"` + ye + `","surface":"叶向高"}]`, ye, lines, ""}
	if _, err := s.Link(ctx, tenant, [][]string{row}); err != nil {
		t.Fatal(err)
	}
	all, err := s.SurfaceStats(ctx, tenant)
	if err != nil {
		t.Fatal(err)
	}
	if all["无名"].Bins[3] != 1 || all["叶向高"].Bins[6] != 1 {
		t.Fatalf("counts after the write: %+v", all)
	}
	if err := c.HSet(ctx, "doc:{"+tenant+"}:b", "chunks", "1", "retracted", "2026-01-01T00:00:00Z").Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Retract(ctx, tenant, schemas.Retraction{DocID: "b", Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	if all, err = s.SurfaceStats(ctx, tenant); err != nil {
		t.Fatal(err)
	}
	if all["无名"].Occurrences() != 0 || all["叶向高"].Occurrences() != 0 {
		t.Errorf("counts after the retraction: %+v", all)
	}
	if n, err := c.Exists(ctx, "kg:{"+tenant+"}:chunksurf:b-0000", "kg:{"+tenant+"}:surfchunks:无名").Result(); err != nil || n != 0 {
		t.Errorf("%d of the chunk's records left (%v)", n, err)
	}
}

// TestLastLinkOfARetractedNode: a person whose document was retracted
// while another document's chunk was linked to him is kept by the
// retraction; when that link goes, the person goes with it, names and
// all, as the retraction would have removed him.
func TestLastLinkOfARetractedNode(t *testing.T) {
	s, c := newStore(t, kg.Config{})
	ctx := context.Background()
	if _, err := s.Apply(ctx, tenant, triplets("d1", "d1-0000", "叶向高", "d1-0000",
		fact{head: "叶向高", rel: schemas.RelCourtesyName, tail: "进卿", start: 0, end: 6}), nil); err != nil {
		t.Fatal(err)
	}
	ye := kg.PersonID("叶向高", "d1-0000")
	if err := c.HSet(ctx, "chunk:{"+tenant+"}:b-0000", "text", "叶向高入阁").Err(); err != nil {
		t.Fatal(err)
	}
	link := func(ents string) {
		t.Helper()
		ms := ""
		if ents != "" {
			ms = `[{"entity":"` + ents + `","surface":"叶向高"}]`
		}
		if _, err := s.Link(ctx, tenant, [][]string{{"b-0000", "b", "9", "t-" + ents, ms, ents, "叶向高\t1\t", "1"}}); err != nil {
			t.Fatal(err)
		}
	}
	link(ye)
	if err := c.HSet(ctx, "doc:{"+tenant+"}:d1", "chunks", "1", "retracted", "2026-01-01T00:00:00Z").Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Retract(ctx, tenant, schemas.Retraction{DocID: "d1", Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Entity(ctx, tenant, ye); err != nil {
		t.Fatalf("the retraction removed a person a link held up: %v", err)
	}
	link("")
	if _, err := s.Entity(ctx, tenant, ye); !errors.Is(err, graph.ErrNotFound) {
		t.Fatalf("after its last link went: %v, want not found", err)
	}
	for _, sf := range []string{"叶向高", "进卿"} {
		if ids, _ := s.Resolve(ctx, tenant, sf); len(ids) != 0 {
			t.Errorf("%s still resolves to %v", sf, ids)
		}
		if _, err := c.ZScore(ctx, "kg:{"+tenant+"}:surfaces", sf).Result(); err == nil {
			t.Errorf("%s still in the surface log", sf)
		}
	}
}

// storeWithYe is a store holding 叶向高 with his courtesy name 进卿, and his
// person id.
func storeWithYe(t *testing.T) (*kg.Store, redisdb.Client, string) {
	t.Helper()
	s, c := newStore(t, kg.Config{})
	if _, err := s.Apply(context.Background(), tenant, triplets("d1", "c-ye", "叶向高", "c-ye",
		fact{head: "叶向高", rel: schemas.RelCourtesyName, tail: "进卿", start: 0, end: 6}), nil); err != nil {
		t.Fatal(err)
	}
	return s, c, kg.PersonID("叶向高", "c-ye")
}
