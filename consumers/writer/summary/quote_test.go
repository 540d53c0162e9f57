package summary_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/consumers/writer/internal/writertest"
	"github.com/annalist-dev/annalist/consumers/writer/summary"
	"github.com/annalist-dev/annalist/internal/kit/llmtest"
	"github.com/annalist-dev/annalist/internal/lang/quotes"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/schemas"
)

// memStore holds discussions in memory (summary.Store).
type memStore map[string]schemas.Discussion

func (m memStore) Discussion(_ context.Context, _, id string) (schemas.Discussion, bool, error) {
	d, ok := m[id]
	return d, ok, nil
}

// quotePlan plans the harbor discussion (a background and two
// participants) asking for quotations of two.
func quotePlan(t *testing.T) (*schemas.ReferenceSet, *writertest.FixedQuotes) {
	t.Helper()
	d := harbor(t)
	q := &writertest.FixedQuotes{Qs: []kind.Quotation{writertest.Harbour, writertest.Oar}}
	p := summary.NewPlanner(memStore{d.ID: d}, summary.WithQuotes(q))
	rs, err := p.Plan(context.Background(), "t1", schemas.Request{Kind: schemas.KindDiscussionSummary, Subject: d.ID, Quotes: true})
	if err != nil {
		t.Fatal(err)
	}
	return rs, q
}

// checker is the verifier as the app builds it for summaries: quotations
// first, then the discussion's own checks.
func checker() verifier.Checker {
	return verifier.WithQuotes(verifier.WithDiscussions(verifier.NewOffline(verifier.Config{})))
}

// A request for quotations asks once per section, with what the section
// is about; each quotation is placed once, as the last sentence of its
// section, written verbatim, attributed and citing its chunk, and the
// verifier supports it.
func TestQuotesPlannedOnePerSection(t *testing.T) {
	rs, q := quotePlan(t)
	d := harbor(t)
	if len(q.Queries()) != 3 {
		t.Fatalf("%d queries, want 3 (the background and two participants)", len(q.Queries()))
	}
	if !strings.Contains(q.Queries()[0], "Riverside Stadium") || !strings.Contains(q.Queries()[1], d.Turns[0].Utterance[:20]) {
		t.Errorf("queries %q: want the background's paragraphs, then Person1's turns", q.Queries())
	}
	for _, qq := range []kind.Quotation{writertest.Harbour, writertest.Oar} {
		r, ok := rs.Reference(qq.ChunkID)
		if !ok || r.Source != schemas.SourceQuote || r.Author != qq.Author || r.Text != qq.Text {
			t.Errorf("reference of %s: %+v, %v", qq.ChunkID, r, ok)
		}
	}
	off := summary.NewOffline()
	items := off.Items(rs)
	check := checker()
	sections := map[string]string{summary.SectionBackground: writertest.Harbour.ChunkID, "Person1": writertest.Oar.ChunkID}
	quoted := map[string]bool{}
	for i, it := range items {
		d, done, err := off.Draft(context.Background(), rs, nil, i)
		if err != nil || done {
			t.Fatalf("draft %d: done %v, %v", i, done, err)
		}
		var qq *kind.Quotation
		for _, c := range []kind.Quotation{writertest.Harbour, writertest.Oar} {
			if len(d.Citations) == 1 && d.Citations[0] == c.ChunkID {
				qq = &c
			}
		}
		if qq == nil {
			continue
		}
		last := i == len(items)-1 || items[i+1].Section != it.Section
		if d.Text != quotes.Sentence("en", qq.Author, qq.Text) || sections[d.Section] != qq.ChunkID || !last || quoted[qq.ChunkID] {
			t.Errorf("sentence %d %q in section %s (last %v)", i, d.Text, d.Section, last)
		}
		quoted[qq.ChunkID] = true
		v, err := check.Check(context.Background(), rs, d)
		if err != nil {
			t.Fatal(err)
		}
		if v.Status != schemas.StatusSupported {
			t.Errorf("quotation %q is %s: %+v", d.Text, v.Status, v.Facts)
		}
	}
	if len(quoted) != 2 {
		t.Errorf("quotations drafted %v, want both", quoted)
	}
	if _, done, _ := off.Draft(context.Background(), rs, nil, len(items)); !done {
		t.Error("not done past the last item")
	}
}

