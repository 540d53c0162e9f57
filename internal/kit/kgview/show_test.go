package kgview_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/kit/kgview"
	"github.com/annalist-dev/annalist/internal/ports/graph"
	"github.com/annalist-dev/annalist/schemas"
)

// fakeGraph is a Reader over a fixed set of entities; aliases map surfaces
// to ids.
type fakeGraph struct {
	entities map[string]graph.Entity
	aliases  map[string][]string
	err      error
}

func (f fakeGraph) Resolve(_ context.Context, _, surface string) ([]string, error) {
	if f.err != nil {
		return nil, f.err
	}
	if _, ok := f.entities[surface]; ok {
		return []string{surface}, nil
	}
	return f.aliases[surface], nil
}

func (f fakeGraph) Entity(_ context.Context, _, id string) (graph.Entity, error) {
	e, ok := f.entities[id]
	if !ok {
		return graph.Entity{}, graph.ErrNotFound
	}
	return e, nil
}

type fakeChunks map[string]schemas.Chunk

func (f fakeChunks) Get(_ context.Context, _ string, ids []string) ([]schemas.Chunk, error) {
	var out []schemas.Chunk
	for _, id := range ids {
		if c, ok := f[id]; ok {
			out = append(out, c)
		}
	}
	return out, nil
}

func person(id, name, entry string, edges int, aliases ...string) graph.Entity {
	e := graph.Entity{Node: graph.Node{ID: id, Name: name, Type: "person", EntryChunk: entry},
		Aliases: append([]string{name}, aliases...), Edges: []graph.Edge{}, Incoming: []graph.Edge{}, Chunks: []string{}}
	for range edges {
		e.Edges = append(e.Edges, graph.Edge{HeadID: id, Head: name, Relation: "office", Tail: "x", ChunkID: entry})
	}
	return e
}

func newFakeGraph() fakeGraph {
	ents := []graph.Entity{
		person("person:王溥@a", "王溥", "c1", 2, "子明"),
		person("person:王溥@b", "王溥", "c2", 5, "汝弼"),
		person("person:王溥", "王溥", "", 9),
		person("person:李贞@c", "李贞", "c3", 1, "子明"),
		person("person:张@d", "张某", "c4", 30, "王溥"),
	}
	g := fakeGraph{entities: map[string]graph.Entity{}, aliases: map[string][]string{}}
	for _, e := range ents {
		g.entities[e.ID] = e
		for _, a := range e.Aliases {
			g.aliases[a] = append(g.aliases[a], e.ID)
		}
	}
	// A stale alias pointing at nothing is skipped.
	g.aliases["子明"] = append(g.aliases["子明"], "person:gone")
	return g
}

func TestShowRanksCandidates(t *testing.T) {
	g := newFakeGraph()
	for _, tc := range []struct {
		name, query string
		best        string
		matched     string
		candidates  []string
	}{
		{"canonical name over alias, anchored over unanchored, more facts first",
			"王溥", "person:王溥@b", kgview.MatchName,
			[]string{"person:王溥@b", "person:王溥@a", "person:王溥", "person:张@d"}},
		{"a shared courtesy name lists both people",
			"子明", "person:王溥@a", kgview.MatchAlias, []string{"person:王溥@a", "person:李贞@c"}},
		{"an unambiguous alias has no candidates", "汝弼", "person:王溥@b", kgview.MatchAlias, nil},
		{"an id shows that entity", "person:王溥", "person:王溥", kgview.MatchID, nil},
		{"surrounding space is ignored", " 李贞 ", "person:李贞@c", kgview.MatchName, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := kgview.Show(context.Background(), g, nil, "default", tc.query, false)
			if err != nil {
				t.Fatal(err)
			}
			var cands []string
			for _, c := range v.Candidates {
				cands = append(cands, c.ID)
			}
			if v.ID != tc.best || v.Matched != tc.matched || !slices.Equal(cands, tc.candidates) {
				t.Fatalf("best %s matched %s candidates %v; want %s %s %v",
					v.ID, v.Matched, cands, tc.best, tc.matched, tc.candidates)
			}
		})
	}
}

func TestShowErrors(t *testing.T) {
	g := newFakeGraph()
	for _, tc := range []struct {
		name, query string
		g           graph.Reader
		withText    bool
		notFound    bool
	}{
		{"unknown name", "无名", g, false, true},
		{"empty name", "  ", g, false, true},
		{"only stale ids", "gone", fakeGraph{aliases: map[string][]string{"gone": {"person:gone"}}}, false, true},
		{"reader failure", "王溥", fakeGraph{err: errors.New("connection refused")}, false, false},
		{"text without a chunk store", "王溥", g, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := kgview.Show(context.Background(), tc.g, nil, "default", tc.query, tc.withText)
			if err == nil || errors.Is(err, graph.ErrNotFound) != tc.notFound {
				t.Fatalf("err = %v, want not-found %v", err, tc.notFound)
			}
		})
	}
}

