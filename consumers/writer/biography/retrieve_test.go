package biography_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/annalist-dev/annalist/internal/ports/vectors"

	"github.com/annalist-dev/annalist/consumers/writer/biography"
	"github.com/annalist-dev/annalist/consumers/writer/internal/writertest"
	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/schemas"
)

func refIDs(rs []schemas.Reference) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ChunkID
	}
	return out
}

func TestRetrieveResolution(t *testing.T) {
	f := writertest.NewFixture(t)
	r := biography.NewRetriever(f.G, f.Chunks)
	ctx := context.Background()
	lin := kg.PersonID("林安", f.Lin1.ChunkID)
	zhou := kg.PersonID("周明", f.Zhou.ChunkID)
	chen1 := kg.PersonID("陈平", f.Chen1.ChunkID)
	chen2 := kg.PersonID("陈平", f.Chen2.ChunkID)
	chenInLaw := kg.PersonID("陈平", f.Zhou.ChunkID)
	tests := []struct {
		name, subject string
		want          string
		homonyms      []string
	}{
		{"canonical name", "林安", lin, nil},
		{"art name", "石溪", lin, nil},
		{"entity id", lin, lin, nil},
		{"surrounding space", " 林安\u3000", lin, nil},
		// 子平 names two men; the one with more facts is chosen and the
		// other is kept as a homonym.
		{"shared courtesy name", "子平", lin, []string{zhou}},
		// The son-in-law has the most facts, but he has no entry of his own:
		// of the two entry subjects the one with more facts wins.
		{"homonyms", "陈平", chen1, []string{chen2, chenInLaw}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := r.Retrieve(ctx, tenant, tc.subject)
			if err != nil {
				t.Fatal(err)
			}
			if rs.EntityID != tc.want {
				t.Fatalf("resolved to %s, want %s", rs.EntityID, tc.want)
			}
			want := slices.Clone(tc.homonyms)
			slices.Sort(want)
			if !slices.Equal(rs.Homonyms, want) {
				t.Errorf("homonyms %v, want %v", rs.Homonyms, want)
			}
			if rs.Aliases[0] != rs.Name {
				t.Errorf("aliases %v do not begin with the name %s", rs.Aliases, rs.Name)
			}
		})
	}
}

func TestRetrieveUnknownSubject(t *testing.T) {
	f := writertest.NewFixture(t)
	r := biography.NewRetriever(f.G, f.Chunks)
	for _, s := range []string{"王守仁", "", "  ", "person:nobody@00000000"} {
		_, err := r.Retrieve(context.Background(), tenant, s)
		if !errors.Is(err, kind.ErrUnknownSubject) {
			t.Errorf("Retrieve(%q) = %v, want ErrUnknownSubject", s, err)
		}
	}
}

// TestRetrieveReferenceSet: 林安's own chunks in reading order, then the
// entry of 周明 — a 1-hop neighbour whose entry names him — but not the
// entry of 黄中, from which their shared native place was first written.
func TestRetrieveReferenceSet(t *testing.T) {
	f := writertest.NewFixture(t)
	r := biography.NewRetriever(f.G, f.Chunks)
	rs, err := r.Retrieve(context.Background(), tenant, "林安")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{f.Lin1.ChunkID, f.Lin2.ChunkID, f.Note.ChunkID, f.Zhou.ChunkID}
	if got := refIDs(rs.References); !slices.Equal(got, want) {
		t.Fatalf("references %v, want %v", got, want)
	}
	sources := []string{schemas.SourceEntity, schemas.SourceEntity, schemas.SourceEntity, schemas.SourceNeighbour}
	through := []string{rs.EntityID, rs.EntityID, rs.EntityID, kg.PersonID("周明", f.Zhou.ChunkID)}
	for i, ref := range rs.References {
		if ref.Source != sources[i] || ref.Entity != through[i] {
			t.Errorf("reference %s from %s through %s, want %s through %s", ref.ChunkID, ref.Source, ref.Entity,
				sources[i], through[i])
		}
		if ref.Text == "" || ref.DocID == "" {
			t.Errorf("reference %s without text or document", ref.ChunkID)
		}
		if i > 0 && ref.Score >= rs.References[i-1].Score {
			t.Errorf("scores not decreasing at %s", ref.ChunkID)
		}
	}
	if rs.Name != "林安" || rs.Subject != "林安" || rs.Lang != "zh" {
		t.Errorf("name %q subject %q lang %q", rs.Name, rs.Subject, rs.Lang)
	}
	if !slices.Equal(rs.Aliases, []string{"林安", "子平", "石溪"}) {
		t.Errorf("aliases %v", rs.Aliases)
	}
	got := map[string]schemas.KGFact{}
	for _, fct := range rs.Facts {
		got[fct.Relation+":"+fct.Value] = fct
		if fct.ChunkID == "" || fct.Evidence == "" || fct.Span.End <= fct.Span.Start {
			t.Errorf("fact %+v lacks its provenance", fct)
		}
		if fct.Relation == schemas.RelMention {
			t.Errorf("mention %+v listed as a fact", fct)
		}
	}
	for _, k := range []string{"courtesy_name:子平", "art_name:石溪", "native_place:闽县", "jinshi:万历五年",
		"office:礼部尚书", "death_age:六十二", "relative:林昭"} {
		if _, ok := got[k]; !ok {
			t.Errorf("fact %s missing from %v", k, rs.Facts)
		}
	}
	if q := got["jinshi:万历五年"].Qualifiers["era"]; q != "万历" {
		t.Errorf("jinshi qualifiers lost: %v", got["jinshi:万历五年"].Qualifiers)
	}
	if rs.Facts[0].ChunkID != f.Lin1.ChunkID {
		t.Errorf("facts do not begin with the entry chunk's: %+v", rs.Facts[0])
	}
}

