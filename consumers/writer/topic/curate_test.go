package topic_test

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/consumers/writer/internal/writertest"
	"github.com/annalist-dev/annalist/consumers/writer/topic"
	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/internal/ports/vectors"
	"github.com/annalist-dev/annalist/internal/wiring/demo"
	"github.com/annalist-dev/annalist/schemas"
)

const tenant = writertest.Tenant

func plan(t *testing.T, c *topic.Curator, subject string) *schemas.ReferenceSet {
	t.Helper()
	rs, err := c.Plan(context.Background(), tenant, schemas.Request{Kind: schemas.KindTopicPage, Subject: subject})
	if err != nil {
		t.Fatalf("plan %q: %v", subject, err)
	}
	return rs
}

// outline renders an outline as "section: name name | section: …".
func outline(rs *schemas.ReferenceSet) string {
	var parts []string
	for _, s := range rs.Curation.Outline {
		var names []string
		for _, it := range s.Items {
			names = append(names, it.Name)
		}
		parts = append(parts, s.Title+": "+strings.Join(names, " "))
	}
	return strings.Join(parts, " | ")
}

func keys(rs *schemas.ReferenceSet) []string {
	var out []string
	for _, e := range rs.Curation.Entities {
		if e.Key {
			out = append(out, e.Name)
		}
	}
	slices.Sort(out)
	return out
}

// TestPlanTypes: each kind of topic string gives its type, sections and
// items, from the writertest volume (黄中 and 林安 of 闽县, jinshi of 万历二年
// and 五年; 周明 of 闽县 with no date; 林安 礼部尚书).
func TestPlanTypes(t *testing.T) {
	f := writertest.NewFixture(t)
	c := topic.NewCurator(f.G, f.Chunks)
	tests := []struct {
		subject, typ, outline string
		keys                  []string
	}{
		{"闽县", schemas.TopicPlace, "万历: 黄中 林安 | 年代未详: 周明", []string{"周明", "林安", "黄中"}},
		{"万历五年", schemas.TopicTime, "进士: 林安", []string{"林安"}},
		// The office is in the entry's second chunk, which calls him 安: his
		// entry's opening comes first.
		{"礼部尚书", schemas.TopicOffice, "万历: 林安 林安", []string{"林安"}},
		// 林昭 is written 父昭 in the entry: on the outline, not a key the
		// page could be checked for by name.
		// 周明 is a friend (kin 友) by the archive note, which names both.
		{"林安", schemas.TopicPerson, "本传: 林安 | 亲属: 林昭 周明", []string{"周明"}},
	}
	for _, tc := range tests {
		t.Run(tc.subject, func(t *testing.T) {
			rs := plan(t, c, tc.subject)
			if rs.Curation.Type != tc.typ {
				t.Errorf("type %s, want %s", rs.Curation.Type, tc.typ)
			}
			if got := outline(rs); got != tc.outline {
				t.Errorf("outline %q, want %q", got, tc.outline)
			}
			if got := keys(rs); !slices.Equal(got, tc.keys) {
				t.Errorf("keys %v, want %v", got, tc.keys)
			}
			if rs.Subject != tc.subject || rs.EntityID == "" || rs.Lang != "zh" || rs.Profile == "" || len(rs.Facts) != 0 {
				t.Errorf("set subject %q entity %q lang %q profile %q facts %d", rs.Subject, rs.EntityID, rs.Lang,
					rs.Profile, len(rs.Facts))
			}
			for _, s := range rs.Curation.Outline {
				for _, it := range s.Items {
					if ref, ok := rs.Reference(it.Chunk); !ok || ref.DocID == "" || ref.Text == "" {
						t.Errorf("item %+v: its chunk is not a reference with text and document", it)
					}
				}
			}
		})
	}
}

