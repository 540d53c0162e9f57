package linker

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	corpus "github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/internal/ports/graph"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// Graph is the knowledge graph the linker reads and writes; infra/kg's
// Store implements it.
type Graph interface {
	// SurfacesAfter returns the surfaces of the surface log after a
	// sequence number, with theirs; limit 0 means all.
	SurfacesAfter(ctx context.Context, tenant string, after int64, limit int) ([]string, []int64, error)
	// SurfaceSeqs returns the sequence number of each surface, 0 if none.
	SurfaceSeqs(ctx context.Context, tenant string, surfaces []string) ([]int64, error)
	// SurfaceInfo returns the person ids of each surface's alias set and
	// what the linker counted of each surface over the corpus.
	SurfaceInfo(ctx context.Context, tenant string, surfaces []string) ([][]string, []graph.SurfaceStat, error)
	// SurfaceChunks returns the chunks any of the surfaces was matched
	// in, in one round trip.
	SurfaceChunks(ctx context.Context, tenant string, surfaces []string) ([]string, error)
	// LinkBacklog returns chunks matched against a dictionary older than
	// below, oldest first.
	LinkBacklog(ctx context.Context, tenant string, below int64, limit int) ([]string, []int64, error)
	// RaiseLinkTarget records the sequence the backfill must bring every
	// linked chunk up to, unless higher, and returns the recorded one.
	RaiseLinkTarget(ctx context.Context, tenant string, seq int64) (int64, error)
	// LinkedAt returns, per chunk, the surface sequence its text was last
	// matched against (-1 for none) and the delivery token of the write
	// that last changed its links.
	LinkedAt(ctx context.Context, tenant string, chunks []string) ([]int64, []string, error)
	// BumpLinkVersion records chunks as matched up to version.
	BumpLinkVersion(ctx context.Context, tenant string, chunks []string, version int64) error
	// Link writes rows of links atomically (see infra/kg.Store.Link).
	Link(ctx context.Context, tenant string, rows [][]string) ([]string, error)
	// EntityEdges reads entities with their edges (not the chunks that
	// mention them), all in a few round trips; an unknown id has an error
	// wrapping graph.ErrNotFound in its place of errs.
	EntityEdges(ctx context.Context, tenant string, ids []string) (es []graph.Entity, errs []error, err error)
	// Degrees returns each entity's number of edges (as head or tail), a
	// stamp that moves whenever its edges change.
	Degrees(ctx context.Context, tenant string, ids []string) ([]int64, error)
}

// Chunks reads stored chunks.
type Chunks interface {
	Get(ctx context.Context, tenant string, ids []string) ([]schemas.Chunk, error)
}

// Reviews is the review queue (infra/pages.Store): a mention the chunk
// cannot decide is opened as a review, and a person's decision on it is
// read back when the chunk is linked again.
type Reviews interface {
	// OpenReview stores a review unless one of its id exists.
	OpenReview(ctx context.Context, tenant string, r schemas.Review) error
	// ReviewDecisions returns each review's decision, "" for an open or
	// unknown one.
	ReviewDecisions(ctx context.Context, tenant string, ids []string) ([]string, error)
}

// Config configures the stage. The zero value is usable.
type Config struct {
	// BackfillPage is the number of stored chunks read per round trip by
	// the backfill; 0 means 500.
	BackfillPage int
	// MaxBackfill bounds the stored chunks one batch's backfill scans; 0
	// means 20000. What is left stays below the new surfaces' sequence in
	// the backfill cursor and is scanned by the next batches.
	MaxBackfill int
	// Eras is the era table dates are read with; nil means era.Default().
	Eras *era.Table
	// Reviews, when set, receives the mentions the linker cannot decide
	// and gives back the decisions taken on them; without it they are
	// kept with their candidates only.
	Reviews Reviews
	// Profiles are the corpus profiles whose mention models and review
	// wording the linker reads; nil means profile.Default().
	Profiles *corpus.Set
}

// staleRetries bounds how often a batch's links are recomputed because a
// surface or a candidate arrived while they were computed; past it the
// batch fails as transient and the runtime retries it.
const staleRetries = 8

// Stage links chunks to the persons they name.
type Stage struct {
	g      Graph
	chunks Chunks
	cfg    Config

	mu     sync.Mutex
	dicts  map[string]*dictionary
	models map[string]readWith
	// known keeps the candidates' profiles by tenant and id with the
	// degree they were read at: a profile is derived from the entity's
	// edges alone, so it stands while the degree does, and a batch reads
	// the degrees (one round trip) instead of every candidate's entity.
	known map[string]map[string]knownProfile
}

// knownProfile is a cached profile and the degree it was read at.
type knownProfile struct {
	p      *profile
	degree int64
}

