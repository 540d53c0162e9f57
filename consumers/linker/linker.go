package linker

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/era"
	"github.com/annalist-dev/annalist/internal/graph"
	corpus "github.com/annalist-dev/annalist/internal/profile"
	"github.com/annalist-dev/annalist/internal/text"
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
	// PersonCandidates returns the person ids of each surface's alias set.
	PersonCandidates(ctx context.Context, tenant string, surfaces []string) ([][]string, error)
	// SurfaceChunks returns the chunks the surface was matched in.
	SurfaceChunks(ctx context.Context, tenant, surface string) ([]string, error)
	// LinkBacklog returns chunks matched against a dictionary older than
	// below, oldest first.
	LinkBacklog(ctx context.Context, tenant string, below int64, limit int) ([]string, []int64, error)
	// RaiseLinkTarget records the sequence the backfill must bring every
	// linked chunk up to, unless higher, and returns the recorded one.
	RaiseLinkTarget(ctx context.Context, tenant string, seq int64) (int64, error)
	// BumpLinkVersion records chunks as matched up to version.
	BumpLinkVersion(ctx context.Context, tenant string, chunks []string, version int64) error
	// Link writes rows of links atomically (see infra/kg.Store.Link).
	Link(ctx context.Context, tenant string, rows [][]string) ([]string, error)
	// Entity reads an entity; an unknown id wraps graph.ErrNotFound.
	Entity(ctx context.Context, tenant, id string) (graph.Entity, error)
	// Degrees returns each entity's number of edges (as head or tail), a
	// stamp that moves whenever its edges change.
	Degrees(ctx context.Context, tenant string, ids []string) ([]int64, error)
}

// Chunks reads stored chunks.
type Chunks interface {
	Get(ctx context.Context, tenant string, ids []string) ([]schemas.Chunk, error)
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

	mu      sync.Mutex
	dicts   map[string]*dictionary
	offices map[string][]string
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
	return &Stage{g: g, chunks: chunks, cfg: cfg, dicts: map[string]*dictionary{}, offices: map[string][]string{}}, nil
}

// Handler returns the stage as a pipeline.BatchHandler.
func (s *Stage) Handler() pipeline.BatchHandler { return s.Handle }

type tenantWork struct {
	chunks  []schemas.Chunk
	inputs  []int // input of each chunk
	news    []string
	lastUpd int // last kg-update input naming new surfaces, -1 if none
	last    int // last input of the tenant
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
	}
	out := make([][]pipeline.Output, len(ins))
	for _, tenant := range tenants {
		w := work[tenant]
		tokens := make([]string, len(w.inputs))
		for k, i := range w.inputs {
			tokens[k] = ins[i].Meta.EventID
		}
		acc := newAccum()
		if err := s.linkChunks(ctx, tenant, w.chunks, tokens, func(k int, r linkResult) {
			acc.add(r, w.inputs[k])
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
		for _, m := range acc.updates() {
			out[m.input] = append(out[m.input], pipeline.Output{
				Topic: topology.KGUpdates, Msg: m.update, EventID: UpdateEventID(tenant, m.update),
			})
		}
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
		rows, err := s.rows(ctx, tenant, d, batch, toks)
		if err != nil {
			return fmt.Errorf("link chunks of tenant %s: %w", tenant, err)
		}
		ans, err := s.g.Link(ctx, tenant, rows)
		if err != nil {
			return err
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
				done(i, linkResult{doc: cs[i].DocID, chunk: cs[i].ChunkID, added: list(f, 1), removed: list(f, 2)})
			default:
				return fmt.Errorf("link chunk %s: script answered %q", cs[i].ChunkID, a)
			}
		}
		todo = again
	}
	return nil
}

func list(f []string, i int) []string {
	if i >= len(f) || f[i] == "" {
		return nil
	}
	return strings.Split(f[i], ",")
}

