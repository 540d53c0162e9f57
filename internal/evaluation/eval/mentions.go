package eval

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	ahocorasick "github.com/petar-dambovaliev/aho-corasick"

	"github.com/annalist-dev/annalist/consumers/linker"
	"github.com/annalist-dev/annalist/internal/ports/graph"
	"github.com/annalist-dev/annalist/schemas"
)

// MentionSource is what the mention report reads: the stored chunks and
// the linker's records of each (infra/redisdb's Chunks and infra/kg's Store).
type MentionSource struct {
	// Chunks returns the stored chunks with the given ids.
	Chunks func(ctx context.Context, ids []string) ([]schemas.Chunk, error)
	// Links returns the mention list JSON stored for a chunk, "" if none.
	Links func(ctx context.Context, chunk string) (string, error)
	// EntryChunk returns the entry chunk of an entity ("" when it has none).
	EntryChunk func(ctx context.Context, entity string) (string, error)
	// Persons returns the ids of the graph's persons (for the recall
	// sample; nil: no recall sample).
	Persons func(ctx context.Context) ([]string, error)
	// SurfaceStats returns what the linker counted of every surface (for
	// the shares of names; nil: none reported).
	SurfaceStats func(ctx context.Context) (map[string]graph.SurfaceStat, error)
	// Candidates returns the person ids each surface may denote (the
	// shares are told apart by whether the surface is a person's own name
	// or only a courtesy or art name; nil: all are names).
	Candidates func(ctx context.Context, surfaces []string) ([][]string, error)
}

// SurfaceShares summarises, over the surfaces the linker counted, the
// share of names among their occurrences (linker.NameShare): the mean
// over the surfaces, which is what a profile's linker.name_prior (or, for
// the surfaces that are only courtesy or art names, linker.alias_prior)
// is set from (the share to expect of a surface not counted yet), and
// the quartiles.
type SurfaceShares struct {
	Surfaces int     `json:"surfaces"`
	Mean     float64 `json:"mean"`
	Q1       float64 `json:"q1"`
	Median   float64 `json:"median"`
	Q3       float64 `json:"q3"`
	// Aliases summarises the surfaces that are only courtesy or art
	// names the same way.
	Aliases *SurfaceShares `json:"aliases,omitempty"`
}

// sharesOf summarises shares.
func sharesOf(shares []float64) *SurfaceShares {
	slices.Sort(shares)
	sh := &SurfaceShares{Surfaces: len(shares)}
	if n := len(shares); n > 0 {
		sum := 0.0
		for _, x := range shares {
			sum += x
		}
		sh.Mean, sh.Q1, sh.Median, sh.Q3 = sum/float64(n), shares[n/4], shares[n/2], shares[3*n/4]
	}
	return sh
}

// MentionCounts counts mentions: every surface of a person the linker
// matched (one-character surfaces are never matched), those it resolved
// to one person, those it kept with several candidates, and those with
// one candidate it did not resolve for want of evidence; Reviewed are the
// undecided ones sent to the review queue. Outside are the resolved
// mentions in a chunk that is not part of the resolved person's own
// entry: the mentions that add chunks to a person.
type MentionCounts struct {
	Chunks     int `json:"chunks"`
	Linked     int `json:"chunks_with_mentions"`
	Mentions   int `json:"mentions"`
	Resolved   int `json:"resolved"`
	Ambiguous  int `json:"ambiguous"`
	Unresolved int `json:"unresolved_single"`
	Reviewed   int `json:"reviewed"`
	Outside    int `json:"resolved_outside_entry"`
}

