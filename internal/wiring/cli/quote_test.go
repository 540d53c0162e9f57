package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// A small collection written for the tests: two quotations share a tag,
// one has words about the sea, one record has no author and one no
// content. The texts hold characters JSON escapes, so byte identity is
// tested.
const quoteFixture = `[
 {"_id": "q1", "content": "A harbour is a promise the land makes to the sea — and keeps \"every\" night.", "author": "Mara Quill", "tags": ["Sea", "Promise"]},
 {"_id": "q2", "content": "Patience is the oar that rows when the wind has gone home.", "author": "Tomas Ledger", "tags": ["Patience"]},
 {"_id": "q3", "content": "The tide asks nothing and is answered by every shore.", "author": "Mara Quill", "tags": ["Sea"]},
 {"_id": "q4", "content": "Orphan words nobody said.", "author": "", "tags": ["Sea"]},
 {"_id": "q5", "content": "  ", "author": "Tomas Ledger", "tags": ["Patience"]}
]`

type quoteJSON struct {
	Text    string   `json:"text"`
	Author  string   `json:"author"`
	Score   float64  `json:"score"`
	ChunkID string   `json:"chunk_id"`
	Tags    []string `json:"tags"`
}

// Ingested through the pipeline (stdin, -), the collection's valid
// quotations are found by a tag and by their words, verbatim and with
// their authors; the records without author or content are refused with
// the reason and the rest go on.
func TestQuoteIngestAndFind(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	out, stderr, code := runStdin(t, quoteFixture, "ingest", "--collection", "quotes", "-", "--data-dir", data, "--json", "--log-level", "error")
	if code != 0 {
		t.Fatalf("ingest: exit %d\nstderr %s", code, stderr)
	}
	var res struct {
		Documents int      `json:"documents"`
		Errors    []string `json:"errors"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("ingest stdout %q: %v", out, err)
	}
	if res.Documents != 3 || len(res.Errors) != 2 || !strings.Contains(res.Errors[0], "no author") || !strings.Contains(res.Errors[1], "no content") {
		t.Fatalf("ingest: %d documents, errors %q; want 3 and the two refused records with their reasons", res.Documents, res.Errors)
	}
	var fixture []struct {
		Content, Author string
	}
	if err := json.Unmarshal([]byte(quoteFixture), &fixture); err != nil {
		t.Fatal(err)
	}
	kb := map[string]string{}
	for _, r := range fixture[:3] {
		kb[r.Content] = r.Author
	}
	for _, tc := range []struct{ query, first string }{
		{"sea", ""},
		{"patience", fixture[1].Content},
		{"wind and oars", fixture[1].Content},
	} {
		out, stderr, code := run(t, "quote", tc.query, "--json", "--data-dir", data, "--log-level", "error")
		if code != 0 {
			t.Fatalf("quote %q: exit %d\nstderr %s", tc.query, code, stderr)
		}
		var got []quoteJSON
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("quote %q: stdout %q: %v", tc.query, out, err)
		}
		if len(got) == 0 {
			t.Fatalf("quote %q: nothing returned", tc.query)
		}
		for _, q := range got {
			author, ok := kb[q.Text]
			if !ok || author != q.Author || q.ChunkID == "" {
				t.Errorf("quote %q: %+v is not a quotation of the collection verbatim with its author", tc.query, q)
			}
		}
		if tc.first != "" && got[0].Text != tc.first {
			t.Errorf("quote %q: first %q, want %q", tc.query, got[0].Text, tc.first)
		}
		if tc.query == "sea" {
			for _, q := range got[:2] {
				if q.Author != "Mara Quill" {
					t.Errorf("quote sea: the two quotations tagged Sea should lead, got %+v", got)
				}
			}
		}
	}
	if _, _, code := run(t, "quote", "--data-dir", data); code != 2 {
		t.Errorf("quote without a topic: exit %d, want 2", code)
	}
	if _, _, code := run(t, "ingest", "--collection", "quotes", "a.json", "b.json", "--data-dir", data); code != 2 {
		t.Errorf("ingest quotes with two files: exit %d, want 2", code)
	}
}

// A file that is not a JSON array of quotations is refused and nothing is
// ingested.
func TestQuoteIngestRefusesNotAnArray(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "bad.json", `{"content": "x", "author": "y"}`)
	_, stderr, code := run(t, "ingest", "--collection", "quotes", f, "--data-dir", filepath.Join(dir, "data"), "--log-level", "error")
	if code != 1 || !strings.Contains(stderr, "JSON array") {
		t.Fatalf("exit %d, stderr %q; want 1 saying a JSON array is wanted", code, stderr)
	}
}