// rows computes the link rows of cs against d.
func (s *Stage) rows(ctx context.Context, tenant string, d *dictionary, cs []schemas.Chunk, tokens []string) ([][]string, error) {
	found := make([][]match, len(cs))
	var surfaces []string
	seen := map[string]bool{}
	for i, c := range cs {
		found[i] = d.find(c.Text)
		for _, m := range found[i] {
			if !seen[m.surface] {
				seen[m.surface] = true
				surfaces = append(surfaces, m.surface)
			}
		}
	}
	cands, err := s.g.PersonCandidates(ctx, tenant, surfaces)
	if err != nil {
		return nil, err
	}
	candOf := make(map[string][]string, len(surfaces))
	for i, sf := range surfaces {
		candOf[sf] = cands[i]
	}
	profiles, err := s.profiles(ctx, tenant, cands)
	if err != nil {
		return nil, err
	}
	version := strconv.FormatInt(d.last, 10)
	rows := make([][]string, len(cs))
	for i, c := range cs {
		ms, seenLines := s.resolve(c, found[i], candOf, profiles)
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
				return nil, err
			}
			js = string(b)
		}
		rows[i] = []string{c.ChunkID, c.DocID, version, tokens[i], js, strings.Join(ents, "\t"), seenLines, ""}
	}
	return rows, nil
}

// profiles reads the candidates' profiles, several at a time.
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
	ids = stale
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, len(ids))
	sem := make(chan struct{}, 8)
	for i, id := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			e, err := s.g.Entity(ctx, tenant, id)
			if errors.Is(err, graph.ErrNotFound) {
				return
			}
			if err != nil {
				errs[i] = err
				return
			}
			p := newProfile(e, s.cfg.Eras)
			mu.Lock()
			out[id] = p
			mu.Unlock()
			s.mu.Lock()
			known[id] = knownProfile{p: p, degree: staleDegrees[i]}
			s.mu.Unlock()
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// resolve turns a chunk's matches into mentions, and lists the matched
// surfaces with the number of person candidates seen (for the write
// script's staleness check).
func (s *Stage) resolve(c schemas.Chunk, found []match, candOf map[string][]string, profiles map[string]*profile) ([]Mention, string) {
	cc := chunkContext{c: c}
	rs := []rune(c.Text)
	titles := s.titles(c)
	for _, dt := range s.cfg.Eras.Find(c.Text) {
		if dt.Gregorian != 0 {
			cc.years = append(cc.years, dt.Gregorian)
		}
	}
	// Candidates per match: anchored persons first; a surface's own
	// unanchored person only when no anchored person bears it.
	per := make([][]string, len(found))
	var unique []string
	var lines []string
	counted := map[string]bool{}
	for i, m := range found {
		all := candOf[m.surface]
		if len(all) == 0 {
			continue
		}
		if !counted[m.surface] {
			counted[m.surface] = true
			lines = append(lines, m.surface+"\t"+strconv.Itoa(len(all)))
		}
		var l []string
		for _, id := range all {
			if anchored(id) && profiles[id] != nil {
				l = append(l, id)
			}
		}
		if len(l) == 0 {
			for _, id := range all {
				if profiles[id] != nil {
					l = append(l, id)
				}
			}
		}
		per[i] = l
		if len(l) == 1 {
			unique = append(unique, l[0])
		}
	}
	var ms []Mention
	for i, m := range found {
		if len(per[i]) == 0 {
			continue
		}
		cands := make([]Candidate, len(per[i]))
		for j, id := range per[i] {
			cands[j] = Candidate{Entity: id, Score: score(cc, m, profiles[id], unique)}
		}
		slices.SortStableFunc(cands, func(a, b Candidate) int {
			return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Entity, b.Entity))
		})
		ent, sc := decide(m, cands, profiles, bounded(rs, m.start, titles))
		ms = append(ms, Mention{Entity: ent, Surface: m.surface, Start: m.start, End: m.end, Score: sc, Candidates: cands})
	}
	return ms, strings.Join(lines, "\n")
}

// titles are the office terms of two or more characters of the chunk's
// profile, longest first, read once per profile.
func (s *Stage) titles(c schemas.Chunk) []string {
	lang := c.Lang
	if lang == "" {
		lang = text.Lang(c.Text)
	}
	key := c.Profile + "\x00" + lang
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.offices[key]; ok {
		return t
	}
	var t []string
	for _, o := range corpus.Default().For(c.Profile, lang).Offices.Terms {
		if utf8.RuneCountInString(o.Term) >= 2 {
			t = append(t, o.Term)
		}
	}
	slices.SortStableFunc(t, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	s.offices[key] = t
	return t
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
	relink := map[string]bool{}
	for i, sf := range news {
		want = max(want, seqs[i])
		ids, err := s.g.SurfaceChunks(ctx, tenant, sf)
		if err != nil {
			return fmt.Errorf("backfill tenant %s: %w", tenant, err)
		}
		for _, id := range ids {
			relink[id] = true
		}
	}
	var ids []string
	for id := range relink {
		ids = append(ids, id)
	}
	slices.Sort(ids)
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
	at  map[string]int
	out []merged
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