func TestRetrieveMaxReferences(t *testing.T) {
	f := writertest.NewFixture(t)
	r := biography.NewRetriever(f.G, f.Chunks, biography.WithMaxReferences(2))
	rs, err := r.Retrieve(context.Background(), tenant, "林安")
	if err != nil {
		t.Fatal(err)
	}
	if got := refIDs(rs.References); !slices.Equal(got, []string{f.Lin1.ChunkID, f.Lin2.ChunkID}) {
		t.Fatalf("references %v, want the entry's two chunks", got)
	}
}

// fixedVectors is an vectors.Store whose search answers a fixed list, and
// an Embedder that records the queries.
type fixedVectors struct {
	hits    []vectors.Hit
	queries []string
}

func (v *fixedVectors) Embed(_ context.Context, texts []string) ([][]float32, error) {
	v.queries = append(v.queries, texts...)
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0}
	}
	return out, nil
}
func (v *fixedVectors) Dim() int { return 2 }
func (v *fixedVectors) Upsert(context.Context, string, []vectors.Item) error {
	return errors.New("read only")
}
func (v *fixedVectors) Search(_ context.Context, _ string, _ []float32, k int) ([]vectors.Hit, error) {
	return v.hits[:min(k, len(v.hits))], nil
}
func (v *fixedVectors) Count(context.Context, string) (int, error) { return len(v.hits), nil }
func (v *fixedVectors) Delete(context.Context, string, []string) error {
	return errors.New("read only")
}

// TestRetrieveWithVectors: vector hits join only when they name the
// subject, and a chunk both paths found rises by fusion; the baseline
// returns the raw hits.
func TestRetrieveWithVectors(t *testing.T) {
	f := writertest.NewFixture(t)
	archive := f.Doc(t, "arch", writertest.Piece{Text: "石溪先生晚岁讲学，从者数百人。"}, writertest.Piece{Text: "闽县多山，俗尚儒。"})
	v := &fixedVectors{hits: []vectors.Hit{
		{ChunkID: f.Huang.ChunkID, Score: 0.9},    // shares a place, never names him
		{ChunkID: f.Zhou.ChunkID, Score: 0.8},     // a neighbour's entry that names him
		{ChunkID: archive[0].ChunkID, Score: 0.7}, // names him by his art name only
		{ChunkID: archive[1].ChunkID, Score: 0.6}, // about the place
	}}
	r := biography.NewRetriever(f.G, f.Chunks, biography.WithVectors(v, v, 4))
	ctx := context.Background()
	rs, err := r.Retrieve(ctx, tenant, "林安")
	if err != nil {
		t.Fatal(err)
	}
	if len(v.queries) != 1 || v.queries[0] != "林安 子平 石溪" {
		t.Errorf("vector queries %q, want the names", v.queries)
	}
	got := refIDs(rs.References)
	want := []string{f.Zhou.ChunkID, f.Lin1.ChunkID, f.Lin2.ChunkID, archive[0].ChunkID, f.Note.ChunkID}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("references %v, want %v", refIDs(rs.References), want)
	}
	if rs.References[0].ChunkID != f.Zhou.ChunkID {
		t.Errorf("the chunk found by both paths is not first: %v", refIDs(rs.References))
	}
	for _, ref := range rs.References {
		if ref.ChunkID == archive[0].ChunkID && ref.Source != schemas.SourceVector {
			t.Errorf("vector-only hit has source %s", ref.Source)
		}
	}

	base, err := r.VectorBaseline(ctx, tenant, "林安", 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := refIDs(base); !slices.Equal(got, []string{f.Huang.ChunkID, f.Zhou.ChunkID, archive[0].ChunkID}) {
		t.Errorf("baseline %v", got)
	}
	if base[0].Score != float64(float32(0.9)) || base[0].Source != schemas.SourceVector || base[0].Text == "" {
		t.Errorf("baseline hit %+v", base[0])
	}
	if _, err := biography.NewRetriever(f.G, f.Chunks).VectorBaseline(ctx, tenant, "林安", 3); err == nil {
		t.Error("baseline without a vector store did not fail")
	}
}

