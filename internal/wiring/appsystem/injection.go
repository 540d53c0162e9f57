// Package appsystem adapts a running app (internal/wiring/app) to the
// systems the evaluations measure (eval.InjectionSystem). The evaluations
// define what they measure as interfaces and import no wiring; this
// adapter, beside the app and apart from it, implements them, so that the
// stages' wiring links no evaluation. The commands and the evaluations' own
// tests share it.
package appsystem

import (
	"context"
	"fmt"
	"strings"

	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/schemas"
)

// Injection is the injection evaluation's system (eval.InjectionSystem)
// on a running app: the
// subjects are the persons of the knowledge graph with a biography entry
// of their own, biographies come from the app's retriever and the writer's
// offline drafter, and sentences are checked by App.CheckSentence — the
// verifier, router and solvers the pipeline runs.
type Injection struct {
	App    *app.App
	Tenant string
	// Drafter writes the biographies (default the offline drafter).
	Drafter writer.Drafter
	// MaxSentences bounds a biography (default writer.DefaultMaxSentences).
	MaxSentences int
}

var _ eval.InjectionSystem = (*Injection)(nil)

// Subjects lists the persons anchored to an entry that begins with them,
// whose name denotes no one else, by name.
func (s *Injection) Subjects(ctx context.Context) ([]string, error) {
	ids, err := s.App.KG.Nodes(ctx, s.Tenant, schemas.EntityPerson)
	if err != nil {
		return nil, fmt.Errorf("list persons: %w", err)
	}
	seen := map[string]bool{}
	var names []string
	for _, id := range ids {
		e, err := s.App.KG.Entity(ctx, s.Tenant, id)
		if err != nil {
			return nil, fmt.Errorf("read person %s: %w", id, err)
		}
		if e.EntryChunk == "" || !strings.Contains(id, "@") || e.FirstChunk != e.EntryChunk ||
			len(e.Homonyms) > 0 || seen[e.Name] {
			continue
		}
		seen[e.Name] = true
		names = append(names, e.Name)
	}
	return names, nil
}

// Biography drafts the subject's page sentence by sentence, each drafted
// after the ones before it as if they had been accepted.
func (s *Injection) Biography(ctx context.Context, subject string) (*schemas.ReferenceSet, []string, error) {
	r, err := s.App.Retriever()
	if err != nil {
		return nil, nil, err
	}
	refs, err := r.Retrieve(ctx, s.Tenant, subject)
	if err != nil {
		return nil, nil, fmt.Errorf("retrieve %s: %w", subject, err)
	}
	d := s.Drafter
	if d == nil {
		d = writer.NewOffline(writer.OfflineConfig{})
	}
	limit := s.MaxSentences
	if limit <= 0 {
		limit = writer.DefaultMaxSentences
	}
	var accepted []schemas.PageSentence
	var sents []string
	for k := range limit {
		dr, done, err := d.Draft(ctx, refs, accepted, k)
		if err != nil {
			return nil, nil, fmt.Errorf("draft sentence %d of %s: %w", k, subject, err)
		}
		if done {
			break
		}
		cites := make([]schemas.Citation, len(dr.Citations))
		for i, c := range dr.Citations {
			cites[i] = schemas.Citation{ChunkID: c}
		}
		accepted = append(accepted, schemas.PageSentence{Text: dr.Text, Status: schemas.StatusSupported,
			Citations: cites, Facts: dr.Facts})
		sents = append(sents, dr.Text)
	}
	return refs, sents, nil
}

// Check runs app.App.CheckSentence.
func (s *Injection) Check(ctx context.Context, refs *schemas.ReferenceSet, sentence string, correct bool) (eval.SentenceOutcome, error) {
	c, err := s.App.CheckSentence(ctx, s.Tenant, refs, sentence, correct)
	if err != nil {
		return eval.SentenceOutcome{}, err
	}
	return eval.SentenceOutcome{Verdict: c.Verdict, Solvers: c.Solvers, Corrected: c.Corrected,
		Dropped: c.Dropped, Reason: c.Reason}, nil
}
