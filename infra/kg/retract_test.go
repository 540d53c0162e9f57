package kg_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/schemas"
)

// storeDoc stores a document of one chunk per text, as the chunker does.
func storeDoc(t *testing.T, st *redisdb.Chunks, tenant, doc string, texts ...string) {
	t.Helper()
	var cs []schemas.Chunk
	end := 0
	for i, tx := range texts {
		n := len([]rune(tx))
		cs = append(cs, schemas.Chunk{ChunkID: fmt.Sprintf("%s-%04d", doc, i), DocID: doc, Seq: i, Total: len(texts),
			Start: end, End: end + n, Text: tx, Profile: "liezhuan"})
		end += n
	}
	if err := st.PutDocument(context.Background(), tenant, schemas.Document{DocID: doc, Source: doc + ".txt", Text: strings.Join(texts, "")}, cs); err != nil {
		t.Fatal(err)
	}
}

func mark(t *testing.T, st *redisdb.Chunks, tenant string, r schemas.Retraction) {
	t.Helper()
	if r.At == "" {
		r.At = "2026-01-02T03:04:05Z"
	}
	if _, found, err := st.MarkRetracted(context.Background(), tenant, r); err != nil || !found {
		t.Fatalf("mark %s: %v %v", r.DocID, found, err)
	}
}

func applyTo(t *testing.T, s *kg.Store, tenant string, ts []schemas.Triplet) {
	t.Helper()
	if _, err := s.Apply(context.Background(), tenant, ts, nil); err != nil {
		t.Fatal(err)
	}
}

// archiveNotes is a second document about 叶向高 (resolved by his name,
// outside his entry): the native place his entry states too, an art name
// and an office nothing else names.
func archiveNotes() []schemas.Triplet {
	return triplets("db", "db-0000", "", "",
		fact{head: "叶向高", rel: schemas.RelNativePlace, tail: "福清", tailType: schemas.EntityPlace, start: 0, end: 5, evidence: "叶向高福清人"},
		fact{head: "叶向高", rel: schemas.RelArtName, tail: "台山", start: 6, end: 10, evidence: "号台山"},
		fact{head: "叶向高", rel: schemas.RelOffice, tail: "礼部尚书", tailType: schemas.EntityOffice, start: 11, end: 18, evidence: "拜礼部尚书"},
	)
}

func entry() []schemas.Triplet {
	return triplets("da", "da-0000", "叶向高", "da-0000",
		fact{head: "叶向高", rel: schemas.RelCourtesyName, tail: "进卿", start: 0, end: 7, evidence: "叶向高，字进卿"},
		fact{head: "叶向高", rel: schemas.RelNativePlace, tail: "福清", tailType: schemas.EntityPlace, start: 8, end: 11, evidence: "福清人"},
	)
}

func byEntity(ups []schemas.KGUpdate) map[string]schemas.KGUpdate {
	m := map[string]schemas.KGUpdate{}
	for _, u := range ups {
		m[u.EntityID] = u
	}
	return m
}