// maxKnown bounds the cached profiles of one tenant; the cache starts
// over beyond it.
const maxKnown = 200_000

// New returns the stage; g and chunks are required.
func New(g Graph, chunks Chunks, cfg Config) (*Stage, error) {
	if g == nil || chunks == nil {
		return nil, errors.New("new linker stage: graph and chunk store are required")
	}
	if cfg.BackfillPage < 0 || cfg.MaxBackfill < 0 {
		return nil, errors.New("new linker stage: negative backfill bound")
	}
	if cfg.BackfillPage == 0 {
		cfg.BackfillPage = 500
	}
	if cfg.MaxBackfill == 0 {
		cfg.MaxBackfill = 20000
	}
	if cfg.Eras == nil {
		cfg.Eras = era.Default()
	}
	if cfg.Profiles == nil {
		cfg.Profiles = corpus.Default()
	}
	return &Stage{g: g, chunks: chunks, cfg: cfg, dicts: map[string]*dictionary{}, models: map[string]readWith{}}, nil
}

// Handler returns the stage as a pipeline.BatchHandler.
func (s *Stage) Handler() pipeline.BatchHandler { return s.Handle }

type tenantWork struct {
	chunks  []schemas.Chunk
	inputs  []int // input of each chunk
	news    []string
	decided []string // chunks whose mentions a review decided
	lastUpd int      // last kg-update input naming new surfaces, -1 if none
	last    int      // last input of the tenant
}

// Handle links the chunks of a batch and backfills the new surfaces its
// kg-updates announce, then returns one kg-update per entity that gained
// (or lost) linked chunks. Only the graph is written; a chunk of a
// retracted document is skipped by the write script.
func (s *Stage) Handle(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
	var tenants []string
	work := map[string]*tenantWork{}
	for i, in := range ins {
		tenant := in.Tenant()
		if tenant == "" {
			tenant = schemas.DefaultTenant
		}
		w := work[tenant]
		if w == nil {
			w = &tenantWork{lastUpd: -1}
			work[tenant] = w
			tenants = append(tenants, tenant)
		}
		w.last = i
		if c, ok := pipeline.As[schemas.Chunk](in.Msg); ok {
			if c.ChunkID == "" {
				return nil, pipeline.Permanentf("link chunk input %s: no chunk id", in.Meta.EventID)
			}
			w.chunks = append(w.chunks, c)
			w.inputs = append(w.inputs, i)
			continue
		}
		u, ok := pipeline.As[schemas.KGUpdate](in.Msg)
		if !ok {
			return nil, pipeline.Permanentf("link input %s at %s/%d/%d: %T is neither a chunk nor a kg-update",
				in.Meta.EventID, in.Topic, in.Partition, in.Offset, in.Msg)
		}
		if n := newSurfaces(u); len(n) > 0 {
			w.news = append(w.news, n...)
			w.lastUpd = i
		}
		if u.Type == schemas.EntityReview && len(u.Chunks) > 0 {
			// A decision on a mention's review: its chunks are linked
			// again, and read it.
			w.decided = append(w.decided, u.Chunks...)
			w.lastUpd = i
		}
	}
	out := make([][]pipeline.Output, len(ins))
	for _, tenant := range tenants {
		w := work[tenant]
		tokens := make([]string, len(w.inputs))
		for k, i := range w.inputs {
			tokens[k] = ins[i].Meta.EventID
		}
		acc := newAccum()
		todo, err := s.unlinked(ctx, tenant, w.chunks, tokens)
		if err != nil {
			return nil, err
		}
		cs, toks := make([]schemas.Chunk, len(todo)), make([]string, len(todo))
		for j, k := range todo {
			cs[j], toks[j] = w.chunks[k], tokens[k]
		}
		if err := s.linkChunks(ctx, tenant, cs, toks, func(j int, r linkResult) {
			acc.add(r, w.inputs[todo[j]])
		}); err != nil {
			return nil, err
		}
		by := w.last
		if w.lastUpd >= 0 {
			by = w.lastUpd
		}
		if err := s.backfill(ctx, tenant, w.news, ins[by].Meta.EventID, func(r linkResult) {
			acc.add(r, by)
		}); err != nil {
			return nil, err
		}
		slices.Sort(w.decided)
		if err := s.relink(ctx, tenant, slices.Compact(w.decided), ins[by].Meta.EventID, func(r linkResult) {
			acc.add(r, by)
		}); err != nil {
			return nil, err
		}
		for _, m := range acc.updates() {
			out[m.input] = append(out[m.input], pipeline.Output{
				Topic: topology.KGUpdates, Msg: m.update, EventID: UpdateEventID(tenant, m.update),
			})
		}
		for _, r := range acc.reviews {
			out[r.input] = append(out[r.input], pipeline.Output{
				Topic: topology.Reviews, Msg: r.review, EventID: pipeline.ContentID("review", tenant, r.review.ReviewID),
			})
		}
	}
	return out, nil
}