// Without a finder, a request for quotations fails with kind.ErrNoQuotes;
// a request without them asks no query and gets the summary as it was.
func TestQuotesNeedAFinder(t *testing.T) {
	d := harbor(t)
	ctx := context.Background()
	_, err := summary.NewPlanner(memStore{d.ID: d}).Plan(ctx, "t1", schemas.Request{Kind: schemas.KindDiscussionSummary, Subject: d.ID, Quotes: true})
	if !errors.Is(err, kind.ErrNoQuotes) {
		t.Errorf("plan with quotes and no finder: %v, want ErrNoQuotes", err)
	}
	q := &writertest.FixedQuotes{Qs: []kind.Quotation{writertest.Harbour}}
	rs, err := summary.NewPlanner(memStore{d.ID: d}, summary.WithQuotes(q)).Plan(ctx, "t1",
		schemas.Request{Kind: schemas.KindDiscussionSummary, Subject: d.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Queries()) != 0 || rs.Curation != nil || len(rs.References) != len(d.Background)+len(d.Turns) {
		t.Errorf("a request without quotations: %d queries, curation %v, %d references", len(q.Queries()), rs.Curation, len(rs.References))
	}
	if got, want := len(summary.NewOffline().Items(rs)), len(summary.Plan(d)); got != want {
		t.Errorf("%d items without quotations, want the plan's %d", got, want)
	}
}

// A scripted LLM drafter that alters the quotation by one word, or gives
// it to another author, is caught by the verifier and not published; the
// faithful one is published verbatim with its citation.
func TestQuotesLLMDrafterCaught(t *testing.T) {
	rs, _ := quotePlan(t)
	for _, tc := range []struct {
		name, text string
		cite       string
		want       string
	}{
		{"faithful", quotes.Sentence("en", writertest.Harbour.Author, writertest.Harbour.Text), writertest.Harbour.ChunkID, schemas.StatusSupported},
		{"one word altered", quotes.Sentence("en", writertest.Harbour.Author, strings.Replace(writertest.Harbour.Text, "promise", "pledge", 1)), writertest.Harbour.ChunkID, schemas.StatusNotSupported},
		{"another author", quotes.Sentence("en", writertest.Oar.Author, writertest.Harbour.Text), writertest.Harbour.ChunkID, schemas.StatusNotSupported},
		{"another author, citing theirs", quotes.Sentence("en", writertest.Oar.Author, writertest.Harbour.Text), writertest.Oar.ChunkID, schemas.StatusNotSupported},
		{"chinese form, altered", quotes.Sentence("zh", writertest.Harbour.Author, strings.Replace(writertest.Harbour.Text, "sea", "ocean", 1)), writertest.Harbour.ChunkID, schemas.StatusNotSupported},
		{"paraphrase citing the quotation", "Mara Quill compared a harbour to a promise.", writertest.Harbour.ChunkID, schemas.StatusNotSupported},
		{"unquoted, citing a turn", writertest.Harbour.Text, schemas.TurnRef("harbor-derby", 0), schemas.StatusNotSupported},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := llmtest.Func(func(c llmtest.Call) (string, error) {
				if !strings.Contains(c.Prompt(), "the quotation of "+writertest.Harbour.Author) {
					return "", errors.New("the prompt does not ask for the quotation")
				}
				return quotedAnswer(tc.text, tc.cite), nil
			})
			l := summary.NewLLM(summary.LLMConfig{}, m, summary.NewOffline())
			items, err := l.Items(context.Background(), rs)
			if err != nil {
				t.Fatal(err)
			}
			at := -1
			for i, it := range items {
				if it.Section == summary.SectionBackground && it.Text == tc.text {
					at = i
				}
			}
			if at < 0 || at != lastOf(items, summary.SectionBackground) {
				t.Fatalf("the background's quotation is item %d of %+v", at, items)
			}
			d, done, err := l.Draft(context.Background(), rs, nil, at)
			if err != nil || done {
				t.Fatalf("draft: done %v, %v", done, err)
			}
			v, err := checker().Check(context.Background(), rs, d)
			if err != nil {
				t.Fatal(err)
			}
			if v.Status != tc.want {
				t.Fatalf("%q citing %v: %s (%+v), want %s", d.Text, d.Citations, v.Status, v.Facts, tc.want)
			}
			if tc.want == schemas.StatusSupported && (d.Text != tc.text || len(d.Citations) != 1 || d.Citations[0] != writertest.Harbour.ChunkID) {
				t.Errorf("published %q citing %v, want it verbatim citing %s", d.Text, d.Citations, writertest.Harbour.ChunkID)
			}
		})
	}
}