// MentionSample is one mention shown for a person to judge: the surface
// in brackets with up to 15 characters of context either side.
type MentionSample struct {
	ChunkID    string  `json:"chunk_id"`
	Collection string  `json:"collection"`
	Surface    string  `json:"surface"`
	Entity     string  `json:"entity"`
	EntryChunk string  `json:"entity_entry_chunk,omitempty"`
	Score      float64 `json:"score"`
	Candidates int     `json:"candidates"`
	// Scores are the candidates' probabilities, best first (the
	// ambiguity sample).
	Scores  []linker.Candidate `json:"candidate_scores,omitempty"`
	Review  string             `json:"review,omitempty"`
	Context string             `json:"context"`
}

// RecallSample is one occurrence of a person's full name in a chunk, and
// what the linker made of it: the person it linked the span to ("" for
// none), its candidates, whether it was sent to review. Persons are the
// persons of that name (an occurrence of a name two persons bear is the
// ambiguity the linker must resolve).
type RecallSample struct {
	ChunkID    string   `json:"chunk_id"`
	Collection string   `json:"collection"`
	Surface    string   `json:"surface"`
	Persons    []string `json:"persons"`
	Linked     string   `json:"linked"`
	Score      float64  `json:"score"`
	Candidates int      `json:"candidates"`
	Review     string   `json:"review,omitempty"`
	Context    string   `json:"context"`
}

// MentionOptions says what Mentions samples, seeded by Seed: Sample
// resolved mentions outside the person's entry (precision), Recall
// occurrences of a graph person's full name in the chunks of
// RecallCollection (every collection when empty), and Ambiguous mentions
// of a surface several persons bear.
type MentionOptions struct {
	Sample, Recall, Ambiguous int
	RecallCollection          string
	Seed                      uint64
}

// MentionReport is the result of `annalist eval mentions`.
type MentionReport struct {
	MentionCounts
	Collections map[string]MentionCounts `json:"collections"`
	// Samples are drawn, seeded, from the resolved mentions outside the
	// person's own entry: a mention inside it is the entry naming its own
	// subject and says nothing about the linker's precision.
	Samples []MentionSample `json:"samples"`
	// Recall are occurrences of the graph's persons' full names, drawn
	// from every such occurrence, with what became of them; RecallOf
	// counts those the linker linked to a person of the name, by the
	// name's length (a person reads whether each is the person).
	Recall          []RecallSample  `json:"recall"`
	RecallPool      int             `json:"recall_pool"`
	RecallLinked    map[int]int     `json:"recall_linked_by_name_length"`
	RecallByLength  map[int]int     `json:"recall_sampled_by_name_length"`
	AmbiguousSample []MentionSample `json:"ambiguous"`
	Shares          *SurfaceShares  `json:"surface_shares,omitempty"`
}

// Mentions reads the linker's records of the chunks ids and reports their
// counts, with n sampled mentions (seed).
func Mentions(ctx context.Context, src MentionSource, ids []string, n int, seed uint64) (MentionReport, error) {
	return MentionsWith(ctx, src, ids, MentionOptions{Sample: n, Seed: seed})
}