// unlinked returns the indices of the chunks to link: those not yet
// matched against the whole surface log. A chunk delivered again (the
// same document published twice) was already linked against every name
// the graph knows, so linking it again could only change its mentions by
// the drift of the corpus counts, which a redelivery must not do; but a
// redelivery of the delivery that last changed its links is linked again,
// so that the write script announces that change once more (its first
// delivery may have died before producing it).
func (s *Stage) unlinked(ctx context.Context, tenant string, cs []schemas.Chunk, tokens []string) ([]int, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	d, err := s.dict(ctx, tenant)
	if err != nil {
		return nil, fmt.Errorf("link chunks of tenant %s: %w", tenant, err)
	}
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ChunkID
	}
	vers, applied, err := s.g.LinkedAt(ctx, tenant, ids)
	if err != nil {
		return nil, fmt.Errorf("link chunks of tenant %s: %w", tenant, err)
	}
	var out []int
	for i := range cs {
		if vers[i] >= 0 && vers[i] >= d.last && applied[i] != tokens[i] {
			continue
		}
		out = append(out, i)
	}
	return out, nil
}

// newSurfaces are the surfaces an update makes name a person: the name of
// a person created and the aliases added. The linker's own updates carry
// neither, so they never trigger a backfill.
func newSurfaces(u schemas.KGUpdate) []string {
	if u.Type != schemas.EntityPerson && !strings.HasPrefix(u.EntityID, schemas.EntityPerson+":") {
		return nil
	}
	var out []string
	if u.Created && u.Name != "" {
		out = append(out, u.Name)
	}
	return append(out, u.Aliases...)
}

// dict returns the tenant's dictionary brought up to date with the
// surface log.
func (s *Stage) dict(ctx context.Context, tenant string) (*dictionary, error) {
	s.mu.Lock()
	d := s.dicts[tenant]
	if d == nil {
		d = &dictionary{}
		s.dicts[tenant] = d
	}
	s.mu.Unlock()
	surfaces, seqs, err := s.g.SurfacesAfter(ctx, tenant, d.last, 0)
	if err != nil {
		return nil, err
	}
	if len(surfaces) > 0 || !d.ready {
		d.add(surfaces, seqs)
	}
	return d, nil
}

type linkResult struct {
	doc, chunk     string
	added, removed []string
	// reviews are the chunk's mentions opened for review.
	reviews []schemas.Review
}

// linkChunks matches, resolves and writes the links of cs, recomputing
// those the write script finds stale.
func (s *Stage) linkChunks(ctx context.Context, tenant string, cs []schemas.Chunk, tokens []string, done func(int, linkResult)) error {
	todo := make([]int, len(cs))
	for i := range todo {
		todo[i] = i
	}
	for try := 0; len(todo) > 0; try++ {
		if try == staleRetries {
			return fmt.Errorf("link %d chunks of tenant %s: the dictionary kept changing under %d attempts", len(todo), tenant, try)
		}
		d, err := s.dict(ctx, tenant)
		if err != nil {
			return fmt.Errorf("link chunks of tenant %s: %w", tenant, err)
		}
		batch := make([]schemas.Chunk, len(todo))
		toks := make([]string, len(todo))
		for j, i := range todo {
			batch[j], toks[j] = cs[i], tokens[i]
		}
		rows, reviews, err := s.rows(ctx, tenant, d, batch, toks)
		if err != nil {
			return fmt.Errorf("link chunks of tenant %s: %w", tenant, err)
		}
		stale, err := s.advance(ctx, tenant, d, batch, rows)
		if err != nil {
			return fmt.Errorf("link chunks of tenant %s: %w", tenant, err)
		}
		var send [][]string
		for j, row := range rows {
			if !stale[j] {
				send = append(send, row)
			}
		}
		sent, err := s.g.Link(ctx, tenant, send)
		if err != nil {
			return err
		}
		ans := make([]string, len(rows))
		for j := range rows {
			if stale[j] {
				ans[j] = "s"
			} else {
				ans[j], sent = sent[0], sent[1:]
			}
		}
		var again []int
		for j, a := range ans {
			i := todo[j]
			switch {
			case a == "s":
				again = append(again, i)
			case a == "r":
			case strings.HasPrefix(a, "w\t"):
				f := strings.Split(a, "\t")
				r := linkResult{doc: cs[i].DocID, chunk: cs[i].ChunkID, added: list(f, 1), removed: list(f, 2)}
				if reviews != nil {
					r.reviews = reviews[j]
					for _, rv := range r.reviews {
						if err := s.cfg.Reviews.OpenReview(ctx, tenant, rv); err != nil {
							return fmt.Errorf("open review %s: %w", rv.ReviewID, err)
						}
					}
				}
				done(i, r)
			default:
				return fmt.Errorf("link chunk %s: script answered %q", cs[i].ChunkID, a)
			}
		}
		todo = again
	}
	return nil
}

