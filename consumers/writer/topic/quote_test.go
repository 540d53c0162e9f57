package topic_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/consumers/writer/internal/writertest"
	"github.com/annalist-dev/annalist/consumers/writer/topic"
	"github.com/annalist-dev/annalist/internal/kit/llmtest"
	"github.com/annalist-dev/annalist/internal/lang/quotes"
	"github.com/annalist-dev/annalist/schemas"
)

// quotePlan plans 闽县 (two dated sections and an undated one) asking for
// quotations of two.
func quotePlan(t *testing.T) (*schemas.ReferenceSet, *writertest.FixedQuotes) {
	t.Helper()
	f := writertest.NewFixture(t)
	q := &writertest.FixedQuotes{Qs: []topic.Quotation{writertest.Harbour, writertest.Oar}}
	c := topic.NewCurator(f.G, f.Chunks, topic.WithQuotes(q))
	rs, err := c.Plan(context.Background(), tenant, schemas.Request{Kind: schemas.KindTopicPage, Subject: "闽县", Quotes: true})
	if err != nil {
		t.Fatal(err)
	}
	return rs, q
}

// A request for quotations gets at most one per section, each quotation
// once on the page, as the section's last item; the quotation's chunk is
// a reference with its author; the offline drafter writes it verbatim
// and attributed, and the verifier supports it.
func TestQuotesPlannedOnePerSection(t *testing.T) {
	rs, q := quotePlan(t)
	if len(q.Queries()) != len(rs.Curation.Outline) {
		t.Errorf("%d queries for %d sections", len(q.Queries()), len(rs.Curation.Outline))
	}
	seen := map[string]bool{}
	for _, sec := range rs.Curation.Outline {
		n := 0
		for i, it := range sec.Items {
			if it.Relation != schemas.RelQuote {
				continue
			}
			n++
			if i != len(sec.Items)-1 || seen[it.Chunk] {
				t.Errorf("section %s: quotation %s not last or already on the page", sec.Title, it.Chunk)
			}
			seen[it.Chunk] = true
			r, ok := rs.Reference(it.Chunk)
			if !ok || r.Author != it.Name || r.Source != schemas.SourceQuote {
				t.Errorf("section %s: quotation %s's reference %+v", sec.Title, it.Chunk, r)
			}
		}
		if n > 1 {
			t.Errorf("section %s: %d quotations", sec.Title, n)
		}
	}
	if len(seen) != min(2, len(rs.Curation.Outline)) {
		t.Errorf("quotations on the page %v, want both (each once)", seen)
	}
	off := topic.NewOffline(topic.OfflineConfig{})
	check := verifier.WithQuotes(verifier.NewOffline(verifier.Config{}))
	quoted := 0
	for i := 0; ; i++ {
		d, done, err := off.Draft(context.Background(), rs, nil, i)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			break
		}
		v, err := check.Check(context.Background(), rs, d)
		if err != nil {
			t.Fatal(err)
		}
		if v.Status != schemas.StatusSupported {
			t.Errorf("draft %q is %s", d.Text, v.Status)
		}
		for _, qq := range []topic.Quotation{writertest.Harbour, writertest.Oar} {
			if d.Text == quotes.Sentence("zh", qq.Author, qq.Text) && len(d.Citations) == 1 && d.Citations[0] == qq.ChunkID {
				quoted++
			}
		}
	}
	if quoted != len(seen) {
		t.Errorf("%d quotation sentences drafted verbatim and cited, want %d", quoted, len(seen))
	}
}

// Without a quotation finder, a request for quotations is refused with
// ErrNoQuotes; a request without them never asks the finder.
func TestQuotesNeedAFinder(t *testing.T) {
	f := writertest.NewFixture(t)
	_, err := topic.NewCurator(f.G, f.Chunks).Plan(context.Background(), tenant,
		schemas.Request{Kind: schemas.KindTopicPage, Subject: "闽县", Quotes: true})
	if !errors.Is(err, topic.ErrNoQuotes) {
		t.Errorf("plan with quotes and no finder: %v, want ErrNoQuotes", err)
	}
	q := &writertest.FixedQuotes{Qs: []topic.Quotation{writertest.Harbour}}
	rs := plan(t, topic.NewCurator(f.G, f.Chunks, topic.WithQuotes(q)), "闽县")
	if len(q.Queries()) != 0 || strings.Contains(outline(rs), writertest.Harbour.Author) {
		t.Errorf("a request without quotations asked %d queries: %s", len(q.Queries()), outline(rs))
	}
}

// A scripted LLM drafter that alters the quotation by one word, or gives
// it to another author, is caught by the verifier and not published; the
// faithful one is published verbatim with its citation.
func TestQuotesLLMDrafterCaught(t *testing.T) {
	rs, _ := quotePlan(t)
	off := topic.NewOffline(topic.OfflineConfig{})
	at := -1
	for i, it := range off.Items(rs) {
		if it.Relation == schemas.RelQuote && it.Citations[0] == writertest.Harbour.ChunkID {
			at = i
		}
	}
	if at < 0 {
		t.Fatal("no quotation of the writertest.Harbour planned")
	}
	check := verifier.WithQuotes(verifier.NewOffline(verifier.Config{}))
	for _, tc := range []struct {
		name, text string
		cite       string
		want       string
	}{
		{"faithful", quotes.Sentence("zh", writertest.Harbour.Author, writertest.Harbour.Text), writertest.Harbour.ChunkID, schemas.StatusSupported},
		{"one word altered", quotes.Sentence("zh", writertest.Harbour.Author, strings.Replace(writertest.Harbour.Text, "promise", "pledge", 1)), writertest.Harbour.ChunkID, schemas.StatusNotSupported},
		{"another author", quotes.Sentence("zh", writertest.Oar.Author, writertest.Harbour.Text), writertest.Harbour.ChunkID, schemas.StatusNotSupported},
		{"another author, citing theirs", quotes.Sentence("zh", writertest.Oar.Author, writertest.Harbour.Text), writertest.Oar.ChunkID, schemas.StatusNotSupported},
		{"english form, altered", quotes.Sentence("en", writertest.Harbour.Author, strings.Replace(writertest.Harbour.Text, "sea", "ocean", 1)), writertest.Harbour.ChunkID, schemas.StatusNotSupported},
		{"paraphrase citing the quotation", "Mara Quill compared a writertest.Harbour to a promise.", writertest.Harbour.ChunkID, schemas.StatusNotSupported},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer, _ := json.Marshal(map[string]any{"text": tc.text, "citations": []string{tc.cite}})
			m := llmtest.Func(func(c llmtest.Call) (string, error) {
				if !strings.Contains(c.Prompt(), "the quotation of "+writertest.Harbour.Author) {
					return "", errors.New("the prompt does not ask for the quotation")
				}
				return string(answer), nil
			})
			d, done, err := newLLM(m, topic.LLMConfig{}).Draft(context.Background(), rs, nil, at)
			if err != nil || done {
				t.Fatalf("draft: done %v, %v", done, err)
			}
			v, err := check.Check(context.Background(), rs, d)
			if err != nil {
				t.Fatal(err)
			}
			if v.Status != tc.want {
				t.Fatalf("%q: %s (%+v), want %s", d.Text, v.Status, v.Facts, tc.want)
			}
			if tc.want == schemas.StatusSupported && (d.Text != tc.text || len(d.Citations) != 1 || d.Citations[0] != writertest.Harbour.ChunkID) {
				t.Errorf("published %q citing %v, want it verbatim citing %s", d.Text, d.Citations, writertest.Harbour.ChunkID)
			}
		})
	}
}
