package kgwriter

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/internal/ports/graph"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// Disagreements reads, for new edges, the facts of the same head and
// relation with another value (infra/kg.Store.Disagreements).
type Disagreements interface {
	Disagreements(ctx context.Context, tenant string, edgeIDs []string) ([]graph.Edge, [][]graph.Edge, error)
}

// ReviewStore keeps the review items experts answer; OpenReview is
// idempotent (infra/pages.Store).
type ReviewStore interface {
	OpenReview(ctx context.Context, tenant string, r schemas.Review) error
}

// Option configures a Stage.
type Option func(*Stage)

// WithReviews makes the stage open a reference-conflict review when a new
// fact contradicts, on a relation with one true value, what another
// document says of the same entity. Reviews are stored through rs, then
// published on the reviews topic; profiles word the question (default
// profile.Default()).
func WithReviews(d Disagreements, rs ReviewStore, profiles *profile.Set) Option {
	return func(s *Stage) {
		s.disagree, s.reviews, s.profiles = d, rs, profiles
		if s.profiles == nil {
			s.profiles = profile.Default()
		}
	}
}

// singleValued are the relations a person has one true value of: two
// documents giving two values disagree, and an expert is asked which is
// right. Offices, relatives and art names accumulate instead.
var singleValued = map[string]bool{
	schemas.RelCourtesyName: true, schemas.RelNativePlace: true, schemas.RelJinshi: true,
	schemas.RelDeath: true, schemas.RelDeathAge: true, schemas.RelBirth: true,
}

// pending is a triplet whose new edges may contradict the graph.
type pending struct {
	input int
	edge  string
	name  string // the head entity's name, from the change report
}

// conflictReviews returns, per input, the review outputs opened by the new
// single-valued facts of one tenant's batch: the changes Apply reported
// name the edges each triplet added, and the graph says which facts of
// their heads hold another value.
func (s *Stage) conflictReviews(ctx context.Context, tenant string, changes [][]schemas.KGUpdate,
	inputs []int, ts []schemas.Triplet, out [][]pipeline.Output) error {
	if s.disagree == nil {
		return nil
	}
	var ps []pending
	for k, per := range changes {
		if !singleValued[ts[k].Relation] {
			continue
		}
		for _, u := range per {
			if u.Type != "" && u.Type != schemas.EntityPerson {
				continue
			}
			for _, e := range u.Edges {
				ps = append(ps, pending{input: inputs[k], edge: e, name: u.Name})
			}
		}
	}
	if len(ps) == 0 {
		return nil
	}
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.edge
	}
	edges, others, err := s.disagree.Disagreements(ctx, tenant, ids)
	if err != nil {
		return fmt.Errorf("read the facts %d new edges may contradict: %w", len(ids), err)
	}
	if len(edges) != len(ids) || len(others) != len(ids) {
		return fmt.Errorf("read the facts %d new edges may contradict: graph answered %d", len(ids), len(edges))
	}
	opened := map[string]bool{}
	for i, p := range ps {
		e := edges[i]
		if e.ID == "" || e.HeadID == "" || !singleValued[e.Relation] {
			continue
		}
		var against []graph.Edge
		for _, o := range others[i] {
			if o.DocID != e.DocID && o.Resolution != graph.ResolvedAmbiguous && contradicts(e, o) {
				against = append(against, o)
			}
		}
		if len(against) == 0 {
			continue
		}
		rv := s.review(p.name, e, against)
		if opened[rv.ReviewID] {
			continue
		}
		opened[rv.ReviewID] = true
		if err := rv.Validate(); err != nil {
			return pipeline.Permanent(fmt.Errorf("review of %s %s: %w", e.HeadID, e.Relation, err))
		}
		if s.reviews != nil {
			if err := s.reviews.OpenReview(ctx, tenant, rv); err != nil {
				return fmt.Errorf("open review %s: %w", rv.ReviewID, err)
			}
		}
		out[p.input] = append(out[p.input], pipeline.Output{Topic: topology.Reviews, Msg: rv,
			EventID: pipeline.ContentID("review", tenant, rv.ReviewID)})
	}
	return nil
}

// review is the reference-conflict review of a new edge against the facts
// it contradicts: one option per value, the graph's earlier values first.
// Its id is derived as the refconflict solver derives it (the subject's
// entity, the relation, the sorted values), so the disagreement opens one
// review whether the KG writer meets it or a draft does.
func (s *Stage) review(name string, e graph.Edge, against []graph.Edge) schemas.Review {
	if name == "" {
		name = e.Head
	}
	var opts []schemas.ReviewOption
	add := func(x graph.Edge) {
		if slices.ContainsFunc(opts, func(o schemas.ReviewOption) bool { return o.Value == x.Tail }) {
			return
		}
		opts = append(opts, schemas.ReviewOption{Value: x.Tail, ChunkID: x.ChunkID, Text: x.Evidence})
	}
	for _, o := range against {
		add(o)
	}
	add(e)
	vals := make([]string, len(opts))
	for i, o := range opts {
		vals[i] = o.Value
	}
	keys := slices.Sorted(slices.Values(vals))
	w := s.profiles.For("", text.Lang(e.Evidence+e.Tail)).Review
	return schemas.Review{
		ReviewID: "review-" + pipeline.ContentID(append([]string{e.HeadID, e.Relation}, keys...)...),
		Subject:  name,
		Relation: e.Relation,
		Question: w.Format(name, e.Relation, vals),
		Options:  opts,
		Status:   reviewOpen,
	}
}

// reviewOpen is the status of a review no expert has answered yet.
const reviewOpen = "open"

// contradicts reports whether two values of a single-valued relation of
// one entity cannot both hold. Values that say the same at two
// precisions agree: 福清 and 福建福清, 万历四十五年 and 万历四十五年八月,
// 万历中 and 万历十一年. Values that cannot be compared say nothing: an
// ancestral place (其先…人) beside a native one, a date beside an age, a
// year in Western digits beside an era year. Ages at death compare as
// numbers.
func contradicts(a, b graph.Edge) bool {
	x, y := a.Tail, b.Tail
	if x == "" || y == "" || x == y {
		return false
	}
	if a.Relation == schemas.RelDeathAge {
		// 七十一 and 七十有一 are one age; so are 七十一 and 71.
		m, okM := era.ParseNumeral(x)
		n, okN := era.ParseNumeral(y)
		return okM && okN && m != n
	}
	if hasHan(x) != hasHan(y) {
		return false
	}
	switch a.Relation {
	case schemas.RelNativePlace:
		if a.Qualifiers["ancestral"] != "" || b.Qualifiers["ancestral"] != "" {
			return false
		}
		return !strings.Contains(x, y) && !strings.Contains(y, x)
	case schemas.RelJinshi:
		if a.Qualifiers["approx"] != "" || b.Qualifiers["approx"] != "" {
			return a.Qualifiers["era"] != b.Qualifiers["era"]
		}
		return !strings.HasPrefix(x, y) && !strings.HasPrefix(y, x)
	case schemas.RelDeath, schemas.RelBirth:
		if timeTail(a) != timeTail(b) {
			return false
		}
		return !strings.HasPrefix(x, y) && !strings.HasPrefix(y, x)
	}
	return true
}

func timeTail(e graph.Edge) bool { return strings.HasPrefix(e.TailID, schemas.EntityTime+":") }

func hasHan(s string) bool { return strings.ContainsFunc(s, text.IsHan) }