// advance brings the rows of cs, matched against the dictionary at
// version v, up to the surface log as it is now, so that the write script
// checks only the surfaces logged while it is called: the dictionary
// reads what was logged after v, a chunk that holds such a surface of a
// person is stale (reported true: match it again), and every other row
// takes the new version. The script's own check reads the chunk's text
// against each surface logged after a row's version, in Redis, which
// blocks every other client while it runs; during a bulk ingestion that
// is hundreds of surfaces per batch.
func (s *Stage) advance(ctx context.Context, tenant string, d *dictionary, cs []schemas.Chunk, rows [][]string) ([]bool, error) {
	stale := make([]bool, len(cs))
	from := d.last
	if _, err := s.dict(ctx, tenant); err != nil {
		return nil, err
	}
	if d.last == from {
		return stale, nil
	}
	newer := make([][]string, len(cs))
	var surfaces []string
	for i, c := range cs {
		newer[i] = d.newer(c.Text, from)
		for _, sf := range newer[i] {
			if !slices.Contains(surfaces, sf) {
				surfaces = append(surfaces, sf)
			}
		}
	}
	cands, _, err := s.g.SurfaceInfo(ctx, tenant, surfaces)
	if err != nil {
		return nil, err
	}
	person := map[string]bool{}
	for i, sf := range surfaces {
		person[sf] = len(cands[i]) > 0
	}
	version := strconv.FormatInt(d.last, 10)
	for i := range cs {
		stale[i] = slices.ContainsFunc(newer[i], func(sf string) bool { return person[sf] })
		if !stale[i] {
			rows[i][2] = version
		}
	}
	return stale, nil
}

func list(f []string, i int) []string {
	if i >= len(f) || f[i] == "" {
		return nil
	}
	return strings.Split(f[i], ",")
}

// rows computes the link rows of cs against d, and the reviews of the
// mentions the chunks cannot decide (per chunk).
func (s *Stage) rows(ctx context.Context, tenant string, d *dictionary, cs []schemas.Chunk, tokens []string) ([][]string, [][]schemas.Review, error) {
	found := make([][]match, len(cs))
	var surfaces []string
	seen := map[string]bool{}
	add := func(sf string) {
		if !seen[sf] {
			seen[sf] = true
			surfaces = append(surfaces, sf)
		}
	}
	own := make([]map[string]string, len(cs))
	for i, c := range cs {
		found[i] = d.find(c.Text)
		for _, m := range found[i] {
			add(m.surface)
		}
		// The persons the entry is about, when the chunk matched one's
		// given name: their full names' candidates are read too.
		own[i] = s.givenNames(c, found[i])
		for _, full := range own[i] {
			add(full)
		}
	}
	cands, stats, err := s.g.SurfaceInfo(ctx, tenant, surfaces)
	if err != nil {
		return nil, nil, err
	}
	profiles, err := s.profiles(ctx, tenant, cands)
	if err != nil {
		return nil, nil, err
	}
	info := make(map[string]surfaceInfo, len(surfaces))
	for i, sf := range surfaces {
		info[sf] = surfaceInfo{cands: cands[i], stat: stats[i]}
	}
	res := make([]resolved, len(cs))
	var open []string
	for i, c := range cs {
		res[i] = s.resolve(tenant, c, found[i], info, profiles, own[i])
		for _, m := range res[i].mentions {
			if m.Review != "" {
				open = append(open, m.Review)
			}
		}
	}
	decisions := map[string]string{}
	if len(open) > 0 && s.cfg.Reviews != nil {
		slices.Sort(open)
		open = slices.Compact(open)
		ds, err := s.cfg.Reviews.ReviewDecisions(ctx, tenant, open)
		if err != nil {
			return nil, nil, err
		}
		for k, id := range open {
			if k < len(ds) && ds[k] != "" {
				decisions[id] = ds[k]
			}
		}
	}
	version := strconv.FormatInt(d.last, 10)
	rows := make([][]string, len(cs))
	reviews := make([][]schemas.Review, len(cs))
	for i, c := range cs {
		ms := res[i].mentions
		for k := range ms {
			if ms[k].Review != "" {
				reviews[i] = s.applyDecision(c, &ms[k], decisions, reviews[i], profiles)
			}
		}
		var ents []string
		for _, m := range ms {
			if m.Entity != "" && !slices.Contains(ents, m.Entity) {
				ents = append(ents, m.Entity)
			}
		}
		slices.Sort(ents)
		js := ""
		if len(ms) > 0 {
			b, err := json.Marshal(ms)
			if err != nil {
				return nil, nil, err
			}
			js = string(b)
		}
		rows[i] = []string{c.ChunkID, c.DocID, version, tokens[i], js, strings.Join(ents, "\t"), res[i].lines, ""}
	}
	if s.cfg.Reviews == nil {
		return rows, nil, nil
	}
	return rows, reviews, nil
}

