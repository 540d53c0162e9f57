package cli_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// `annalist generate topic` on the embedded services: a topic the corpus
// gives evidence for answers a sectioned page whose every sentence is
// cited; a topic with no evidence at all is a failed request, exit
// status 1, saying the subject is unknown.
func TestGenerateTopicExitCodes(t *testing.T) {
	src := t.TempDir()
	writeFile(t, src, "001.txt", volume)
	writeFile(t, src, "lee.md", "# Ann Lee\n\nAnn Lee was an English clerk and surveyor. She was born in York in 1802.\n\n"+
		"In 1830 she was appointed clerk to the Tyne Harbour Commission, which she served for twenty years.\n")
	data := t.TempDir()
	common := []string{"--data-dir", data, "--log-level", "error"}
	if _, stderr, code := run(t, append([]string{"ingest", src}, common...)...); code != 0 {
		t.Fatalf("ingest: exit %d\n%s", code, stderr)
	}

	stdout, stderr, code := run(t, append([]string{"generate", "topic", "万历十一年", "--json"}, common...)...)
	if code != 0 {
		t.Fatalf("generate topic 万历十一年: exit %d\n%s", code, stderr)
	}
	var page struct {
		Subject  string `json:"subject"`
		Kind     string `json:"kind"`
		Version  int    `json:"version"`
		Sections []struct {
			Title     string `json:"title"`
			Sentences []struct {
				Text      string `json:"text"`
				Citations []struct {
					ChunkID string `json:"chunk_id"`
					DocID   string `json:"doc_id"`
					Text    string `json:"text"`
				} `json:"citations"`
			} `json:"sentences"`
		} `json:"sections"`
	}
	if err := json.Unmarshal([]byte(stdout), &page); err != nil {
		t.Fatalf("page JSON: %v\n%s", err, stdout)
	}
	if page.Subject != "万历十一年" || page.Kind != "topic_page" || page.Version < 1 || len(page.Sections) == 0 {
		t.Fatalf("page %+v", page)
	}
	named := false
	for _, sec := range page.Sections {
		for _, s := range sec.Sentences {
			if len(s.Citations) == 0 || s.Citations[0].ChunkID == "" || s.Citations[0].DocID == "" {
				t.Errorf("section %s: sentence %q without a full citation", sec.Title, s.Text)
			}
			named = named || strings.Contains(s.Text, "甲乙")
		}
	}
	if !named {
		t.Errorf("the page of 万历十一年 does not name 甲乙, its jinshi: %s", stdout)
	}

	// Free text no entity names: found by vector search over the chunks,
	// each passage naming it copied with the sentence naming the person
	// its pronoun refers to.
	stdout, stderr, code = run(t, append([]string{"generate", "topic", "Tyne Harbour Commission", "--json"}, common...)...)
	if code != 0 {
		t.Fatalf("generate topic Tyne Harbour Commission: exit %d\n%s", code, stderr)
	}
	page.Sections = nil
	if err := json.Unmarshal([]byte(stdout), &page); err != nil {
		t.Fatalf("page JSON: %v\n%s", err, stdout)
	}
	var texts []string
	for _, sec := range page.Sections {
		for _, s := range sec.Sentences {
			if len(s.Citations) == 0 || !strings.Contains(s.Citations[0].Text, s.Text) {
				t.Errorf("sentence %q is not in its cited chunk", s.Text)
			}
			texts = append(texts, s.Text)
		}
	}
	if want := []string{"Ann Lee was an English clerk and surveyor.",
		"In 1830 she was appointed clerk to the Tyne Harbour Commission, which she served for twenty years."}; !slices.Equal(texts, want) {
		t.Errorf("free-text page = %q; want %q", texts, want)
	}

	stdout, stderr, code = run(t, append([]string{"generate", "topic", "无此题目之地", "--json"}, common...)...)
	if code != 1 || !strings.Contains(stderr, "unknown subject") {
		t.Fatalf("generate topic with no evidence: exit %d, stderr %q; want exit 1 saying unknown subject", code, stderr)
	}
	var status struct {
		State string `json:"state"`
	}
	if err := json.Unmarshal([]byte(stdout), &status); err != nil || status.State != "failed" {
		t.Fatalf("stdout %q (%v): want the failed request's status", stdout, err)
	}
}