// MentionsWith is Mentions with the recall and ambiguity samples.
func MentionsWith(ctx context.Context, src MentionSource, ids []string, opts MentionOptions) (MentionReport, error) {
	rep := MentionReport{Collections: map[string]MentionCounts{}}
	slices.Sort(ids)
	type cand struct {
		c     schemas.Chunk
		m     linker.Mention
		entry string
	}
	var pool, ambiguous []cand
	entries := map[string]string{}
	// For the recall sample: every occurrence of a person's name in the
	// chunks of the collection asked for.
	var names *personFinder
	if opts.Recall > 0 && src.Persons != nil {
		ps, err := src.Persons(ctx)
		if err != nil {
			return rep, err
		}
		names = newPersonFinder(ps)
	}
	type occurrence struct {
		c          schemas.Chunk
		start, end int
		surface    string
		ms         []linker.Mention
	}
	var occs []occurrence
	for lo := 0; lo < len(ids); lo += 500 {
		cs, err := src.Chunks(ctx, ids[lo:min(lo+500, len(ids))])
		if err != nil {
			return rep, err
		}
		for _, c := range cs {
			col := c.Collection
			cc := rep.Collections[col]
			cc.Chunks++
			rep.Chunks++
			js, err := src.Links(ctx, c.ChunkID)
			if err != nil {
				return rep, err
			}
			var ms []linker.Mention
			if js != "" {
				if err := json.Unmarshal([]byte(js), &ms); err != nil {
					return rep, fmt.Errorf("mentions of chunk %s: %w", c.ChunkID, err)
				}
			}
			if len(ms) > 0 {
				cc.Linked++
				rep.Linked++
			}
			for _, m := range ms {
				cc.Mentions++
				rep.Mentions++
				if m.Review != "" && !m.Decided {
					cc.Reviewed++
					rep.Reviewed++
				}
				switch {
				case m.Entity != "":
					cc.Resolved++
					rep.Resolved++
					e, ok := entries[m.Entity]
					if !ok {
						if e, err = src.EntryChunk(ctx, m.Entity); err != nil {
							return rep, err
						}
						entries[m.Entity] = e
					}
					if e == "" || c.EntryChunk != e {
						cc.Outside++
						rep.Outside++
						pool = append(pool, cand{c: c, m: m, entry: e})
					}
				case len(m.Candidates) > 1:
					cc.Ambiguous++
					rep.Ambiguous++
				default:
					cc.Unresolved++
					rep.Unresolved++
				}
				if len(m.Candidates) > 1 {
					ambiguous = append(ambiguous, cand{c: c, m: m})
				}
			}
			rep.Collections[col] = cc
			if names != nil && (opts.RecallCollection == "" || col == opts.RecallCollection) {
				for _, o := range names.find(c.Text) {
					occs = append(occs, occurrence{c: c, start: o.start, end: o.end, surface: o.surface, ms: ms})
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))
	byPlace := func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.c.ChunkID, b.c.ChunkID), cmp.Compare(a.m.Start, b.m.Start))
	}
	pool = draw(r, pool, opts.Sample)
	slices.SortFunc(pool, byPlace)
	for _, p := range pool {
		rep.Samples = append(rep.Samples, sampleOf(p.c, p.m, p.entry))
	}
	ambiguous = draw(r, ambiguous, opts.Ambiguous)
	slices.SortFunc(ambiguous, byPlace)
	for _, p := range ambiguous {
		s := sampleOf(p.c, p.m, "")
		s.Scores = p.m.Candidates
		rep.AmbiguousSample = append(rep.AmbiguousSample, s)
	}
	if src.SurfaceStats != nil {
		stats, err := src.SurfaceStats(ctx)
		if err != nil {
			return rep, err
		}
		var surfaces []string
		for sf, st := range stats {
			if st.Occurrences() > 0 {
				surfaces = append(surfaces, sf)
			}
		}
		slices.Sort(surfaces)
		alias := make([]bool, len(surfaces))
		if src.Candidates != nil {
			for lo := 0; lo < len(surfaces); lo += 500 {
				hi := min(lo+500, len(surfaces))
				cands, err := src.Candidates(ctx, surfaces[lo:hi])
				if err != nil {
					return rep, err
				}
				for i, ids := range cands {
					alias[lo+i] = aliasOnly(surfaces[lo+i], ids)
				}
			}
		}
		var names, aliases []float64
		for i, sf := range surfaces {
			if alias[i] {
				aliases = append(aliases, linker.NameShare(stats[sf]))
			} else {
				names = append(names, linker.NameShare(stats[sf]))
			}
		}
		sh := sharesOf(names)
		if len(aliases) > 0 {
			sh.Aliases = sharesOf(aliases)
		}
		rep.Shares = sh
	}
	rep.RecallPool = len(occs)
	occs = draw(r, occs, opts.Recall)
	slices.SortFunc(occs, func(a, b occurrence) int {
		return cmp.Or(cmp.Compare(a.c.ChunkID, b.c.ChunkID), cmp.Compare(a.start, b.start))
	})
	if names != nil {
		rep.RecallLinked, rep.RecallByLength = map[int]int{}, map[int]int{}
	}
	for _, o := range occs {
		s := RecallSample{ChunkID: o.c.ChunkID, Collection: o.c.Collection, Surface: o.surface,
			Persons: names.persons[o.surface], Context: window(o.c.Text, o.start, o.end, 15)}
		for _, m := range o.ms {
			if m.Start == o.start && m.End == o.end {
				s.Linked, s.Score, s.Candidates, s.Review = m.Entity, m.Score, len(m.Candidates), m.Review
			}
		}
		n := utf8.RuneCountInString(o.surface)
		rep.RecallByLength[n]++
		if s.Linked != "" && slices.Contains(s.Persons, s.Linked) {
			rep.RecallLinked[n]++
		}
		rep.Recall = append(rep.Recall, s)
	}
	return rep, nil
}

