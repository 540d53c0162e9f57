package redisdb_test

import (
	"context"
	"errors"
	"testing"

	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

func claim(t *testing.T, st *redisdb.Chunks, tenant, id, key, text string) (string, string) {
	t.Helper()
	status, other, err := st.ClaimVersion(context.Background(), tenant, id, key, schemas.TextHash(text))
	if err != nil {
		t.Fatal(err)
	}
	return status, other
}

func current(t *testing.T, st *redisdb.Chunks, tenant, key string) string {
	t.Helper()
	id, err := st.CurrentVersion(context.Background(), tenant, key)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestVersionClaims: a new text of a source supersedes the live version,
// the same text is "same", other text under an id is a conflict, a
// retracted id stays retracted, and a key whose version was retracted is
// taken by the next text without superseding anything. Tenants do not
// share keys.
func TestVersionClaims(t *testing.T) {
	ctx := context.Background()
	st := redisdb.NewChunks(redistest.Client(t))
	if s, o := claim(t, st, "t1", "v1", "a.txt", "one"); s != "new" || o != "" {
		t.Fatalf("first version: %s %q", s, o)
	}
	if s, o := claim(t, st, "t1", "v1", "a.txt", "one"); s != "same" || o != "" {
		t.Fatalf("same text again: %s %q", s, o)
	}
	if s, o := claim(t, st, "t1", "v1", "a.txt", "other"); s != "conflict" || o != schemas.TextHash("one") {
		t.Fatalf("other text under v1: %s %q", s, o)
	}
	if s, o := claim(t, st, "t1", "v2", "a.txt", "two"); s != "new" || o != "v1" {
		t.Fatalf("second version: %s %q, want new superseding v1", s, o)
	}
	if got := current(t, st, "t1", "a.txt"); got != "v2" {
		t.Fatalf("current of a.txt = %q, want v2", got)
	}
	// The run stopped before retracting v1: the same text again says so.
	if s, o := claim(t, st, "t1", "v2", "a.txt", "two"); s != "same" || o != "v1" {
		t.Fatalf("v2 again before v1's mark: %s %q, want same with v1 pending", s, o)
	}
	mark, found, err := st.MarkRetracted(ctx, "t1", schemas.Retraction{DocID: "v1", Reason: schemas.RetractSuperseded, SupersededBy: "v2", At: "2024-01-01T00:00:00Z"})
	if err != nil || !found || mark.Reason != schemas.RetractSuperseded || mark.SupersededBy != "v2" || mark.Source != "a.txt" {
		t.Fatalf("mark v1: %+v %v %v", mark, found, err)
	}
	if s, o := claim(t, st, "t1", "v2", "a.txt", "two"); s != "same" || o != "" {
		t.Fatalf("v2 again after v1's mark: %s %q", s, o)
	}
	if s, _ := claim(t, st, "t1", "v1", "a.txt", "one"); s != "retracted" {
		t.Fatalf("the retracted v1 again: %s, want retracted", s)
	}
	// A second mark keeps the first.
	again, found, err := st.MarkRetracted(ctx, "t1", schemas.Retraction{DocID: "v1", Reason: schemas.RetractRetracted, At: "2025-01-01T00:00:00Z"})
	if err != nil || !found || again != mark {
		t.Fatalf("second mark = %+v, want the first %+v", again, mark)
	}
	if _, found, err := st.MarkRetracted(ctx, "t1", schemas.Retraction{DocID: "nope", Reason: schemas.RetractRetracted}); found || err != nil {
		t.Fatalf("mark of an unknown document: found %v, %v", found, err)
	}
	if _, ok, _ := st.Document(ctx, "t1", "nope"); ok {
		t.Fatal("marking an unknown document created it")
	}
	// v2 retracted by a user: the next text of a.txt supersedes nothing.
	if _, _, err := st.MarkRetracted(ctx, "t1", schemas.Retraction{DocID: "v2", Reason: schemas.RetractRetracted, At: "2025-01-01T00:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	if s, o := claim(t, st, "t1", "v3", "a.txt", "three"); s != "new" || o != "" {
		t.Fatalf("after a retraction: %s %q, want new superseding nothing", s, o)
	}
	// Another tenant has its own keys and ids.
	if s, o := claim(t, st, "t2", "v1", "a.txt", "one"); s != "new" || o != "" {
		t.Fatalf("v1 in t2: %s %q", s, o)
	}
	marks, err := st.RetractedDocs(ctx, "t1", []string{"v1", "v2", "v3", "nope"})
	if err != nil || len(marks) != 2 || !marks["v1"] || !marks["v2"] {
		t.Fatalf("retracted in t1 = %v, %v; want v1 and v2", marks, err)
	}
	if marks, _ := st.RetractedDocs(ctx, "t2", []string{"v1"}); len(marks) != 0 {
		t.Fatalf("t2 sees t1's marks: %v", marks)
	}
}

// TestReleaseVersionRestoresTheKey: a claim whose document was never
// published is removed and the key points at its previous version again;
// a document stored since is never released.
func TestReleaseVersionRestoresTheKey(t *testing.T) {
	ctx := context.Background()
	st := redisdb.NewChunks(redistest.Client(t))
	claim(t, st, "t", "v1", "k", "one")
	claim(t, st, "t", "v2", "k", "two")
	if err := st.ReleaseVersion(ctx, "t", "v2", schemas.TextHash("two")); err != nil {
		t.Fatal(err)
	}
	if got := current(t, st, "t", "k"); got != "v1" {
		t.Fatalf("current after release = %q, want v1", got)
	}
	if _, ok, _ := st.Document(ctx, "t", "v2"); ok {
		t.Fatal("released claim left its record")
	}
	if err := st.PutDocument(ctx, "t", schemas.Document{DocID: "v1", Source: "k", Text: "one"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := st.ReleaseVersion(ctx, "t", "v1", schemas.TextHash("one")); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := st.Document(ctx, "t", "v1"); !ok {
		t.Fatal("release removed a stored document")
	}
	if got := current(t, st, "t", "k"); got != "v1" {
		t.Fatalf("current = %q, want v1", got)
	}
	claim(t, st, "t", "w1", "fresh", "x")
	if err := st.ReleaseVersion(ctx, "t", "w1", schemas.TextHash("x")); err != nil {
		t.Fatal(err)
	}
	if got := current(t, st, "t", "fresh"); got != "" {
		t.Fatalf("a released first version left its key at %q", got)
	}
}

// TestPutDocumentRefusesRetracted: chunks of a document marked retracted
// are refused with a permanent ErrRetracted and nothing is written.
func TestPutDocumentRefusesRetracted(t *testing.T) {
	ctx := context.Background()
	st := redisdb.NewChunks(redistest.Client(t))
	doc := schemas.Document{DocID: "d1", Source: "a.txt", Text: "甲乙"}
	claim(t, st, "t", "d1", "a.txt", doc.Text)
	if _, _, err := st.MarkRetracted(ctx, "t", schemas.Retraction{DocID: "d1", Reason: schemas.RetractRetracted, At: "2025-01-01T00:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	chunks := []schemas.Chunk{{ChunkID: "d1-0000", DocID: "d1", Total: 1, Start: 0, End: 2, Text: "甲乙"}}
	err := st.PutDocument(ctx, "t", doc, chunks)
	var r interface{ Retracted() bool }
	if !errors.Is(err, redisdb.ErrRetracted) || !pipeline.IsPermanent(err) || !errors.As(err, &r) || !r.Retracted() {
		t.Fatalf("put of a retracted document: %v, want a permanent ErrRetracted that says so", err)
	}
	docs, n, err := st.Counts(ctx, "t")
	if err != nil || docs != 0 || n != 0 {
		t.Fatalf("counts after a refused put = %d, %d, %v", docs, n, err)
	}
	if got, _ := st.Get(ctx, "t", []string{"d1-0000"}); len(got) != 0 {
		t.Fatalf("refused chunk stored: %+v", got)
	}
	info, ok, err := st.Document(ctx, "t", "d1")
	if err != nil || !ok || info.Retracted == "" || info.RetractReason != schemas.RetractRetracted || info.Stages["chunker"] != "" {
		t.Fatalf("document after a refused put = %+v %v %v", info, ok, err)
	}
}