// An answer that leaves out a quotation the plan placed, or gives one for
// a section that has none, is rejected: asked again, then the summary is
// drafted offline.
func TestQuotesLLMAnswerStructure(t *testing.T) {
	rs, _ := quotePlan(t)
	faithful := quotes.Sentence("en", writertest.Oar.Author, writertest.Oar.Text)
	for _, tc := range []struct {
		name string
		qs   []map[string]any
		want string
	}{
		{"missing", []map[string]any{{"section": "Person1", "text": faithful, "citations": []string{writertest.Oar.ChunkID}}}, "is missing"},
		{"no such section", append(quotations(quotes.Sentence("en", writertest.Harbour.Author, writertest.Harbour.Text), writertest.Harbour.ChunkID),
			map[string]any{"section": "Person2", "text": faithful, "citations": []string{writertest.Oar.ChunkID}}), "no quotation is listed"},
		{"unknown citation", []map[string]any{{"section": summary.SectionBackground, "text": faithful, "citations": []string{"quotes-q9"}},
			{"section": "Person1", "text": faithful, "citations": []string{writertest.Oar.ChunkID}}}, "not a reference"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a map[string]any
			if err := json.Unmarshal([]byte(goodAnswer()), &a); err != nil {
				t.Fatal(err)
			}
			a["quotations"] = tc.qs
			bad, _ := json.Marshal(a)
			m := llmtest.Repeat(string(bad))
			_, err := summary.NewLLM(summary.LLMConfig{}, m, summary.NewOffline()).Items(context.Background(), rs)
			if err == nil || !strings.Contains(err.Error(), tc.want) || m.Calls() != 2 {
				t.Errorf("%d calls, %v; want two calls and a rejection saying %q", m.Calls(), err, tc.want)
			}
		})
	}
}

// quotations are the answer's quotations: the background's given as
// text citing cite, Person1's faithful.
func quotations(text, cite string) []map[string]any {
	return []map[string]any{
		{"section": summary.SectionBackground, "text": text, "citations": []string{cite}},
		{"section": "Person1", "text": quotes.Sentence("en", writertest.Oar.Author, writertest.Oar.Text), "citations": []string{writertest.Oar.ChunkID}},
	}
}

// quotedAnswer is goodAnswer with the quotations.
func quotedAnswer(text, cite string) string {
	var a map[string]any
	if err := json.Unmarshal([]byte(goodAnswer()), &a); err != nil {
		panic(err)
	}
	a["quotations"] = quotations(text, cite)
	out, err := json.Marshal(a)
	if err != nil {
		panic(err)
	}
	return string(out)
}

// lastOf is the index of section's last item.
func lastOf(items []summary.Item, section string) int {
	at := -1
	for i, it := range items {
		if it.Section == section {
			at = i
		}
	}
	return at
}