// aliasOnly reports whether surface is no person's own name among ids
// (person:<name>@<hash> or person:<name>) but some person's alias.
func aliasOnly(surface string, ids []string) bool {
	for _, id := range ids {
		name, _, _ := strings.Cut(strings.TrimPrefix(id, schemas.EntityPerson+":"), "@")
		if name == surface {
			return false
		}
	}
	return len(ids) > 0
}

// draw shuffles xs and keeps n of them.
func draw[T any](r *rand.Rand, xs []T, n int) []T {
	r.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
	return xs[:min(max(n, 0), len(xs))]
}

func sampleOf(c schemas.Chunk, m linker.Mention, entry string) MentionSample {
	return MentionSample{ChunkID: c.ChunkID, Collection: c.Collection, Surface: m.Surface, Entity: m.Entity,
		EntryChunk: entry, Score: m.Score, Candidates: len(m.Candidates), Review: m.Review,
		Context: window(c.Text, m.Start, m.End, 15)}
}

// personFinder finds the full names of the graph's persons anchored to an
// entry (person:<name>@<hash>) in a text, leftmost-longest, two
// characters or more; a "name" with punctuation in it is no name.
type personFinder struct {
	names   []string
	persons map[string][]string
	ac      ahocorasick.AhoCorasick
}

type nameAt struct {
	surface    string
	start, end int // runes
}

func newPersonFinder(ids []string) *personFinder {
	f := &personFinder{persons: map[string][]string{}}
	for _, id := range ids {
		name, _, ok := strings.Cut(strings.TrimPrefix(id, schemas.EntityPerson+":"), "@")
		if !ok || utf8.RuneCountInString(name) < 2 || strings.IndexFunc(name, unicode.IsPunct) >= 0 {
			continue
		}
		if _, seen := f.persons[name]; !seen {
			f.names = append(f.names, name)
		}
		f.persons[name] = append(f.persons[name], id)
	}
	slices.Sort(f.names)
	b := ahocorasick.NewAhoCorasickBuilder(ahocorasick.Opts{MatchKind: ahocorasick.LeftMostLongestMatch})
	f.ac = b.Build(f.names)
	return f
}

func (f *personFinder) find(text string) []nameAt {
	if len(f.names) == 0 {
		return nil
	}
	var out []nameAt
	for _, m := range f.ac.FindAll(text) {
		out = append(out, nameAt{surface: f.names[m.Pattern()], start: utf8.RuneCountInString(text[:m.Start()]),
			end: utf8.RuneCountInString(text[:m.End()])})
	}
	return out
}

// window is text[start:end] (runes) in brackets with up to k runes either
// side, line breaks shown as spaces.
func window(text string, start, end, k int) string {
	rs := []rune(text)
	if end > len(rs) || start > end {
		return ""
	}
	s := string(rs[max(0, start-k):start]) + "【" + string(rs[start:end]) + "】" + string(rs[end:min(len(rs), end+k)])
	return strings.Join(strings.Fields(s), " ")
}
