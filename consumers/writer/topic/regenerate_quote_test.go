package topic_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/consumers/writer/internal/writertest"
	"github.com/annalist-dev/annalist/consumers/writer/topic"
	"github.com/annalist-dev/annalist/infra/memory"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/lang/quotes"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// plainQuote plans as a curation that took a quotation in as a passage
// did: the quotation's chunk a plain reference (found by vector search)
// and an item of the first section, so its words are written as an
// unattributed sentence. It stands for the page a data directory kept
// from such a curation.
type plainQuote struct {
	c *topic.Curator
	q schemas.Chunk
}

func (p plainQuote) Plan(ctx context.Context, tenant string, r schemas.Request) (*schemas.ReferenceSet, error) {
	rs, err := p.c.Plan(ctx, tenant, r)
	if err != nil {
		return nil, err
	}
	rs.References = append(rs.References, schemas.Reference{ChunkID: p.q.ChunkID, DocID: p.q.DocID, Text: p.q.Text,
		Source: schemas.SourceVector})
	sec := &rs.Curation.Outline[0]
	sec.Items = append(sec.Items, schemas.OutlineItem{Chunk: p.q.ChunkID, Span: schemas.Span{End: len([]rune(p.q.Text))}})
	return rs, nil
}

// switchPlanner plans with its current planner.
type switchPlanner struct{ p kind.Planner }

func (s *switchPlanner) Plan(ctx context.Context, tenant string, r schemas.Request) (*schemas.ReferenceSet, error) {
	return s.p.Plan(ctx, tenant, r)
}

// topicPipe runs topic requests through the writer loop (incremental,
// on a real request memory and page store), the verifier as the app
// builds it judging every draft, and publishes each page as the
// assembler would: the page the next request regenerates.
type topicPipe struct {
	t     *testing.T
	mem   *memory.Requests
	pages *pages.Store
	h     pipeline.Handler
	check verifier.Checker
}

func newTopicPipe(t *testing.T, p kind.Planner) *topicPipe {
	t.Helper()
	c := redistest.Client(t)
	tp := &topicPipe{t: t, mem: memory.NewRequests(c, 0), pages: pages.New(c),
		check: verifier.WithQuotes(verifier.NewOffline(verifier.Config{}))}
	spec := topic.Spec(topic.NewCurator(nil, nil), topic.NewOffline(topic.OfflineConfig{}), nil)
	spec.Planner = p
	var kinds kind.Registry
	if err := kinds.Register(spec); err != nil {
		t.Fatal(err)
	}
	tp.h = writer.NewLoop(&kinds, tp.mem, writer.LoopConfig{Engine: kind.EngineOffline}).
		WithPrevious(tp.pages, func(err error) bool { return errors.Is(err, pages.ErrNotFound) }).Handler()
	return tp
}

func (p *topicPipe) run(r schemas.Request) schemas.Page {
	p.t.Helper()
	ctx := context.Background()
	queue := []schemas.Message{r}
	for len(queue) > 0 {
		m := queue[0]
		queue = queue[1:]
		outs, err := p.h(ctx, pipeline.Input{Meta: schemas.Meta{Tenant: tenant, EventID: "e"}, Msg: m})
		if err != nil {
			p.t.Fatalf("handle %T: %v", m, err)
		}
		for _, o := range outs {
			d := o.Msg.(schemas.Draft)
			if d.Final {
				return p.publish(d)
			}
			refs, err := p.mem.References(ctx, tenant, d.RequestID)
			if err != nil {
				p.t.Fatal(err)
			}
			v, err := p.check.Check(ctx, refs, d)
			if err != nil {
				p.t.Fatal(err)
			}
			if v.Status == schemas.StatusSupported {
				queue = append(queue, v)
				continue
			}
			queue = append(queue, schemas.Correction{RequestID: d.RequestID, Kind: d.Kind, Subject: d.Subject,
				Index: d.Index, Attempt: d.Attempt, Solver: "regenerate", Outcome: schemas.OutcomeDropped,
				ErrorType: v.ErrorType, Reason: "the verifier found it " + v.Status})
		}
	}
	p.t.Fatalf("request %s ended without a page", r.RequestID)
	return schemas.Page{}
}