// surfaceInfo is what a batch read of a surface: its person candidates
// and the counts of its link prior.
type surfaceInfo struct {
	cands []string
	stat  graph.SurfaceStat
}

// resolved is a chunk's mentions and the lines its write records of each
// matched surface (see infra/kg.Store.Link).
type resolved struct {
	mentions []Mention
	lines    string
}

// profiles reads the candidates' profiles: those cached at their current
// degree from the cache, the others in one batch.
func (s *Stage) profiles(ctx context.Context, tenant string, cands [][]string) (map[string]*profile, error) {
	var ids []string
	have := map[string]bool{}
	for _, l := range cands {
		for _, id := range l {
			if !have[id] {
				have[id] = true
				ids = append(ids, id)
			}
		}
	}
	out := make(map[string]*profile, len(ids))
	degrees, err := s.g.Degrees(ctx, tenant, ids)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.known == nil {
		s.known = map[string]map[string]knownProfile{}
	}
	known := s.known[tenant]
	if known == nil || len(known) > maxKnown {
		known = map[string]knownProfile{}
		s.known[tenant] = known
	}
	var stale []string
	var staleDegrees []int64
	for i, id := range ids {
		if k, ok := known[id]; ok && k.degree == degrees[i] {
			out[id] = k.p
			continue
		}
		stale = append(stale, id)
		staleDegrees = append(staleDegrees, degrees[i])
	}
	s.mu.Unlock()
	es, errs, err := s.g.EntityEdges(ctx, tenant, stale)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, id := range stale {
		if errors.Is(errs[i], graph.ErrNotFound) {
			continue
		}
		if errs[i] != nil {
			return nil, errs[i]
		}
		p := newProfile(es[i], s.cfg.Eras)
		out[id] = p
		known[id] = knownProfile{p: p, degree: staleDegrees[i]}
	}
	return out, nil
}

// resolve turns a chunk's matches into mentions, and lists the matched
// surfaces with the number of person candidates seen (for the write
// script's staleness check) and what the chunk adds to each surface's
// counts (its occurrences by the bin of the mention model's reading).
func (s *Stage) resolve(tenant string, c schemas.Chunk, found []match, info map[string]surfaceInfo, profiles map[string]*profile, own map[string]string) resolved {
	rs := []rune(c.Text)
	cc := chunkContext{c: c, rs: rs, markers: s.profileOf(c).AliasMarkers}
	model := s.model(c)
	grams := NewCounts(rs)
	for _, dt := range s.cfg.Eras.Find(c.Text) {
		if dt.Gregorian != 0 {
			cc.years = append(cc.years, dt.Gregorian)
		}
	}
	// Candidates per match: anchored persons first; a surface's own
	// unanchored person only when no anchored person bears it (and has a
	// courtesy or art name: the extractor also makes persons of phrases
	// it could not resolve, which only an alias says are persons).
	per := make([][]string, len(found))
	var unique []string
	type count struct {
		n    int
		bins [graph.LLRBins]int
	}
	counts := map[string]*count{}
	var order []string
	for i, m := range found {
		all := info[m.surface].cands
		if full, ok := own[m.surface]; ok {
			// The given name of a person the entry is about is his too.
			for _, id := range info[full].cands {
				if p := profiles[id]; p != nil && p.entryChunk == c.EntryChunk && !slices.Contains(all, id) {
					all = append(slices.Clone(all), id)
				}
			}
		}
		if len(all) == 0 {
			continue
		}
		var l []string
		for _, id := range all {
			if anchored(id) && profiles[id] != nil {
				l = append(l, id)
			}
		}
		if len(l) == 0 {
			for _, id := range all {
				if p := profiles[id]; p != nil && p.alias {
					l = append(l, id)
				}
			}
		}
		per[i] = l
		if len(l) == 1 {
			unique = append(unique, l[0])
		}
		k := counts[m.surface]
		if k == nil {
			// The persons the graph gives the surface: the write script
			// checks them (a given name's own person is the chunk's).
			k = &count{n: len(info[m.surface].cands)}
			counts[m.surface] = k
			order = append(order, m.surface)
		}
		k.bins[binOf(model.LLRIn(rs, grams, m.start, m.end, aliasOf(m.surface, l, profiles)))]++
	}
	var ms []Mention
	for i, m := range found {
		if len(per[i]) == 0 {
			continue
		}
		prior := linkPrior(info[m.surface].stat, s.namePrior(c, aliasOf(m.surface, per[i], profiles)))
		odds := make([]float64, len(per[i]))
		pro := make(map[string]float64, len(per[i]))
		for j, id := range per[i] {
			p := profiles[id]
			ev, support := evidence(cc, m, p, unique)
			odds[j], pro[id] = prior+model.LLRIn(rs, grams, m.start, m.end, p.name != m.surface)+ev, support
		}
		ps := posteriors(odds)
		cands := make([]Candidate, len(per[i]))
		name := 0.0
		for j, id := range per[i] {
			cands[j] = Candidate{Entity: id, Score: ps[j]}
			name += ps[j]
		}
		slices.SortStableFunc(cands, func(a, b Candidate) int {
			return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Entity, b.Entity))
		})
		// Decided on the probabilities as computed, stored rounded.
		ent, sc, review := decide(cands)
		if ent == "" {
			ent, sc, review = decideSame(m.surface, cands, profiles, ent, sc, review)
		}
		if ent != "" && pro[ent] <= 0 && s.designation(c, m.surface) {
			// A surname and a designation (陈氏: the Chen, or a woman of
			// them) names no one the chunk does not point at.
			ent, review = "", false
		}
		for j := range cands {
			cands[j].Score = round(cands[j].Score)
		}
		mn := Mention{Entity: ent, Surface: m.surface, Start: m.start, End: m.end, Score: round(sc), Name: round(name), Candidates: cands}
		if review && s.cfg.Reviews != nil {
			mn.Review = ReviewID(tenant, c.ChunkID, m.surface)
		}
		ms = append(ms, mn)
	}
	lines := make([]string, len(order))
	for i, sf := range order {
		k := counts[sf]
		bins := make([]string, len(k.bins))
		for j, c := range k.bins {
			bins[j] = strconv.Itoa(c)
		}
		lines[i] = sf + "\t" + strconv.Itoa(k.n) + "\t" + strings.Join(bins, ",")
	}
	return resolved{mentions: ms, lines: strings.Join(lines, "\n")}
}

