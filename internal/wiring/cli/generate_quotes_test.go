package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// --quotes is for topic pages and discussion summaries: with another
// kind it is a usage error (exit 2) with its reason. Every process that
// runs the writer draws quotations from its own collection, so --no-wait
// (the request left to a running writer) takes them too.
func TestGenerateQuotesUsage(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	for _, args := range [][]string{
		{"generate", "biography", "叶向高", "--quotes"},
		{"generate", "answer", "who keeps the harbour?", "--quotes"},
	} {
		_, stderr, code := run(t, append(args, "--data-dir", data, "--log-level", "error")...)
		if code != 2 || !strings.Contains(stderr, "--quotes") {
			t.Errorf("%q: exit %d, stderr %q; want 2 naming --quotes", args, code, stderr)
		}
	}
}

// harbourDiscussion is a discussion about a harbour and the sea, which
// quotations of quoteFixture fit.
const harbourDiscussion = `{"id": "kingsport", "SBK": [{"paragraph_index": 1, "paragraph_text": "The harbour at Kingsport reopened after the storm, and the sea wall kept every boat safe through the night."}, ` +
	`{"paragraph_index": 2, "paragraph_text": "The mayor called the harbour a promise the town makes to the sea."}], ` +
	`"KGD": [{"participant": "Person1", "utterance": "The sea was wild but the harbour held every night."}, ` +
	`{"participant": "Person2", "utterance": "Patience paid off for the fishermen, who waited for the wind to go home."}]}` + "\n"

// `generate discussion ID --quotes` on a data directory holding the
// discussion's summary and a quotation collection publishes the summary
// again with at most one quotation per section: its author's words
// verbatim, attributed, citing the quotation's chunk.
func TestGenerateDiscussionWithQuotes(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if _, stderr, code := runStdin(t, quoteFixture, "ingest", "--collection", "quotes", "-", "--data-dir", data, "--log-level", "error"); code != 0 {
		t.Fatalf("ingest quotes: exit %d\n%s", code, stderr)
	}
	f := writeFile(t, dir, "harbour.jsonl", harbourDiscussion)
	if _, stderr, code := run(t, "ingest", "discussions", f, "--data-dir", data, "--log-level", "error"); code != 0 {
		t.Fatalf("ingest discussions: exit %d\n%s", code, stderr)
	}
	out, stderr, code := run(t, "generate", "discussion", "kingsport", "--quotes", "--json", "--data-dir", data, "--log-level", "error")
	if code != 0 {
		t.Fatalf("generate: exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
	var page struct {
		Sections []struct {
			Title     string `json:"title"`
			Sentences []struct {
				Text      string `json:"text"`
				Status    string `json:"status"`
				Citations []struct {
					ChunkID string `json:"chunk_id"`
					Text    string `json:"text"`
				} `json:"citations"`
			} `json:"sentences"`
		} `json:"sections"`
	}
	if err := json.Unmarshal([]byte(out), &page); err != nil {
		t.Fatalf("stdout %q: %v", out, err)
	}
	var fixture []struct{ Content, Author string }
	if err := json.Unmarshal([]byte(quoteFixture), &fixture); err != nil {
		t.Fatal(err)
	}
	quoted := 0
	seen := map[string]bool{}
	for _, sec := range page.Sections {
		n := 0
		for _, s := range sec.Sentences {
			for _, r := range fixture[:3] {
				if !strings.Contains(s.Text, r.Content) {
					continue
				}
				n++
				if s.Text != r.Author+` said: "`+r.Content+`"` || len(s.Citations) != 1 || s.Citations[0].Text != r.Content ||
					s.Status != "supported" || seen[r.Content] {
					t.Errorf("section %s: %q (%s) citing %+v; want %s's quotation, verbatim, once on the page", sec.Title, s.Text, s.Status, s.Citations, r.Author)
				}
				seen[r.Content] = true
			}
		}
		if n > 1 {
			t.Errorf("section %s has %d quotations", sec.Title, n)
		}
		quoted += n
	}
	if quoted == 0 {
		t.Errorf("no quotation on the page:\n%s", out)
	}
}
