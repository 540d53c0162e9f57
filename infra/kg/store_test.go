package kg_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/internal/ports/graph"

	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

const tenant = schemas.DefaultTenant

var fixedNow = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

func newStore(t testing.TB, cfg kg.Config) (*kg.Store, redisdb.Client) {
	t.Helper()
	c := redistest.Client(t)
	if cfg.Now == nil {
		cfg.Now = fixedNow
	}
	s, err := kg.New(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

// fact builds a triplet found in a chunk. entry and entryChunk say whose
// biography entry the chunk belongs to ("" outside entries).
type fact struct {
	head, rel, tail, tailType string
	start, end                int
	evidence                  string
	quals                     map[string]string
}

func triplets(doc, chunk, entry, entryChunk string, fs ...fact) []schemas.Triplet {
	out := make([]schemas.Triplet, 0, len(fs))
	for _, f := range fs {
		t := schemas.Triplet{
			Head: f.head, HeadType: schemas.EntityPerson, Relation: f.rel, Tail: f.tail, TailType: f.tailType,
			Qualifiers: f.quals, ChunkID: chunk, DocID: doc, Entry: entry, EntryChunk: entryChunk,
			Span: schemas.Span{Start: f.start, End: f.end}, Evidence: f.evidence,
			Method: "regex", Pattern: "p:" + f.rel, Confidence: 0.9,
		}
		t.TripletID = pipeline.ContentID(chunk, f.rel, f.tail, fmt.Sprint(f.start, f.end))
		out = append(out, t)
	}
	return out
}

// yeXiangGao is the opening of an entry, restated: 叶向高, courtesy name
// 进卿, of 福清, jinshi of 万历十一年.
func yeXiangGao() []schemas.Triplet {
	return triplets("doc-128", "c-ye", "叶向高", "c-ye",
		fact{head: "叶向高", rel: schemas.RelCourtesyName, tail: "进卿", tailType: schemas.EntityName, start: 0, end: 7, evidence: "叶向高，字进卿"},
		fact{head: "叶向高", rel: schemas.RelNativePlace, tail: "福清", tailType: schemas.EntityPlace, start: 8, end: 11, evidence: "福清人"},
		fact{head: "叶向高", rel: schemas.RelJinshi, tail: "万历十一年", tailType: schemas.EntityTime, start: 40, end: 49,
			evidence: "举万历十一年进士", quals: map[string]string{"gregorian": "1583"}},
	)
}

// wangPu gives two different people of one name, each with an entry.
func wangPu() []schemas.Triplet {
	a := triplets("doc-a", "c-wp1", "王溥", "c-wp1",
		fact{head: "王溥", rel: schemas.RelCourtesyName, tail: "子明", start: 0, end: 6, evidence: "王溥，字子明"},
		fact{head: "王溥", rel: schemas.RelNativePlace, tail: "南昌", tailType: schemas.EntityPlace, start: 7, end: 10, evidence: "南昌人"})
	b := triplets("doc-b", "c-wp2", "王溥", "c-wp2",
		fact{head: "王溥", rel: schemas.RelCourtesyName, tail: "汝弼", start: 0, end: 6, evidence: "王溥，字汝弼"},
		fact{head: "王溥", rel: schemas.RelNativePlace, tail: "桂平", tailType: schemas.EntityPlace, start: 7, end: 10, evidence: "桂平人"})
	// Another person whose courtesy name is also 子明.
	c := triplets("doc-b", "c-lz", "李贞", "c-lz",
		fact{head: "李贞", rel: schemas.RelCourtesyName, tail: "子明", start: 0, end: 6, evidence: "李贞，字子明"})
	return slices.Concat(a, b, c)
}

func apply(t testing.TB, s *kg.Store, ts []schemas.Triplet, deliveries []string) [][]schemas.KGUpdate {
	t.Helper()
	u, err := s.Apply(context.Background(), tenant, ts, deliveries)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func entity(t testing.TB, s *kg.Store, id string) graph.Entity {
	t.Helper()
	e, err := s.Entity(context.Background(), tenant, id)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func resolve(t testing.TB, s *kg.Store, surface string) []string {
	t.Helper()
	ids, err := s.Resolve(context.Background(), tenant, surface)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestResolve(t *testing.T) {
	s, _ := newStore(t, kg.Config{})
	apply(t, s, slices.Concat(yeXiangGao(), wangPu()), nil)
	ye := kg.PersonID("叶向高", "c-ye")
	wp1, wp2 := kg.PersonID("王溥", "c-wp1"), kg.PersonID("王溥", "c-wp2")
	lz := kg.PersonID("李贞", "c-lz")
	for _, tc := range []struct {
		name, surface string
		want          []string
	}{
		{"canonical name", "叶向高", []string{ye}},
		{"courtesy name finds the person", "进卿", []string{ye}},
		{"surrounding space is ignored", " 进卿 ", []string{ye}},
		{"entity id resolves to itself", ye, []string{ye}},
		{"place by name", "福清", []string{"place:福清"}},
		{"time by name", "万历十一年", []string{"time:万历十一年"}},
		{"two people of one name are both kept", "王溥", sorted(wp1, wp2)},
		{"a shared courtesy name keeps both people", "子明", sorted(wp1, lz)},
		{"unknown", "张三", nil},
		{"blank", "  ", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := resolve(t, s, tc.surface)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Resolve(%q) = %v, want %v", tc.surface, got, tc.want)
			}
		})
	}
}

func sorted(ids ...string) []string { slices.Sort(ids); return ids }

func TestResolutionOfHeadsOutsideEntries(t *testing.T) {
	s, _ := newStore(t, kg.Config{})
	apply(t, s, slices.Concat(yeXiangGao(), wangPu()), nil)
	ye := kg.PersonID("叶向高", "c-ye")
	wp1, wp2 := kg.PersonID("王溥", "c-wp1"), kg.PersonID("王溥", "c-wp2")

	// An archive chunk (no entry) mentions people by courtesy name and name.
	archive := triplets("doc-arch", "c-arch", "", "",
		fact{head: "进卿", rel: schemas.RelOffice, tail: "首辅", tailType: schemas.EntityOffice, start: 0, end: 6, evidence: "进卿为首辅"},
		fact{head: "王溥", rel: schemas.RelOffice, tail: "知府", tailType: schemas.EntityOffice, start: 10, end: 16, evidence: "王溥为知府"},
		fact{head: "赵六", rel: schemas.RelDeath, tail: "天启元年", start: 20, end: 26, evidence: "赵六卒于天启元年"},
		fact{head: "叶向高", rel: schemas.RelRelative, tail: "王溥", start: 30, end: 36, evidence: "叶向高婿王溥",
			quals: map[string]string{"kin": "son-in-law"}},
	)
	apply(t, s, archive, nil)

	byRel := func(e graph.Entity, rel string) graph.Edge {
		t.Helper()
		for _, ed := range e.Edges {
			if ed.Relation == rel {
				return ed
			}
		}
		t.Fatalf("%s has no %s edge: %+v", e.ID, rel, e.Edges)
		return graph.Edge{}
	}

	for _, tc := range []struct {
		name       string
		entity     string
		rel        string
		resolution string
		candidates []string
	}{
		{"a unique courtesy name resolves to the person", ye, schemas.RelOffice, graph.ResolvedAlias, nil},
		{"an ambiguous name stays on the unanchored surface", "person:王溥", schemas.RelOffice, graph.ResolvedAmbiguous, sorted(wp1, wp2)},
		{"an unknown name becomes an unanchored person", "person:赵六", schemas.RelDeath, graph.ResolvedNew, nil},
		{"an entry subject is anchored", ye, schemas.RelNativePlace, graph.ResolvedEntry, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := byRel(entity(t, s, tc.entity), tc.rel)
			if e.Resolution != tc.resolution || !slices.Equal(e.Candidates, tc.candidates) {
				t.Fatalf("edge %s of %s: resolution %q candidates %v, want %q %v",
					tc.rel, tc.entity, e.Resolution, e.Candidates, tc.resolution, tc.candidates)
			}
		})
	}

	t.Run("an ambiguous relative tail keeps its candidates", func(t *testing.T) {
		e := byRel(entity(t, s, ye), schemas.RelRelative)
		if e.TailID != "person:王溥" || e.TailResolution != graph.ResolvedAmbiguous ||
			!slices.Equal(e.TailCandidates, sorted(wp1, wp2)) {
			t.Fatalf("relative edge: %+v", e)
		}
		in := entity(t, s, "person:王溥").Incoming
		if len(in) != 1 || in[0].ID != e.ID {
			t.Fatalf("person:王溥 incoming = %+v, want the relative edge", in)
		}
	})

	t.Run("the anchored people list each other as homonyms", func(t *testing.T) {
		h := entity(t, s, wp1).Homonyms
		if !slices.Equal(h, sorted(wp2, "person:王溥")) {
			t.Fatalf("homonyms of %s = %v", wp1, h)
		}
	})

	t.Run("resolve lists every candidate, unanchored included", func(t *testing.T) {
		got := resolve(t, s, "王溥")
		if !slices.Equal(got, sorted(wp1, wp2, "person:王溥")) {
			t.Fatalf("Resolve(王溥) = %v", got)
		}
	})
}

func TestEntryAnchorsTheRelativesItIntroduces(t *testing.T) {
	s, _ := newStore(t, kg.Config{})
	// In 陆文渊's entry: the edge naming his son, and the son's sub-entry.
	// Triplets are partitioned by head, so the edge may come first.
	edge := triplets("d", "c-lu", "陆文渊", "c-lu",
		fact{head: "陆文渊", rel: schemas.RelRelative, tail: "陆琮", tailType: schemas.EntityPerson, start: 90, end: 93,
			quals: map[string]string{"kin": "子"}})
	sub := triplets("d", "c-lu", "陆文渊", "c-lu",
		fact{head: "陆琮", rel: schemas.RelMention, start: 90, end: 100},
		fact{head: "陆琮", rel: schemas.RelCourtesyName, tail: "季玉", start: 90, end: 96})
	// Another man of that name with an entry of his own.
	other := triplets("d2", "c-lc", "陆琮", "c-lc",
		fact{head: "陆琮", rel: schemas.RelCourtesyName, tail: "汝器", start: 0, end: 6})
	apply(t, s, other, nil)
	apply(t, s, edge, nil)
	apply(t, s, sub, nil)

	son, namesake := kg.PersonID("陆琮", "c-lu"), kg.PersonID("陆琮", "c-lc")
	e := entity(t, s, son)
	if e.EntryChunk != "c-lu" || len(e.Edges) != 1 || e.Edges[0].Tail != "季玉" || e.Edges[0].Resolution != graph.ResolvedEntry {
		t.Fatalf("son = %+v", e)
	}
	if len(e.Incoming) != 1 || e.Incoming[0].HeadID != kg.PersonID("陆文渊", "c-lu") ||
		e.Incoming[0].TailResolution != graph.ResolvedEntry {
		t.Fatalf("the relative edge does not reach the son: %+v", e.Incoming)
	}
	if !slices.Equal(e.Homonyms, []string{namesake}) {
		t.Fatalf("homonyms = %v, want the namesake", e.Homonyms)
	}
	if got := resolve(t, s, "陆琮"); !slices.Equal(got, sorted(son, namesake)) {
		t.Fatalf("Resolve(陆琮) = %v", got)
	}
	if got := resolve(t, s, "季玉"); !slices.Equal(got, []string{son}) {
		t.Fatalf("Resolve(季玉) = %v", got)
	}
}

func TestEntityKeepsProvenance(t *testing.T) {
	s, _ := newStore(t, kg.Config{})
	ts := yeXiangGao()
	apply(t, s, ts, nil)
	e := entity(t, s, kg.PersonID("叶向高", "c-ye"))

	if e.Name != "叶向高" || e.Type != schemas.EntityPerson || e.EntryChunk != "c-ye" ||
		e.FirstChunk != "c-ye" || e.FirstDoc != "doc-128" || e.FirstSeen != "2026-01-02T03:04:05Z" {
		t.Fatalf("node = %+v", e.Node)
	}
	if !slices.Equal(e.Aliases, []string{"叶向高", "进卿"}) {
		t.Fatalf("aliases = %v, want canonical name first then 进卿", e.Aliases)
	}
	if !slices.Equal(e.Chunks, []string{"c-ye"}) {
		t.Fatalf("chunks = %v", e.Chunks)
	}
	if len(e.Edges) != len(ts) {
		t.Fatalf("%d edges, want %d", len(e.Edges), len(ts))
	}
	// Edges come in text order within the entry chunk, as the triplets do.
	for i, tr := range ts {
		ed := e.Edges[i]
		want := graph.Edge{
			ID: kg.EdgeID(tr), HeadID: e.ID, Head: tr.Head, Relation: tr.Relation, Tail: tr.Tail,
			ChunkID: tr.ChunkID, DocID: tr.DocID, Span: tr.Span, Evidence: tr.Evidence,
			Method: tr.Method, Pattern: tr.Pattern, Confidence: tr.Confidence, Qualifiers: tr.Qualifiers,
			TripletID: tr.TripletID, Resolution: graph.ResolvedEntry,
		}
		if tr.TailType != schemas.EntityName {
			want.TailID = tr.TailType + ":" + tr.Tail
			want.TailResolution = graph.ResolvedTyped
		}
		if fmt.Sprintf("%+v", ed) != fmt.Sprintf("%+v", want) {
			t.Errorf("edge %d:\n got %+v\nwant %+v", i, ed, want)
		}
	}

	place := entity(t, s, "place:福清")
	if place.Type != schemas.EntityPlace || len(place.Incoming) != 1 || place.Incoming[0].HeadID != e.ID ||
		len(place.Edges) != 0 || !slices.Equal(place.Chunks, []string{"c-ye"}) {
		t.Fatalf("place:福清 = %+v", place)
	}

	if _, err := s.Entity(context.Background(), tenant, "person:nobody"); !errors.Is(err, graph.ErrNotFound) {
		t.Fatalf("unknown entity: err = %v, want ErrNotFound", err)
	}
}

// TestEntityEdgesReadsWhatEntityReads: the batch read gives each entity
// the node and edges Entity gives, in its order, and an unknown id its
// not-found error in place.
func TestEntityEdgesReadsWhatEntityReads(t *testing.T) {
	s, _ := newStore(t, kg.Config{})
	apply(t, s, yeXiangGao(), nil)
	ids := []string{kg.PersonID("叶向高", "c-ye"), "person:nobody", "place:福清"}
	es, errs, err := s.EntityEdges(context.Background(), tenant, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != len(ids) || len(errs) != len(ids) {
		t.Fatalf("%d entities and %d errors for %d ids", len(es), len(errs), len(ids))
	}
	if !errors.Is(errs[1], graph.ErrNotFound) {
		t.Errorf("person:nobody: err = %v, want ErrNotFound", errs[1])
	}
	for _, k := range []int{0, 2} {
		if errs[k] != nil {
			t.Fatalf("%s: %v", ids[k], errs[k])
		}
		want := entity(t, s, ids[k])
		got := es[k]
		if fmt.Sprintf("%+v", got.Node) != fmt.Sprintf("%+v", want.Node) ||
			fmt.Sprintf("%+v", got.Edges) != fmt.Sprintf("%+v", want.Edges) ||
			fmt.Sprintf("%+v", got.Incoming) != fmt.Sprintf("%+v", want.Incoming) {
			t.Errorf("%s:\n got %+v\nwant %+v", ids[k], got, want)
		}
		if len(got.Edges)+len(got.Incoming) == 0 {
			t.Errorf("%s: no edges read", ids[k])
		}
	}
}

// TestEntitiesReadsEachAsEntity: read together, entities come back each
// whole (names, edges, mentions, homonyms) as read alone, in the order
// asked, with an unknown id's not-found error in its place.
func TestEntitiesReadsEachAsEntity(t *testing.T) {
	s, _ := newStore(t, kg.Config{})
	apply(t, s, yeXiangGao(), nil)
	ids := []string{"place:福清", "person:nobody", kg.PersonID("叶向高", "c-ye")}
	es, errs, err := s.Entities(context.Background(), tenant, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != len(ids) || !errors.Is(errs[1], graph.ErrNotFound) {
		t.Fatalf("%d entities, errors %v", len(es), errs)
	}
	for _, k := range []int{0, 2} {
		want := entity(t, s, ids[k])
		if errs[k] != nil || fmt.Sprintf("%+v", es[k]) != fmt.Sprintf("%+v", want) {
			t.Errorf("%s: %v\n got %+v\nwant %+v", ids[k], errs[k], es[k], want)
		}
	}
	if ye := es[2]; len(ye.Aliases) < 2 || len(ye.Edges) == 0 || len(ye.Chunks) == 0 {
		t.Errorf("叶向高 read without names, edges or mentions: %+v", ye)
	}
}

func TestContinuationChunksShareTheEntryPerson(t *testing.T) {
	s, _ := newStore(t, kg.Config{})
	first := triplets("d", "c1", "叶向高", "c1",
		fact{head: "叶向高", rel: schemas.RelCourtesyName, tail: "进卿", start: 0, end: 7})
	cont := triplets("d", "c2", "叶向高", "c1",
		fact{head: "叶向高", rel: schemas.RelDeath, tail: "天启七年", tailType: schemas.EntityTime, start: 3, end: 9})
	// The continuation chunk comes first: order must not matter.
	apply(t, s, slices.Concat(cont, first), nil)
	e := entity(t, s, kg.PersonID("叶向高", "c1"))
	if len(e.Edges) != 2 || !slices.Equal(e.Chunks, []string{"c1", "c2"}) {
		t.Fatalf("entity = %+v", e)
	}
	if e.Edges[0].ChunkID != "c1" {
		t.Fatalf("the entry chunk's edge should come first: %+v", e.Edges)
	}
	if got := resolve(t, s, "叶向高"); len(got) != 1 {
		t.Fatalf("one person expected, got %v", got)
	}
}

// dump reads every key of the database with its full content, for
// comparing two states.
func dump(t testing.TB, c redisdb.Client) map[string]string {
	t.Helper()
	return dumpKeys(t, c, "*")
}

// dumpTenant is dump of one tenant's keys (they carry it between braces).
func dumpTenant(t testing.TB, c redisdb.Client, tenant string) map[string]string {
	t.Helper()
	return dumpKeys(t, c, "*{"+tenant+"}*")
}

// dumpKeys reads every key matching pattern into a comparable string:
// sets and hash fields sorted, sorted sets with their scores.
func dumpKeys(t testing.TB, c redisdb.Client, pattern string) map[string]string {
	t.Helper()
	ctx := context.Background()
	keys, err := c.Keys(ctx, pattern).Result()
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]string, len(keys))
	for _, k := range keys {
		typ, err := c.Type(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		switch typ {
		case "set":
			m, err := c.SMembers(ctx, k).Result()
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(m)
			out[k] = "set " + strings.Join(m, "|")
		case "hash":
			h, err := c.HGetAll(ctx, k).Result()
			if err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, f := range slices.Sorted(maps.Keys(h)) {
				parts = append(parts, f+"="+h[f])
			}
			out[k] = "hash " + strings.Join(parts, "|")
		case "zset":
			z, err := c.ZRangeWithScores(ctx, k, 0, -1).Result()
			if err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, m := range z {
				parts = append(parts, fmt.Sprint(m.Member, "=", m.Score))
			}
			out[k] = "zset " + strings.Join(parts, "|")
		case "string":
			v, err := c.Get(ctx, k).Result()
			if err != nil {
				t.Fatal(err)
			}
			out[k] = "string " + v
		default:
			t.Fatalf("unexpected %s key %s", typ, k)
		}
	}
	return out
}

// diff lists the keys whose content differs between two dumps, except
// those in skip.
func diff(a, b map[string]string, skip ...string) []string {
	var d []string
	for k, v := range a {
		if b[k] != v && !slices.Contains(skip, k) {
			d = append(d, fmt.Sprintf("%s: %q vs %q", k, v, b[k]))
		}
	}
	for k, v := range b {
		if _, ok := a[k]; !ok && !slices.Contains(skip, k) {
			d = append(d, fmt.Sprintf("%s: missing vs %q", k, v))
		}
	}
	slices.Sort(d)
	return d
}

func countChanges(us [][]schemas.KGUpdate) (entities, created, edges int) {
	for _, per := range us {
		for _, u := range per {
			entities++
			if u.Created {
				created++
			}
			edges += len(u.Edges)
		}
	}
	return
}

func TestApplyIsIdempotent(t *testing.T) {
	ts := slices.Concat(yeXiangGao(), wangPu(), triplets("doc-arch", "c-arch", "", "",
		fact{head: "王溥", rel: schemas.RelMention, start: 0, end: 2},
		fact{head: "进卿", rel: schemas.RelOffice, tail: "首辅", tailType: schemas.EntityOffice, start: 3, end: 8}))
	deliveries := make([]string, len(ts))
	for i := range ts {
		deliveries[i] = fmt.Sprintf("event-%d", i)
	}
	for _, tc := range []struct {
		name   string
		second []string // deliveries of the second application
	}{
		{"without delivery ids", nil},
		{"a re-ingest under new delivery ids", func() []string {
			d := make([]string, len(ts))
			for i := range d {
				d[i] = fmt.Sprintf("reingest-%d", i)
			}
			return d
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, c := newStore(t, kg.Config{})
			first := apply(t, s, ts, deliveries)
			before := dump(t, c)
			counts, err := s.Counts(context.Background(), tenant)
			if err != nil {
				t.Fatal(err)
			}
			if _, created, edges := countChanges(first); created == 0 || edges == 0 {
				t.Fatalf("first application reported %d created, %d edges", created, edges)
			}

			second := apply(t, s, ts, tc.second)
			if n, _, _ := countChanges(second); n != 0 {
				t.Fatalf("second application reported %d changed entities: %+v", n, second)
			}
			after := dump(t, c)
			if d := diff(before, after); len(d) > 0 {
				t.Fatalf("state changed:\n%s", strings.Join(d, "\n"))
			}
			counts2, err := s.Counts(context.Background(), tenant)
			if err != nil {
				t.Fatal(err)
			}
			if counts != counts2 {
				t.Fatalf("counts %+v then %+v", counts, counts2)
			}
		})
	}
}

func TestRedeliveryReportsTheSameChangesAgain(t *testing.T) {
	s, c := newStore(t, kg.Config{})
	ts := yeXiangGao()
	deliveries := []string{"e1", "e2", "e3"}
	first := apply(t, s, ts, deliveries)
	before := dump(t, c)

	// The stage crashed after writing and before producing: the same
	// deliveries come again and must be announced again.
	again := apply(t, s, ts, deliveries)
	if d := diff(before, dump(t, c)); len(d) > 0 {
		t.Fatalf("state changed:\n%s", strings.Join(d, "\n"))
	}
	for i := range ts {
		if !sameUpdates(first[i], again[i]) {
			t.Errorf("triplet %d: first %+v\nagain %+v", i, first[i], again[i])
		}
	}
}

// sameUpdates compares updates as sets: a re-report may order them
// differently.
func sameUpdates(a, b []schemas.KGUpdate) bool {
	norm := func(us []schemas.KGUpdate) []string {
		var out []string
		for _, u := range us {
			e, c, al := slices.Clone(u.Edges), slices.Clone(u.Chunks), slices.Clone(u.Aliases)
			slices.Sort(e)
			slices.Sort(c)
			slices.Sort(al)
			out = append(out, fmt.Sprint(u.EntityID, u.Name, u.Type, u.Created, e, c, al))
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(norm(a), norm(b))
}

func TestApplyReportsChanges(t *testing.T) {
	s, _ := newStore(t, kg.Config{})
	ts := yeXiangGao()
	us := apply(t, s, ts, nil)
	ye := kg.PersonID("叶向高", "c-ye")

	// Triplet 0 creates the person and names it 进卿.
	if len(us[0]) != 1 {
		t.Fatalf("triplet 0 changed %+v", us[0])
	}
	u := us[0][0]
	if u.EntityID != ye || u.Name != "叶向高" || u.Type != schemas.EntityPerson || !u.Created ||
		!slices.Equal(u.Edges, []string{kg.EdgeID(ts[0])}) || !slices.Equal(u.Chunks, []string{"c-ye"}) ||
		!slices.Equal(u.Aliases, []string{"进卿"}) {
		t.Fatalf("triplet 0 update = %+v", u)
	}
	// Triplet 1 adds an edge to the existing person and creates the place.
	if len(us[1]) != 2 {
		t.Fatalf("triplet 1 changed %+v", us[1])
	}
	p, pl := us[1][0], us[1][1]
	if p.EntityID != ye {
		p, pl = pl, p
	}
	if p.EntityID != ye || p.Created || len(p.Chunks) != 0 || !slices.Equal(p.Edges, []string{kg.EdgeID(ts[1])}) {
		t.Fatalf("triplet 1 person update = %+v", p)
	}
	if pl.EntityID != "place:福清" || pl.Name != "福清" || pl.Type != schemas.EntityPlace || !pl.Created ||
		!slices.Equal(pl.Edges, []string{kg.EdgeID(ts[1])}) {
		t.Fatalf("triplet 1 place update = %+v", pl)
	}
	for _, per := range us {
		for _, u := range per {
			if err := u.Validate(); err != nil {
				t.Fatalf("update %+v: %v", u, err)
			}
		}
	}
}

func TestScriptBatchesGiveTheSameGraph(t *testing.T) {
	ts := slices.Concat(yeXiangGao(), wangPu(), triplets("doc-arch", "c-arch", "", "",
		fact{head: "子明", rel: schemas.RelMention, start: 0, end: 2},
		fact{head: "进卿", rel: schemas.RelOffice, tail: "首辅", tailType: schemas.EntityOffice, start: 3, end: 8}))
	one, c1 := newStore(t, kg.Config{})
	small, c2 := newStore(t, kg.Config{ScriptBatch: 2})
	u1 := apply(t, one, ts, nil)
	u2 := apply(t, small, ts, nil)
	if d := diff(dump(t, c1), dump(t, c2)); len(d) > 0 {
		t.Fatalf("graphs differ:\n%s", strings.Join(d, "\n"))
	}
	for i := range ts {
		if !sameUpdates(u1[i], u2[i]) {
			t.Errorf("triplet %d: %+v vs %+v", i, u1[i], u2[i])
		}
	}
}

func TestApplyRejectsBadInputBeforeWriting(t *testing.T) {
	s, c := newStore(t, kg.Config{})
	good := yeXiangGao()
	for _, tc := range []struct {
		name   string
		tenant string
		mutate func(*schemas.Triplet)
	}{
		{"missing chunk", tenant, func(t *schemas.Triplet) { t.ChunkID = "" }},
		{"blank head", tenant, func(t *schemas.Triplet) { t.Head = " \t" }},
		{"blank tail", tenant, func(t *schemas.Triplet) { t.Tail = "\u3000" }},
		{"bad span", tenant, func(t *schemas.Triplet) { t.Span = schemas.Span{Start: 5, End: 2} }},
		{"bad tenant", "a}b", func(*schemas.Triplet) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := slices.Clone(good)
			tc.mutate(&ts[2])
			_, err := s.Apply(context.Background(), tc.tenant, ts, nil)
			if !errors.Is(err, schemas.ErrInvalid) || !pipeline.IsPermanent(err) {
				t.Fatalf("err = %v, want a permanent ErrInvalid", err)
			}
			if n := len(dump(t, c)); n != 0 {
				t.Fatalf("%d keys written", n)
			}
		})
	}
}

func TestNeighbourhood(t *testing.T) {
	s, _ := newStore(t, kg.Config{})
	// Two people of 福清 are two hops apart through the place.
	other := triplets("doc-x", "c-x", "林材", "c-x",
		fact{head: "林材", rel: schemas.RelNativePlace, tail: "福清", tailType: schemas.EntityPlace, start: 5, end: 8})
	apply(t, s, slices.Concat(yeXiangGao(), other), nil)
	ye, lin := kg.PersonID("叶向高", "c-ye"), kg.PersonID("林材", "c-x")
	ids := func(g graph.Subgraph) []string {
		var out []string
		for _, n := range g.Nodes {
			out = append(out, n.ID)
		}
		return out
	}
	for _, tc := range []struct {
		hops  int
		nodes []string
		edges int
	}{
		{0, []string{ye}, 0},
		{1, sorted(ye, "place:福清", "time:万历十一年"), 3},
		{2, sorted(ye, lin, "place:福清", "time:万历十一年"), 4},
		{5, sorted(ye, lin, "place:福清", "time:万历十一年"), 4},
	} {
		t.Run(fmt.Sprint(tc.hops, " hops"), func(t *testing.T) {
			g, err := s.Neighbourhood(context.Background(), tenant, ye, tc.hops)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(g), tc.nodes) || len(g.Edges) != tc.edges || g.Truncated {
				t.Fatalf("nodes %v edges %d truncated %v; want %v %d", ids(g), len(g.Edges), g.Truncated, tc.nodes, tc.edges)
			}
		})
	}
	t.Run("limit truncates", func(t *testing.T) {
		lim, _ := newStore(t, kg.Config{NeighbourhoodLimit: 2})
		apply(t, lim, slices.Concat(yeXiangGao(), other), nil)
		g, err := lim.Neighbourhood(context.Background(), tenant, ye, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !g.Truncated || len(g.Edges) != 2 {
			t.Fatalf("edges %d truncated %v", len(g.Edges), g.Truncated)
		}
	})
	t.Run("unknown root", func(t *testing.T) {
		if _, err := s.Neighbourhood(context.Background(), tenant, "person:nobody", 1); !errors.Is(err, graph.ErrNotFound) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestCounts(t *testing.T) {
	s, _ := newStore(t, kg.Config{})
	apply(t, s, slices.Concat(yeXiangGao(), wangPu()), nil)
	got, err := s.Counts(context.Background(), tenant)
	if err != nil {
		t.Fatal(err)
	}
	// Nodes: 叶向高, 福清, 万历十一年, two 王溥, 南昌, 桂平, 李贞.
	// Edges: 3 + 2 + 2 + 1. Surfaces: the 8 names plus 进卿, 子明, 汝弼.
	want := kg.Counts{Nodes: 8, Edges: 8, Aliases: 10}
	if got != want {
		t.Fatalf("counts = %+v, want %+v", got, want)
	}
	rels, err := s.RelationCounts(context.Background(), tenant)
	if err != nil {
		t.Fatal(err)
	}
	wantRels := map[string]int64{schemas.RelCourtesyName: 4, schemas.RelNativePlace: 3, schemas.RelJinshi: 1}
	if !maps.Equal(rels, wantRels) {
		t.Fatalf("relation counts = %v, want %v", rels, wantRels)
	}
	// Tenants do not see each other.
	other, err := s.Counts(context.Background(), "other")
	if err != nil {
		t.Fatal(err)
	}
	if other != (kg.Counts{}) {
		t.Fatalf("other tenant counts = %+v", other)
	}
}