func (p *topicPipe) publish(d schemas.Draft) schemas.Page {
	p.t.Helper()
	ctx := context.Background()
	refs, err := p.mem.References(ctx, tenant, d.RequestID)
	if err != nil {
		p.t.Fatal(err)
	}
	finals, err := p.mem.Sentences(ctx, tenant, d.RequestID)
	if err != nil {
		p.t.Fatal(err)
	}
	pg := schemas.Page{Subject: refs.Name, Kind: d.Kind, RequestID: d.RequestID, Sentences: []schemas.PageSentence{}}
	for _, f := range finals {
		if f.Dropped == "" {
			pg.Sentences = append(pg.Sentences, f.Sentence)
		}
	}
	stored, _, err := p.pages.Publish(ctx, tenant, pg)
	if err != nil {
		p.t.Fatal(err)
	}
	return stored
}

// citing are the page's sentences citing chunk.
func citing(p schemas.Page, chunk string) []string {
	var out []string
	for _, s := range p.Sentences {
		if slices.ContainsFunc(s.Citations, func(c schemas.Citation) bool { return c.ChunkID == chunk }) {
			out = append(out, s.Text)
		}
	}
	return out
}

// A page regenerated with quotations on a data directory whose page held
// the quotation's words as a plain sentence (from a curation that took
// the quotation in as a passage) publishes the attributed quotation, and
// keeps no unattributed copy of it.
func TestRegenerateWithQuotesOverAPlainCopy(t *testing.T) {
	w, mv := demoWorld(t)
	doc := schemas.Document{DocID: "quote-severn", Title: quotes.Title("Mara Quill", []string{"rivers"}),
		Collection: quotes.Collection, Profile: quotes.Profile, Lang: "en", Text: severnQuote,
		Metadata: map[string]string{quotes.MetaAuthor: "Mara Quill"}}
	q := w.Ingest(t, chunker.New(chunker.Config{}).Chunk, extractor.New(extractor.Config{}).Extract, []schemas.Document{doc})[0]
	vs, _ := hashEmbedder{}.Embed(context.Background(), []string{q.Text})
	mv.items[q.ChunkID] = vs[0]
	c := topic.NewCurator(w.G, w.Chunks, topic.WithVectors(hashEmbedder{}, mv, 30),
		topic.WithQuotes(&writertest.FixedQuotes{Qs: []topic.Quotation{{ChunkID: q.ChunkID, Text: q.Text, Author: q.Subject}}}))
	planner := &switchPlanner{p: plainQuote{c: c, q: q}}
	p := newTopicPipe(t, planner)
	const subject = "Severn Navigation Board"

	v1 := p.run(schemas.Request{RequestID: "r1", Kind: schemas.KindTopicPage, Subject: subject, Reason: schemas.RequestUser})
	if got := citing(v1, q.ChunkID); len(got) != 1 || got[0] != severnQuote {
		t.Fatalf("the first version's sentences citing the quotation: %q, want its words as a plain sentence", got)
	}

	planner.p = c
	v2 := p.run(schemas.Request{RequestID: "r2", Kind: schemas.KindTopicPage, Subject: subject, Reason: schemas.RequestUser, Quotes: true})
	want := quotes.Sentence("en", "Mara Quill", severnQuote)
	if got := citing(v2, q.ChunkID); len(got) != 1 || got[0] != want {
		t.Errorf("the regenerated version's sentences citing the quotation: %q, want only %q", got, want)
	}
	// The regeneration was incremental: the plain copy was there to keep,
	// and was removed.
	st, _, err := p.mem.State(context.Background(), tenant, "r2")
	if err != nil {
		t.Fatal(err)
	}
	if st.Counters[writer.CounterRemoved] < 1 {
		t.Errorf("regeneration counters %v: want the plain copy removed", st.Counters)
	}
	for _, s := range v2.Sentences {
		if s.Text != want && strings.Contains(s.Text, "keeps the river honest") {
			t.Errorf("the regenerated version keeps an unattributed copy: %q", s.Text)
		}
	}
}