// aliasOf reports whether surface is a courtesy or art name of every
// candidate (the canonical name of none): the mention model reads such a
// surface without its shape.
func aliasOf(surface string, cands []string, profiles map[string]*profile) bool {
	for _, id := range cands {
		if profiles[id].name == surface {
			return false
		}
	}
	return len(cands) > 0
}

// round keeps four decimals: of a probability, so that a mention list
// written again with the same evidence is the same text; of a shape
// ratio, so that a model written out and read back is the model.
func round(p float64) float64 { return math.Round(p*1e4) / 1e4 }

// namePrior is the prior share of names of the chunk's profile, of a
// person's own name or of a surface that is only a courtesy or art name.
func (s *Stage) namePrior(c schemas.Chunk, alias bool) float64 {
	p := s.profileOf(c)
	if alias && p.AliasPrior > 0 {
		return p.AliasPrior
	}
	if !alias && p.NamePrior > 0 {
		return p.NamePrior
	}
	return neutralPrior
}

// givenNames maps the given names among found of the persons the chunk's
// entry is about (its entry's and its sub-entry's, names of three
// characters or more, the surname of one or of a compound surname of the
// profile taken off) to their full names: a biography names its person
// by his given name once it has introduced him ("时行入见" in 申时行's),
// and so may name the person it brings in.
func (s *Stage) givenNames(c schemas.Chunk, found []match) map[string]string {
	if c.EntryChunk == "" {
		return nil
	}
	var out map[string]string
	for _, full := range []string{c.Entry, c.SubEntry} {
		rs := []rune(full)
		if len(rs) < 3 {
			continue
		}
		k := 1
		if slices.ContainsFunc(s.profileOf(c).Names.CompoundSurnames, func(cs string) bool { return strings.HasPrefix(full, cs) }) {
			k = 2
		}
		given := string(rs[k:])
		if utf8.RuneCountInString(given) < 2 || !slices.ContainsFunc(found, func(m match) bool { return m.surface == given }) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[given] = full
	}
	return out
}

// designation reports whether surface is a surname and one of the
// profile's designations (linker.designations: 氏): it names a family, or
// a woman by her family, and so names a person only where the chunk gives
// evidence of which.
func (s *Stage) designation(c schemas.Chunk, surface string) bool {
	for _, d := range s.profileOf(c).Designations {
		if n := utf8.RuneCountInString(surface) - utf8.RuneCountInString(d); n >= 1 && n <= 2 && strings.HasSuffix(surface, d) {
			return true
		}
	}
	return false
}

// model is the mention model of the chunk's profile.
func (s *Stage) model(c schemas.Chunk) Model { return s.read(c).model }