// TestExpansion: depth ≤ 4, each entity once, the relevance filter and the
// depth bound.
func TestExpansion(t *testing.T) {
	f := writertest.NewFixture(t)
	rs := plan(t, topic.NewCurator(f.G, f.Chunks), "闽县")
	cur := rs.Curation
	seen := map[string]bool{}
	for _, e := range cur.Entities {
		if seen[e.ID] {
			t.Errorf("entity %s curated twice", e.ID)
		}
		seen[e.ID] = true
		if e.Depth > topic.MaxDepth {
			t.Errorf("entity %s at depth %d", e.ID, e.Depth)
		}
	}
	if len(cur.Depths) == 0 || len(cur.Depths) > topic.MaxDepth {
		t.Fatalf("depths %+v", cur.Depths)
	}
	if cur.Entities[0].ID != "place:闽县" || cur.Entities[0].Depth != 0 {
		t.Errorf("first entity %+v, want the seed", cur.Entities[0])
	}
	// 林昭 (in 林安's entry, which names 闽县) and 周明's son-in-law 陈平 are
	// kept at depth 2; 建安, 陈平's place in his own entry, is a hub and
	// is not followed.
	depth := map[string]int{}
	for _, e := range cur.Entities {
		depth[e.Name] = e.Depth
	}
	if depth["林昭"] != 2 || depth["陈平"] != 2 {
		t.Errorf("depths %v: want 林昭 and 陈平 at 2", depth)
	}
	if _, ok := depth["建安"]; ok {
		t.Error("a hub beyond the seed was curated")
	}
	one := plan(t, topic.NewCurator(f.G, f.Chunks, topic.WithDepth(1)), "闽县")
	if len(one.Curation.Depths) != 1 {
		t.Errorf("WithDepth(1) ran %d steps", len(one.Curation.Depths))
	}
	for _, e := range one.Curation.Entities {
		if e.Depth > 1 {
			t.Errorf("WithDepth(1) curated %s at depth %d", e.ID, e.Depth)
		}
	}
}

// TestExpansionDepthBound: a chain of relatives from a native, every link
// in a chunk naming the topic, is cut at depth 4.
func TestExpansionDepthBound(t *testing.T) {
	w := writertest.NewWorld(t)
	names := []string{"甲一", "甲二", "甲三", "甲四", "甲五", "甲六"}
	var pieces []writertest.Piece
	for i, n := range names {
		pieces = append(pieces, writertest.Piece{Entry: n, First: true,
			Text: n + "，字子" + string([]rune("一二三四五六")[i]) + "，吴县人。\n"})
	}
	cs := w.Doc(t, "chain", pieces...)
	w.Apply(t, cs[0], writertest.Fact{Head: names[0], Relation: schemas.RelNativePlace, Tail: "吴县",
		TailType: schemas.EntityPlace, Evidence: "吴县人"})
	for _, c := range cs[1:] {
		w.Apply(t, c)
	}
	// A family register outside the entries: its names resolve to the
	// entries' persons, each link a chunk naming the topic.
	var links []writertest.Piece
	for i := 1; i < len(names); i++ {
		links = append(links, writertest.Piece{Text: names[i] + "，吴县人，父" + names[i-1] + "。\n"})
	}
	ns := w.Doc(t, "register", links...)
	for i, c := range ns {
		w.Apply(t, c, writertest.Fact{Head: names[i+1], Relation: schemas.RelRelative, Tail: names[i],
			TailType: schemas.EntityPerson, Evidence: "父" + names[i], Qualifiers: map[string]string{"kin": "父"}})
	}
	rs := plan(t, topic.NewCurator(w.G, w.Chunks), "吴县")
	got := map[string]int{}
	for _, e := range rs.Curation.Entities {
		got[e.Name] = e.Depth
	}
	for i, n := range names[:4] {
		if d, ok := got[n]; !ok || d != i+1 {
			t.Errorf("%s at depth %d (curated %v), want %d", n, d, ok, i+1)
		}
	}
	if _, ok := got[names[4]]; ok {
		t.Errorf("%s, five edges away, was curated: %v", names[4], got)
	}
	if len(rs.Curation.Depths) != topic.MaxDepth {
		t.Errorf("%d steps, want %d", len(rs.Curation.Depths), topic.MaxDepth)
	}
}

func TestPlanUnknown(t *testing.T) {
	f := writertest.NewFixture(t)
	c := topic.NewCurator(f.G, f.Chunks)
	for _, s := range []string{"王守仁", "", "  ", "Severn Navigation Board"} {
		_, err := c.Plan(context.Background(), tenant, schemas.Request{Subject: s})
		if !errors.Is(err, kind.ErrUnknownSubject) {
			t.Errorf("Plan(%q) = %v, want ErrUnknownSubject", s, err)
		}
	}
}