// TestRetractRemovesExactlyTheDocument: retracting a document takes back
// what its chunks added and nothing else — the fact another document
// states too keeps that provenance, the alias and the office only it gave
// go, the linker's records of its chunk go — and reports every entity
// that lost something; retracting the last document removes the person
// it created. A second run changes nothing and reports the same; the
// other tenant is untouched; a triplet of the document applied after the
// mark is skipped.
func TestRetractRemovesExactlyTheDocument(t *testing.T) {
	ctx := context.Background()
	s, c := newStore(t, kg.Config{})
	chunks := redisdb.NewChunks(c)
	for _, tn := range []string{tenant, "other"} {
		storeDoc(t, chunks, tn, "da", "叶向高，字进卿，福清人。")
		applyTo(t, s, tn, entry())
	}
	before := dumpTenant(t, c, tenant)
	for _, tn := range []string{tenant, "other"} {
		storeDoc(t, chunks, tn, "db", "叶向高福清人，号台山，拜礼部尚书。")
		applyTo(t, s, tn, archiveNotes())
	}
	person := kg.PersonID("叶向高", "da-0000")
	// The linker's records of the chunk.
	c.SAdd(ctx, "kg:{"+tenant+"}:linked:"+person, "db-0000")
	c.SAdd(ctx, "kg:{"+tenant+"}:chunklinked:db-0000", person)
	c.Set(ctx, "kg:{"+tenant+"}:chunklinks:db-0000", `[{"entity":"`+person+`","surface":"叶向高","start":0,"end":3,"score":1}]`, 0)
	fuqing := "kg:{" + tenant + "}:fact:" + person + "|" + schemas.RelNativePlace + "|place:福清"
	if n := c.SCard(ctx, fuqing).Val(); n != 2 {
		t.Fatalf("福清 is stated by %d edges, want 2 (one per document)", n)
	}
	otherBefore := dumpTenant(t, c, "other")

	r := schemas.Retraction{DocID: "db", Source: "db.txt", Reason: schemas.RetractRetracted}
	mark(t, chunks, tenant, r)
	ups, err := s.Retract(ctx, tenant, r)
	if err != nil {
		t.Fatal(err)
	}
	after := dumpTenant(t, c, tenant)
	if d := diff(before, after, "doc:{"+tenant+"}:db", "retract:{"+tenant+"}:db", "kg:{"+tenant+"}:surfaces:seq"); len(d) > 0 {
		t.Fatalf("retracting db left the tenant different from before db:\n%s", strings.Join(d, "\n"))
	}
	if !strings.Contains(after["doc:{"+tenant+"}:db"], "retracted=") {
		t.Fatalf("the tombstone is gone: %q", after["doc:{"+tenant+"}:db"])
	}
	if n := c.SCard(ctx, fuqing).Val(); n != 1 {
		t.Fatalf("福清 keeps %d edges, want the entry's one", n)
	}
	m := byEntity(ups)
	p, ok := m[person]
	if !ok || len(p.RemovedEdges) != 3 || !slices.Equal(p.RemovedAliases, []string{"台山"}) || !slices.Equal(p.RemovedChunks, []string{"db-0000"}) ||
		p.Reason != schemas.ReasonRetracted || !slices.Equal(p.DocIDs, []string{"db"}) || p.Name != "叶向高" || p.Type != schemas.EntityPerson {
		t.Fatalf("update of the person = %+v", p)
	}
	if o := m["office:礼部尚书"]; len(o.RemovedEdges) != 1 || len(o.RemovedChunks) != 1 {
		t.Fatalf("update of the office = %+v", o)
	}
	if pl := m["place:福清"]; len(pl.RemovedEdges) != 1 {
		t.Fatalf("update of the place = %+v", pl)
	}
	d := m[schemas.DocumentEntity("db")]
	if d.Type != schemas.EntityDocument || d.Name != "db.txt" || !slices.Equal(d.RemovedChunks, []string{"db-0000"}) {
		t.Fatalf("update of the document = %+v", d)
	}
	if ups[len(ups)-1].EntityID != schemas.DocumentEntity("db") {
		t.Fatalf("the document's update is not last: %+v", ups)
	}
	for _, u := range ups {
		if err := u.Validate(); err != nil {
			t.Fatalf("update %+v: %v", u, err)
		}
	}

	// Redelivered: nothing changes, the same report.
	again, err := s.Retract(ctx, tenant, r)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(again) != fmt.Sprint(ups) {
		t.Fatalf("second run reported\n%+v\nwant\n%+v", again, ups)
	}
	if d := diff(after, dumpTenant(t, c, tenant)); len(d) > 0 {
		t.Fatalf("second run changed:\n%s", strings.Join(d, "\n"))
	}
	// A triplet of db arriving late is skipped.
	applyTo(t, s, tenant, archiveNotes())
	if d := diff(after, dumpTenant(t, c, tenant)); len(d) > 0 {
		t.Fatalf("a triplet applied after the retraction changed:\n%s", strings.Join(d, "\n"))
	}
	if d := diff(otherBefore, dumpTenant(t, c, "other")); len(d) > 0 {
		t.Fatalf("the other tenant changed:\n%s", strings.Join(d, "\n"))
	}

	// The entry's document goes too: the person it created goes with its
	// names; nothing of the graph is left.
	ra := schemas.Retraction{DocID: "da", Reason: schemas.RetractSuperseded, SupersededBy: "da2"}
	mark(t, chunks, tenant, ra)
	ups, err = s.Retract(ctx, tenant, ra)
	if err != nil {
		t.Fatal(err)
	}
	left := dumpTenant(t, c, tenant)
	for k := range left {
		if strings.HasPrefix(k, "kg:") && k != "kg:{"+tenant+"}:surfaces:seq" {
			t.Errorf("key %s = %q left after every document was retracted", k, left[k])
		}
	}
	if p := byEntity(ups)[person]; !slices.Equal(p.DocIDs, []string{"da", "da2"}) || p.Reason != schemas.ReasonSuperseded || !slices.Equal(p.RemovedAliases, []string{"进卿"}) {
		t.Fatalf("update of the person for da = %+v", p)
	}
	if docs, n, err := chunks.Counts(ctx, tenant); err != nil || docs != 0 || n != 0 {
		t.Fatalf("counts after both retractions = %d docs, %d chunks, %v", docs, n, err)
	}
}

// TestRetractUnchunkedDocument: a document retracted before it was
// chunked reports only itself, with no chunks; an unknown one reports
// nothing and leaves nothing.
func TestRetractUnchunkedDocument(t *testing.T) {
	s, c := newStore(t, kg.Config{})
	ups, err := s.Retract(context.Background(), tenant, schemas.Retraction{DocID: "unknown", Reason: schemas.RetractRetracted})
	if err != nil || len(ups) != 0 || len(dumpTenant(t, c, tenant)) != 0 {
		t.Fatalf("unknown document: %+v, %v, keys %v", ups, err, dumpTenant(t, c, tenant))
	}
	chunks := redisdb.NewChunks(c)
	if st, _, err := chunks.ClaimVersion(context.Background(), tenant, "early", "early.txt", schemas.TextHash("x")); err != nil || st != "new" {
		t.Fatalf("claim: %s %v", st, err)
	}
	mark(t, chunks, tenant, schemas.Retraction{DocID: "early", Reason: schemas.RetractRetracted})
	ups, err = s.Retract(context.Background(), tenant, schemas.Retraction{DocID: "early", Reason: schemas.RetractRetracted})
	if err != nil {
		t.Fatal(err)
	}
	if len(ups) != 1 || ups[0].EntityID != "doc:early" || ups[0].Name != "early" || len(ups[0].RemovedChunks) != 0 {
		t.Fatalf("updates = %+v", ups)
	}
	if _, err := s.Retract(context.Background(), "bad tenant!", schemas.Retraction{DocID: "x"}); err == nil {
		t.Fatal("a bad tenant was accepted")
	}
}