// profileOf is the corpus profile a chunk is read with.
func (s *Stage) profileOf(c schemas.Chunk) *corpus.Profile { return s.read(c).profile }

// readWith is a corpus profile and its mention model.
type readWith struct {
	profile *corpus.Profile
	model   Model
}

// read is the profile a chunk is read with, looked up once per profile
// name and language.
func (s *Stage) read(c schemas.Chunk) readWith {
	lang := c.Lang
	if lang == "" {
		lang = text.Lang(c.Text)
	}
	key := c.Profile + "\x00" + lang
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.models[key]
	if !ok {
		p := s.cfg.Profiles.For(c.Profile, lang)
		r = readWith{profile: p, model: NewModel(p.MentionModel, CharCountsOf(p.MentionChars))}
		s.models[key] = r
	}
	return r
}

// ReviewID is the id of the review of a surface's mentions in a chunk:
// derived from them, so linking the chunk again opens no second review.
func ReviewID(tenant, chunk, surface string) string {
	return "mention-" + pipeline.ContentID("mention-review", tenant, chunk, surface)
}

// applyDecision applies to an undecided mention the decision a person
// took on its review: the person chosen, or none; a mention whose review
// is open keeps it, and its review is added to open (once per id).
func (s *Stage) applyDecision(c schemas.Chunk, m *Mention, decisions map[string]string, open []schemas.Review,
	profiles map[string]*profile) []schemas.Review {
	if v, ok := decisions[m.Review]; ok {
		m.Decided = true
		if slices.ContainsFunc(m.Candidates, func(k Candidate) bool { return k.Entity == v }) {
			m.Entity = v
		}
		return open
	}
	if slices.ContainsFunc(open, func(r schemas.Review) bool { return r.ReviewID == m.Review }) {
		return open
	}
	rv := s.review(c, *m, profiles)
	return append(open, rv)
}

// review is the review item of an undecided mention: whom the surface
// names in the passage, one option per candidate (its id, described by
// its name and native place) and one for none of them.
func (s *Stage) review(c schemas.Chunk, m Mention, profiles map[string]*profile) schemas.Review {
	w := s.profileOf(c).Review
	passage := window([]rune(c.Text), m.Start, m.End, 20)
	q := fmt.Sprintf("%s: %s", m.Surface, passage)
	if w.Mention != "" {
		q = fmt.Sprintf(w.Mention, m.Surface, passage)
	}
	rv := schemas.Review{ReviewID: m.Review, Subject: m.Surface, Relation: schemas.ReviewMention, Question: q,
		Status: schemas.ReviewOpen}
	for _, k := range m.Candidates {
		desc := k.Entity
		if p := profiles[k.Entity]; p != nil {
			desc = p.name
			if len(p.places) > 0 {
				desc += "（" + p.places[0] + "）"
			}
		}
		rv.Options = append(rv.Options, schemas.ReviewOption{Value: k.Entity, ChunkID: c.ChunkID, Text: desc})
	}
	none := w.MentionNone
	if none == "" {
		none = "none of them"
	}
	rv.Options = append(rv.Options, schemas.ReviewOption{Value: schemas.ReviewNone, ChunkID: c.ChunkID, Text: none})
	return rv
}

// window is rs[start:end] in brackets with up to k runes either side,
// line breaks as spaces.
func window(rs []rune, start, end, k int) string {
	s := string(rs[max(0, start-k):start]) + "【" + string(rs[start:end]) + "】" + string(rs[end:min(len(rs), end+k)])
	return strings.Join(strings.Fields(s), " ")
}