type decisions map[string][]schemas.Decision

func (d decisions) Decisions(_ context.Context, _, subject string) ([]schemas.Decision, error) {
	return d[subject], nil
}

func TestRetrieveDecisions(t *testing.T) {
	f := writertest.NewFixture(t)
	ds := decisions{
		"林安": {{ReviewID: "r1", Relation: schemas.RelNativePlace, Value: "闽县"}},
		"石溪": {{ReviewID: "r2", Relation: schemas.RelDeath, Value: "六十二"}, {ReviewID: "r1"}},
	}
	r := biography.NewRetriever(f.G, f.Chunks, biography.WithDecisions(ds))
	rs, err := r.Retrieve(context.Background(), tenant, "石溪")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range rs.Decisions {
		ids = append(ids, d.ReviewID)
	}
	if !slices.Equal(ids, []string{"r1", "r2"}) {
		t.Errorf("decisions %v, want those under the name and under the subject asked for, once each", ids)
	}
}

// TestRetrieveMentions: chunks of other documents the entity linker
// resolved to the subject join the set as mentions, after its own chunks;
// a linked chunk of its own document does not come twice.
func TestRetrieveMentions(t *testing.T) {
	f := writertest.NewFixture(t)
	ctx := context.Background()
	lin := kg.PersonID("林安", f.Lin1.ChunkID)
	archive := f.Doc(t, "arch", writertest.Piece{Text: "是年林安过闽，见其弟子。"})
	rows := [][]string{
		{archive[0].ChunkID, archive[0].DocID, "1", "d1", `[{"entity":"` + lin + `","surface":"林安"}]`, lin, "林安\t1", "1"},
		{f.Lin2.ChunkID, f.Lin2.DocID, "1", "d1", `[{"entity":"` + lin + `","surface":"林安"}]`, lin, "林安\t1", "1"},
	}
	if ans, err := f.G.Link(ctx, tenant, rows); err != nil || ans[0] != "w\t"+lin+"\t" {
		t.Fatal(ans, err)
	}
	rs, err := biography.NewRetriever(f.G, f.Chunks).Retrieve(ctx, tenant, "林安")
	if err != nil {
		t.Fatal(err)
	}
	n := len(rs.References)
	if n == 0 || rs.References[n-1].ChunkID != archive[0].ChunkID || rs.References[n-1].Source != schemas.SourceMention {
		t.Fatalf("references %v: want the archive chunk last, as a mention", refIDs(rs.References))
	}
	count := 0
	for _, r := range rs.References {
		if r.ChunkID == f.Lin2.ChunkID {
			count++
			if r.Source != schemas.SourceEntity {
				t.Errorf("own chunk %s has source %s", r.ChunkID, r.Source)
			}
		}
	}
	if count != 1 {
		t.Errorf("own chunk listed %d times", count)
	}
}