// TestDraftsSupported: every offline draft is supported by the offline
// verifier, cites its chunk, stands in its section and names its person.
func TestDraftsSupported(t *testing.T) {
	f := writertest.NewFixture(t)
	c := topic.NewCurator(f.G, f.Chunks)
	off := topic.NewOffline(topic.OfflineConfig{})
	ver := verifier.NewOffline(verifier.Config{})
	ctx := context.Background()
	for _, subject := range []string{"闽县", "万历五年", "礼部尚书", "林安"} {
		rs := plan(t, c, subject)
		items := off.Items(rs)
		if len(items) == 0 {
			t.Fatalf("%s: no items", subject)
		}
		named := map[string]bool{}
		for i := 0; ; i++ {
			d, done, err := off.Draft(ctx, rs, nil, i)
			if err != nil {
				t.Fatal(err)
			}
			if done {
				if i != len(items) {
					t.Errorf("%s: done at %d, %d items", subject, i, len(items))
				}
				break
			}
			it := items[i]
			if d.Text != it.Text || d.Section != it.Section || !slices.Equal(d.Citations, it.Citations) || d.Index != i {
				t.Errorf("%s: draft %d %+v is not item %+v", subject, i, d, it)
			}
			named[it.Name] = named[it.Name] || strings.Contains(d.Text, it.Name)
			v, err := ver.Check(ctx, rs, d)
			if err != nil {
				t.Fatal(err)
			}
			if v.Status != schemas.StatusSupported {
				t.Errorf("%s: draft %q is %s", subject, d.Text, v.Status)
			}
		}
		for _, k := range keys(rs) {
			if !named[k] {
				t.Errorf("%s: key %s named by no draft", subject, k)
			}
		}
	}
}

// TestOpeningBeforeEvidence: when the evidence's sentence names the person
// by his given name only and the opening is far before it, the opening is
// planned as a sentence of its own before it; both are supported.
func TestOpeningBeforeEvidence(t *testing.T) {
	w := writertest.NewWorld(t)
	long := strings.Repeat("时议纷然，上下相持，久而不决。", 12)
	cs := w.Doc(t, "v9", writertest.Piece{Entry: "雷守中", First: true,
		Text: "雷守中，字伯正，华阳人。" + long + "守中举隆庆二年进士，授知县。\n"})
	w.Apply(t, cs[0],
		writertest.Fact{Head: "雷守中", Relation: schemas.RelNativePlace, Tail: "华阳", TailType: schemas.EntityPlace, Evidence: "华阳人"},
		writertest.Fact{Head: "雷守中", Relation: schemas.RelJinshi, Tail: "隆庆二年", TailType: schemas.EntityTime,
			Evidence: "举隆庆二年进士", Qualifiers: map[string]string{"era": "隆庆", "year": "隆庆二年"}})
	rs := plan(t, topic.NewCurator(w.G, w.Chunks), "隆庆二年")
	items := topic.NewOffline(topic.OfflineConfig{}).Items(rs)
	var texts []string
	for _, it := range items {
		texts = append(texts, it.Text)
	}
	want := []string{"雷守中，字伯正，华阳人。", "守中举隆庆二年进士，授知县。"}
	if !slices.Equal(texts, want) {
		t.Fatalf("items %q, want %q", texts, want)
	}
	if len(items[0].Facts) != 0 || len(items[1].Facts) != 1 || items[1].Facts[0].Value != "隆庆二年" {
		t.Errorf("facts %+v / %+v: want the jinshi fact on the evidence's sentence", items[0].Facts, items[1].Facts)
	}
	if got := keys(rs); !slices.Equal(got, []string{"雷守中"}) {
		t.Errorf("keys %v", got)
	}
	ver := verifier.NewOffline(verifier.Config{})
	for i, it := range items {
		v, err := ver.Check(context.Background(), rs, schemas.Draft{Index: i, Text: it.Text, Citations: it.Citations})
		if err != nil || v.Status != schemas.StatusSupported {
			t.Errorf("%q: %s %v", it.Text, v.Status, err)
		}
	}
}

// TestSpec: the kind registers, with the offline review loop and the
// bound of a topic page.
func TestSpec(t *testing.T) {
	f := writertest.NewFixture(t)
	s := topic.Spec(topic.NewCurator(f.G, f.Chunks), topic.NewOffline(topic.OfflineConfig{}), nil)
	var r kind.Registry
	if err := r.Register(s); err != nil {
		t.Fatal(err)
	}
	got, err := r.Lookup(schemas.KindTopicPage)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Layout.Sectioned || got.MaxSentences != 200 || got.Reviewer(kind.EngineLLM) == nil ||
		got.Editor(kind.EngineOffline) == nil || got.Drafter(kind.EngineLLM) == nil {
		t.Errorf("spec %+v", got)
	}
}

// hashEmbedder embeds a text as its hashed word and character-bigram
// counts, normalized: enough for a test's vector search to rank.
type hashEmbedder struct{}

func (hashEmbedder) Dim() int { return 4096 }
func (hashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, s := range texts {
		v := make([]float32, 4096)
		for _, tok := range text.Tokens(s) {
			h := fnv.New32a()
			h.Write([]byte(tok))
			v[h.Sum32()%4096]++
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		if n > 0 {
			for j := range v {
				v[j] /= float32(math.Sqrt(n))
			}
		}
		out[i] = v
	}
	return out, nil
}

// memVectors is a brute-force vectors.Store.
type memVectors struct{ items map[string][]float32 }

func (m *memVectors) Upsert(_ context.Context, _ string, items []vectors.Item) error {
	for _, it := range items {
		m.items[it.ChunkID] = it.Vector
	}
	return nil
}
func (m *memVectors) Search(_ context.Context, _ string, q []float32, k int) ([]vectors.Hit, error) {
	var hs []vectors.Hit
	for id, v := range m.items {
		var s float32
		for i := range v {
			s += v[i] * q[i]
		}
		hs = append(hs, vectors.Hit{ChunkID: id, Score: s})
	}
	sort.Slice(hs, func(i, j int) bool {
		return hs[i].Score > hs[j].Score || hs[i].Score == hs[j].Score && hs[i].ChunkID < hs[j].ChunkID
	})
	return hs[:min(k, len(hs))], nil
}
func (m *memVectors) Count(context.Context, string) (int, error) { return len(m.items), nil }
func (m *memVectors) Delete(_ context.Context, _ string, ids []string) error {
	for _, id := range ids {
		delete(m.items, id)
	}
	return nil
}

// demoWorld ingests the demo corpus and indexes its chunks' vectors.
func demoWorld(t *testing.T) (*writertest.World, *memVectors) {
	t.Helper()
	items, err := demo.Documents()
	if err != nil {
		t.Fatal(err)
	}
	var docs []schemas.Document
	for _, it := range items {
		docs = append(docs, it.Doc)
	}
	w := writertest.NewWorld(t)
	cs := w.Ingest(t, chunker.New(chunker.Config{}).Chunk, extractor.New(extractor.Config{}).Extract, docs)
	mv := &memVectors{items: map[string][]float32{}}
	var texts []string
	for _, c := range cs {
		texts = append(texts, c.Text)
	}
	vs, _ := hashEmbedder{}.Embed(context.Background(), texts)
	for i, c := range cs {
		mv.items[c.ChunkID] = vs[i]
	}
	return w, mv
}

// TestFreeTextTopic: an English topic no entity names is found by vector
// search and text match, and gives a page whose drafts are supported.
func TestFreeTextTopic(t *testing.T) {
	w, mv := demoWorld(t)
	c := topic.NewCurator(w.G, w.Chunks, topic.WithVectors(hashEmbedder{}, mv, 5))
	rs := plan(t, c, "Severn Navigation Board")
	if rs.Curation.Type != schemas.TopicText || rs.Lang != "en" {
		t.Errorf("type %s lang %s", rs.Curation.Type, rs.Lang)
	}
	items := topic.NewOffline(topic.OfflineConfig{}).Items(rs)
	if len(items) == 0 {
		t.Fatalf("no items; outline %+v", rs.Curation.Outline)
	}
	ver := verifier.NewOffline(verifier.Config{})
	for i, it := range items {
		// A sentence naming the topic, or the one naming the person the
		// next one refers to by a pronoun.
		if !strings.Contains(it.Text, "Severn Navigation Board") &&
			(i+1 == len(items) || !strings.Contains(items[i+1].Text, "Severn Navigation Board")) {
			t.Errorf("item %q does not name the topic", it.Text)
		}
		v, err := ver.Check(context.Background(), rs, schemas.Draft{Index: i, Text: it.Text, Citations: it.Citations})
		if err != nil || v.Status != schemas.StatusSupported {
			t.Errorf("%q: %s %v", it.Text, v.Status, err)
		}
	}
	if _, err := topic.NewCurator(w.G, w.Chunks).Plan(context.Background(), tenant,
		schemas.Request{Subject: "Severn Navigation Board"}); !errors.Is(err, kind.ErrUnknownSubject) && err != nil {
		t.Errorf("without vectors: %v", err)
	}
}

// TestTermTopic: a glossary term gives its definition first, then its uses.
func TestTermTopic(t *testing.T) {
	w, _ := demoWorld(t)
	rs := plan(t, topic.NewCurator(w.G, w.Chunks), "进士")
	if len(rs.Curation.Outline) == 0 || rs.Curation.Outline[0].Title != "释义" {
		t.Fatalf("outline %s", outline(rs))
	}
	def := rs.Curation.Outline[0].Items[0]
	ref, _ := rs.Reference(def.Chunk)
	if !strings.HasPrefix(ref.Text, "进士｜") {
		t.Errorf("definition chunk %q", ref.Text)
	}
	_ = kg.PersonID
}