// backfill links stored chunks against surfaces new to the dictionary or
// to a person: the chunks the surface was already matched in (its alias
// set changed), and the chunks last matched against a dictionary older
// than the surface, scanned in pages of BackfillPage up to MaxBackfill per
// batch. A scanned chunk in which no newer surface occurs is only
// recorded as matched up to the current dictionary. The highest sequence
// asked for is recorded (RaiseLinkTarget), so every batch, of either
// topic, goes on with a backlog an earlier batch left; with no backlog
// that costs two small reads.
func (s *Stage) backfill(ctx context.Context, tenant string, news []string, token string, done func(linkResult)) error {
	slices.Sort(news)
	news = slices.Compact(news)
	d, err := s.dict(ctx, tenant)
	if err != nil {
		return fmt.Errorf("backfill tenant %s: %w", tenant, err)
	}
	seqs, err := s.g.SurfaceSeqs(ctx, tenant, news)
	if err != nil {
		return fmt.Errorf("backfill tenant %s: %w", tenant, err)
	}
	var want int64
	for _, q := range seqs {
		want = max(want, q)
	}
	ids, err := s.g.SurfaceChunks(ctx, tenant, news)
	if err != nil {
		return fmt.Errorf("backfill tenant %s: %w", tenant, err)
	}
	if err := s.relink(ctx, tenant, ids, token, done); err != nil {
		return err
	}
	target, err := s.g.RaiseLinkTarget(ctx, tenant, want)
	if err != nil {
		return fmt.Errorf("backfill tenant %s: %w", tenant, err)
	}
	for scanned := 0; target > 0 && scanned < s.cfg.MaxBackfill; {
		page, vers, err := s.g.LinkBacklog(ctx, tenant, target, min(s.cfg.BackfillPage, s.cfg.MaxBackfill-scanned))
		if err != nil {
			return fmt.Errorf("backfill tenant %s: %w", tenant, err)
		}
		if len(page) == 0 {
			break
		}
		scanned += len(page)
		cs, err := s.chunks.Get(ctx, tenant, page)
		if err != nil {
			return fmt.Errorf("backfill tenant %s: %w", tenant, err)
		}
		ver := make(map[string]int64, len(page))
		for i, id := range page {
			ver[id] = vers[i]
		}
		var hit, miss []string
		for _, c := range cs {
			if d.hasNewer(c.Text, ver[c.ChunkID]) {
				hit = append(hit, c.ChunkID)
			} else {
				miss = append(miss, c.ChunkID)
			}
		}
		// A chunk of the backlog whose hash is gone (retracted) is
		// recorded too, or it would hold the cursor back.
		present := map[string]bool{}
		for _, c := range cs {
			present[c.ChunkID] = true
		}
		for _, id := range page {
			if !present[id] {
				miss = append(miss, id)
			}
		}
		if err := s.g.BumpLinkVersion(ctx, tenant, miss, d.last); err != nil {
			return err
		}
		if err := s.relink(ctx, tenant, hit, token, done); err != nil {
			return err
		}
	}
	return nil
}

// relink links stored chunks again.
func (s *Stage) relink(ctx context.Context, tenant string, ids []string, token string, done func(linkResult)) error {
	if len(ids) == 0 {
		return nil
	}
	cs, err := s.chunks.Get(ctx, tenant, ids)
	if err != nil {
		return fmt.Errorf("relink %d chunks of tenant %s: %w", len(ids), tenant, err)
	}
	tokens := make([]string, len(cs))
	for i := range tokens {
		tokens[i] = token
	}
	return s.linkChunks(ctx, tenant, cs, tokens, func(_ int, r linkResult) { done(r) })
}

type accum struct {
	at      map[string]int
	out     []merged
	reviews []reviewOut
}

// reviewOut is a review to publish, by the input it came of.
type reviewOut struct {
	review schemas.Review
	input  int
}

type merged struct {
	update schemas.KGUpdate
	input  int
}

func newAccum() *accum { return &accum{at: map[string]int{}} }

func (a *accum) entry(id string, input int) *merged {
	j, ok := a.at[id]
	if !ok {
		j = len(a.out)
		a.at[id] = j
		name, _, _ := strings.Cut(strings.TrimPrefix(id, schemas.EntityPerson+":"), "@")
		a.out = append(a.out, merged{update: schemas.KGUpdate{EntityID: id, Name: name, Type: schemas.EntityPerson}})
	}
	m := &a.out[j]
	m.input = input
	return m
}

func (a *accum) add(r linkResult, input int) {
	for _, rv := range r.reviews {
		a.reviews = append(a.reviews, reviewOut{review: rv, input: input})
	}
	for _, e := range r.added {
		m := a.entry(e, input)
		m.update.Chunks = append(m.update.Chunks, r.chunk)
		m.update.DocIDs = append(m.update.DocIDs, r.doc)
	}
	for _, e := range r.removed {
		m := a.entry(e, input)
		m.update.RemovedChunks = append(m.update.RemovedChunks, r.chunk)
		m.update.DocIDs = append(m.update.DocIDs, r.doc)
	}
}

func (a *accum) updates() []merged {
	for j := range a.out {
		u := &a.out[j].update
		u.Chunks = sortedSet(u.Chunks)
		u.RemovedChunks = sortedSet(u.RemovedChunks)
		u.DocIDs = sortedSet(u.DocIDs)
	}
	return a.out
}

func sortedSet(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	slices.Sort(s)
	return slices.Compact(s)
}

// UpdateEventID is the event id of a linker kg-update: derived from the
// tenant and the content, so an update repeated for a redelivery carries
// the same id.
func UpdateEventID(tenant string, u schemas.KGUpdate) string {
	parts := []string{"link-update", tenant, u.EntityID, "chunks"}
	parts = append(parts, u.Chunks...)
	parts = append(parts, "removed")
	parts = append(parts, u.RemovedChunks...)
	return pipeline.ContentID(parts...)
}