// TestRetrieveMentionsAboutHimFirst: of the chunks the linker resolved to
// the subject, a note about him comes before another man's biography that
// names him once, whatever their document ids, so the bound on references
// cuts the passing mention first.
func TestRetrieveMentionsAboutHimFirst(t *testing.T) {
	f := writertest.NewFixture(t)
	ctx := context.Background()
	lin := kg.PersonID("林安", f.Lin1.ChunkID)
	life := f.Doc(t, "a-vol", writertest.Piece{Text: "王甲，字子乙，莆田人。少孤，力学。举万历八年进士，授行人。" +
		"擢御史，巡按浙江，劾罢贪吏数人。时林安为礼部尚书，甲与之议礼不合。出为知府，有惠政。卒于官。\n"})
	note := f.Doc(t, "z-note", writertest.Piece{Text: "林安晚年归里，筑石溪书院，讲学其中。\n"})
	var rows [][]string
	for _, c := range []schemas.Chunk{life[0], note[0]} {
		rows = append(rows, []string{c.ChunkID, c.DocID, "1", "d1", `[{"entity":"` + lin + `","surface":"林安"}]`, lin, "林安\t1", "1"})
	}
	if _, err := f.G.Link(ctx, tenant, rows); err != nil {
		t.Fatal(err)
	}
	all, err := biography.NewRetriever(f.G, f.Chunks).Retrieve(ctx, tenant, "林安")
	if err != nil {
		t.Fatal(err)
	}
	var mentions []string
	for _, r := range all.References {
		if r.Source == schemas.SourceMention {
			mentions = append(mentions, r.ChunkID)
		}
	}
	if !slices.Equal(mentions, []string{note[0].ChunkID, life[0].ChunkID}) {
		t.Fatalf("mentions %v; want the note first, then the biography", mentions)
	}
	cut, err := biography.NewRetriever(f.G, f.Chunks, biography.WithMaxReferences(len(all.References)-1)).Retrieve(ctx, tenant, "林安")
	if err != nil {
		t.Fatal(err)
	}
	ids := refIDs(cut.References)
	if !slices.Contains(ids, note[0].ChunkID) || slices.Contains(ids, life[0].ChunkID) {
		t.Errorf("bounded set %v; want the note kept and the passing mention cut", ids)
	}
}

// TestRetrieveLeavesOutAttachedEntries: 王乙's entry opens inside 李甲's
// (an attached person). The extractor gives every chunk of the entry a
// mention of 李甲, but 王乙's text is not 李甲's: his reference set keeps
// only the attached chunk that names him, and 王乙's keeps his own.
func TestRetrieveLeavesOutAttachedEntries(t *testing.T) {
	w := writertest.NewWorld(t)
	ctx := context.Background()
	texts := []string{
		"李甲，字子一，某县人。举进士，官至侍郎。\n",
		"王乙，字子二，某县人。少从甲学。\n",
		"乙后官至尚书，李甲闻而喜之。\n",
	}
	var cs []schemas.Chunk
	var doc string
	pos := 0
	for i, tx := range texts {
		n := len([]rune(tx))
		c := schemas.Chunk{ChunkID: "v9-000" + string(rune('0'+i)), DocID: "v9", Seq: i, Total: len(texts),
			Profile: "liezhuan", Method: "pattern", Entry: "李甲", EntryChunk: "v9-0000", Text: tx, Start: pos, End: pos + n}
		switch i {
		case 0:
			c.Subject = "李甲"
		case 1:
			c.Subject, c.SubEntry, c.Attached, c.Main = "王乙", "王乙", true, "李甲"
		case 2:
			c.SubEntry, c.Main = "王乙", "李甲"
		}
		cs = append(cs, c)
		doc += tx
		pos += n
	}
	if err := w.Chunks.PutDocument(ctx, writertest.Tenant, schemas.Document{DocID: "v9", Text: doc}, cs); err != nil {
		t.Fatal(err)
	}
	w.Apply(t, cs[0], writertest.Fact{Head: "李甲", Relation: schemas.RelCourtesyName, Tail: "子一", Evidence: "字子一"})
	w.Apply(t, cs[1], writertest.Fact{Head: "王乙", Relation: schemas.RelCourtesyName, Tail: "子二", Evidence: "字子二"})
	w.Apply(t, cs[2], writertest.Fact{Head: "王乙", Relation: schemas.RelOffice, Tail: "尚书", Evidence: "官至尚书"})
	r := biography.NewRetriever(w.G, w.Chunks)
	rs, err := r.Retrieve(ctx, writertest.Tenant, "李甲")
	if err != nil {
		t.Fatal(err)
	}
	if got := refIDs(rs.References); !slices.Equal(got, []string{"v9-0000", "v9-0002"}) {
		t.Errorf("李甲's references %v, want his entry chunk and the attached chunk that names him", got)
	}
	rs, err = r.Retrieve(ctx, writertest.Tenant, "王乙")
	if err != nil {
		t.Fatal(err)
	}
	if got := refIDs(rs.References); !slices.Contains(got, "v9-0001") || !slices.Contains(got, "v9-0002") {
		t.Errorf("王乙's references %v, want his own chunks", got)
	}
}