func TestViewJSON(t *testing.T) {
	e := person("person:叶向高@1", "叶向高", "c-ye", 0, "进卿")
	e.Edges = []graph.Edge{{ID: "e1", HeadID: e.ID, Head: "叶向高", Relation: "courtesy_name", Tail: "进卿",
		ChunkID: "c-ye", DocID: "d", Span: schemas.Span{Start: 0, End: 7}, Evidence: "叶向高，字进卿", Method: "regex"}}
	e.Chunks = []string{"c-ye", "c-lost"}
	g := fakeGraph{entities: map[string]graph.Entity{e.ID: e}, aliases: map[string][]string{"进卿": {e.ID}}}
	chunks := fakeChunks{"c-ye": {ChunkID: "c-ye", DocID: "d", Text: "叶向高，字进卿，福清人。"}}

	for _, tc := range []struct {
		name     string
		withText bool
		chunks   string
	}{
		{"chunk ids", false, `["c-ye","c-lost"]`},
		{"chunk text", true, `[{"chunk_id":"c-ye","doc_id":"d","text":"叶向高，字进卿，福清人。"},{"chunk_id":"c-lost","text":"","missing":true}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := kgview.Show(context.Background(), g, chunks, "default", "进卿", tc.withText)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"query", "matched", "id", "name", "type", "aliases", "edges", "incoming", "chunks"} {
				if _, ok := m[k]; !ok {
					t.Errorf("JSON lacks %q: %s", k, b)
				}
			}
			if _, ok := m["candidates"]; ok {
				t.Errorf("unambiguous view has candidates: %s", b)
			}
			if string(m["chunks"]) != tc.chunks {
				t.Errorf("chunks = %s, want %s", m["chunks"], tc.chunks)
			}
			var edges []map[string]any
			if err := json.Unmarshal(m["edges"], &edges); err != nil {
				t.Fatal(err)
			}
			if len(edges) != 1 || edges[0]["relation"] != "courtesy_name" || edges[0]["tail"] != "进卿" || edges[0]["chunk_id"] != "c-ye" {
				t.Errorf("edges = %s", m["edges"])
			}
			if string(m["matched"]) != `"alias"` || string(m["name"]) != `"叶向高"` {
				t.Errorf("matched %s name %s", m["matched"], m["name"])
			}
		})
	}
}

func TestWriteText(t *testing.T) {
	e := person("person:叶向高@1", "叶向高", "c-ye", 0, "进卿")
	e.Edges = []graph.Edge{
		{ID: "e1", Relation: "courtesy_name", Tail: "进卿", ChunkID: "c-ye", Span: schemas.Span{Start: 0, End: 7},
			Evidence: "叶向高，字进卿", Method: "regex"},
		{ID: "e2", Relation: "jinshi", Tail: "万历十一年", TailID: "time:万历十一年", ChunkID: "c-ye",
			Span: schemas.Span{Start: 40, End: 49}, Evidence: "举万历十一年进士", Method: "regex",
			Qualifiers: map[string]string{"gregorian": "1583"}},
	}
	e.Incoming = []graph.Edge{{ID: "e3", Head: "王溥", HeadID: "person:王溥", Relation: "relative", Tail: "叶向高",
		ChunkID: "c-x", Resolution: graph.ResolvedAmbiguous, Candidates: []string{"person:王溥@a", "person:王溥@b"}}}
	e.Chunks = []string{"c-ye"}
	other := person("person:叶向高@2", "叶向高", "c-9", 0)
	g := fakeGraph{entities: map[string]graph.Entity{e.ID: e, other.ID: other},
		aliases: map[string][]string{"叶向高": {e.ID, other.ID}}}
	chunks := fakeChunks{"c-ye": {ChunkID: "c-ye", DocID: "d", Text: "叶向高，字进卿，福清人。"}}
	v, err := kgview.Show(context.Background(), g, chunks, "default", "叶向高", true)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := v.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"叶向高  [person:叶向高@1]  person, entry chunk c-ye",
		`"叶向高" is ambiguous: 2 candidates`,
		"person:叶向高@2",
		"aliases: 叶向高, 进卿",
		"courtesy_name: 进卿\n      from chunk c-ye [0,7) by regex: \"叶向高，字进卿\"",
		"jinshi: 万历十一年  [time:万历十一年]",
		"qualifiers: gregorian=1583",
		"incoming (1):\n  王溥 [person:王溥] relative: 叶向高",
		`head "王溥" is ambiguous: person:王溥@a, person:王溥@b`,
		"chunks (1): c-ye",
		"--- chunk c-ye (document d)\n叶向高，字进卿，福清人。",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}

	if err := v.WriteText(failingWriter{}); err == nil {
		t.Error("a failing writer's error is lost")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }
