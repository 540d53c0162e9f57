package kg

import (
	"context"
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/annalist-dev/annalist/internal/ports/graph"
	"github.com/annalist-dev/annalist/schemas"
)

// The entity linker's records (consumers/linker), in the tenant's graph
// slot so the write script may read the alias sets and the surface log:
//
//	kg:{t}:linked:<entity>      set    chunk ids the linker resolved to the entity
//	kg:{t}:chunklinked:<chunk>  set    entity ids whose linked: set holds the chunk
//	kg:{t}:chunklinks:<chunk>   string JSON list of the chunk's mentions, with
//	                                   candidates and scores
//	kg:{t}:surfchunks:<surface> hash   chunks in which the surface was matched ->
//	                                   "n TAB c0,…,c7": the number of persons it
//	                                   could denote then (relinked when its alias
//	                                   set changes) and its occurrences in the
//	                                   chunk by the bin of the mention model's
//	                                   reading (graph.SurfaceStat)
//	kg:{t}:chunksurf:<chunk>    string the chunk's lines of its last write
//	                                   ("surface TAB n TAB c0,…,c7" each): a
//	                                   write compares them and touches only the
//	                                   surfaces that changed
//	kg:{t}:surfstat             hash   "b<k>:<surface>": the sums of bin k over the
//	                                   surface's chunks (the linker's link prior)
//	kg:{t}:linkver              zset   chunk -> the surface sequence its text was
//	                                   last matched against (the backfill's cursor)
//	kg:{t}:linkstate            zset   member target: the sequence the backfill
//	                                   brings every linked chunk up to
//	kg:{t}:linkapplied          hash   chunk -> the delivery that last changed its
//	                                   links and what it changed (re-reported to a
//	                                   redelivery of that delivery)

//go:embed link.lua
var linkSource string

var linkScript = goredis.NewScript(nodeSource + linkSource)

// LinkFields is the number of fields of one row of Link.
const LinkFields = 8

// SurfacesAfter returns the surface forms that arrived after sequence
// after, in arrival order, with their sequence numbers; at most limit (0:
// all).
func (s *Store) SurfacesAfter(ctx context.Context, tenant string, after int64, limit int) ([]string, []int64, error) {
	if err := checkTenant("read surfaces", tenant); err != nil {
		return nil, nil, err
	}
	by := &goredis.ZRangeBy{Min: "(" + strconv.FormatInt(after, 10), Max: "+inf"}
	if limit > 0 {
		by.Count = int64(limit)
	}
	zs, err := s.c.ZRangeByScoreWithScores(ctx, prefix(tenant)+"surfaces", by).Result()
	if err != nil {
		return nil, nil, fmt.Errorf("read surfaces after %d: %w", after, err)
	}
	out, seqs := make([]string, len(zs)), make([]int64, len(zs))
	for i, z := range zs {
		out[i], _ = z.Member.(string)
		seqs[i] = int64(z.Score)
	}
	return out, seqs, nil
}

// SurfaceSeqs returns the arrival sequence of each surface, 0 for one not
// in the log.
func (s *Store) SurfaceSeqs(ctx context.Context, tenant string, surfaces []string) ([]int64, error) {
	if err := checkTenant("read surface sequences", tenant); err != nil {
		return nil, err
	}
	if len(surfaces) == 0 {
		return nil, nil
	}
	v, err := s.c.ZMScore(ctx, prefix(tenant)+"surfaces", surfaces...).Result()
	if err != nil {
		return nil, fmt.Errorf("read %d surface sequences: %w", len(surfaces), err)
	}
	out := make([]int64, len(surfaces))
	for i := range out {
		if i < len(v) {
			out[i] = int64(v[i])
		}
	}
	return out, nil
}

// SurfaceInfo returns, for each surface, the sorted person ids its alias
// set holds and what the linker counted of it (kg:{t}:surfstat), in one
// round trip.
func (s *Store) SurfaceInfo(ctx context.Context, tenant string, surfaces []string) ([][]string, []graph.SurfaceStat, error) {
	if err := checkTenant("read candidates", tenant); err != nil {
		return nil, nil, err
	}
	if len(surfaces) == 0 {
		return nil, nil, nil
	}
	const nb = graph.LLRBins
	p := s.c.Pipeline()
	cmds := make([]*goredis.StringSliceCmd, len(surfaces))
	fields := make([]string, 0, nb*len(surfaces))
	for i, sf := range surfaces {
		cmds[i] = p.SMembers(ctx, prefix(tenant)+"alias:"+sf)
		for k := range nb {
			fields = append(fields, "b"+strconv.Itoa(k)+":"+sf)
		}
	}
	counts := p.HMGet(ctx, prefix(tenant)+"surfstat", fields...)
	if _, err := p.Exec(ctx); err != nil {
		return nil, nil, fmt.Errorf("read candidates of %d surfaces: %w", len(surfaces), err)
	}
	vals := counts.Val()
	out := make([][]string, len(surfaces))
	stats := make([]graph.SurfaceStat, len(surfaces))
	for i, c := range cmds {
		for _, id := range c.Val() {
			if strings.HasPrefix(id, "person:") {
				out[i] = append(out[i], id)
			}
		}
		slices.Sort(out[i])
		for k := range nb {
			if at := nb*i + k; at < len(vals) {
				v, _ := vals[at].(string)
				stats[i].Bins[k], _ = strconv.ParseInt(v, 10, 64)
			}
		}
	}
	return out, stats, nil
}

// SurfaceStats returns what the linker counted of every surface
// (kg:{t}:surfstat), read with HSCAN.
func (s *Store) SurfaceStats(ctx context.Context, tenant string) (map[string]graph.SurfaceStat, error) {
	if err := checkTenant("read surface counts", tenant); err != nil {
		return nil, err
	}
	out := map[string]graph.SurfaceStat{}
	var cursor uint64
	for {
		kvs, next, err := s.c.HScan(ctx, prefix(tenant)+"surfstat", cursor, "*", 1000).Result()
		if err != nil {
			return nil, fmt.Errorf("read surface counts: %w", err)
		}
		for i := 0; i+1 < len(kvs); i += 2 {
			bin, surface, ok := strings.Cut(kvs[i], ":")
			k, err := strconv.Atoi(strings.TrimPrefix(bin, "b"))
			if !ok || err != nil || k < 0 || k >= graph.LLRBins {
				continue
			}
			n, _ := strconv.ParseInt(kvs[i+1], 10, 64)
			st := out[surface]
			st.Bins[k] = n
			out[surface] = st
		}
		if next == 0 {
			return out, nil
		}
		cursor = next
	}
}

// SurfaceChunks returns the chunks in which the linker matched any of
// surfaces when it could denote another number of persons than it can
// now: the chunks whose links the surfaces' new candidates may change.
// One round trip reads them all; the ids are sorted, each once.
func (s *Store) SurfaceChunks(ctx context.Context, tenant string, surfaces []string) ([]string, error) {
	if err := checkTenant("read surface chunks", tenant); err != nil {
		return nil, err
	}
	if len(surfaces) == 0 {
		return nil, nil
	}
	p := s.c.Pipeline()
	matched := make([]*goredis.MapStringStringCmd, len(surfaces))
	aliases := make([]*goredis.StringSliceCmd, len(surfaces))
	for i, sf := range surfaces {
		matched[i] = p.HGetAll(ctx, prefix(tenant)+"surfchunks:"+sf)
		aliases[i] = p.SMembers(ctx, prefix(tenant)+"alias:"+sf)
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, fmt.Errorf("read chunks of %d surfaces: %w", len(surfaces), err)
	}
	var out []string
	for i := range surfaces {
		persons := 0
		for _, id := range aliases[i].Val() {
			if strings.HasPrefix(id, schemas.EntityPerson+":") {
				persons++
			}
		}
		// A chunk matched when the surface could denote as many persons
		// as it can now was resolved against the same candidates (a set
		// that only grows, but for a retraction): linking it again would
		// change nothing.
		for id, v := range matched[i].Val() {
			if n, _, _ := strings.Cut(v, "\t"); n != strconv.Itoa(persons) {
				out = append(out, id)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// LinkBacklog returns up to limit chunks whose text was last matched
// against a dictionary older than sequence below, oldest first, with the
// sequence each was matched against.
func (s *Store) LinkBacklog(ctx context.Context, tenant string, below int64, limit int) ([]string, []int64, error) {
	if err := checkTenant("read link backlog", tenant); err != nil {
		return nil, nil, err
	}
	by := &goredis.ZRangeBy{Min: "-inf", Max: "(" + strconv.FormatInt(below, 10), Count: int64(limit)}
	zs, err := s.c.ZRangeByScoreWithScores(ctx, prefix(tenant)+"linkver", by).Result()
	if err != nil {
		return nil, nil, fmt.Errorf("read link backlog below %d: %w", below, err)
	}
	ids, vers := make([]string, len(zs)), make([]int64, len(zs))
	for i, z := range zs {
		ids[i], _ = z.Member.(string)
		vers[i] = int64(z.Score)
	}
	return ids, vers, nil
}

// Link writes the links of a batch of chunks in one script call and
// returns one answer per row. A row is LinkFields strings: chunk id, doc
// id, dictionary version, delivery token, mentions JSON, resolved entity
// ids joined by tabs, the matched surfaces as "surface TAB candidates
// seen TAB c0,…,c7" lines (the chunk's occurrences of the surface by
// bin: its share of kg:{t}:surfstat), and "1" to write even when stale. An answer is "r" (the
// document is retracted, nothing written), "s" (stale: the dictionary or
// a candidate set changed since the row was computed, nothing written) or
// "w TAB added ids TAB removed ids" (ids comma separated): the entities
// whose linked: set gained or lost the chunk, reported again to a
// redelivery of the delivery that changed them.
func (s *Store) Link(ctx context.Context, tenant string, rows [][]string) ([]string, error) {
	if err := checkTenant("write links", tenant); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	args := make([]any, 0, 1+LinkFields*len(rows))
	args = append(args, prefix(tenant))
	for _, r := range rows {
		if len(r) != LinkFields {
			return nil, fmt.Errorf("write links: row of %d fields, want %d", len(r), LinkFields)
		}
		for _, f := range r {
			args = append(args, f)
		}
	}
	res, err := linkScript.Run(ctx, s.c, []string{prefix(tenant) + "linkver"}, args...).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("write links of %d chunks for tenant %s: %w", len(rows), tenant, err)
	}
	if len(res) != len(rows) {
		return nil, fmt.Errorf("write links of %d chunks: script answered %d", len(rows), len(res))
	}
	return res, nil
}

// Linked returns the chunks the linker resolved to entity, sorted.
func (s *Store) Linked(ctx context.Context, tenant, entity string) ([]string, error) {
	if err := checkTenant("read linked chunks", tenant); err != nil {
		return nil, err
	}
	ids, err := s.c.SMembers(ctx, prefix(tenant)+"linked:"+entity).Result()
	if err != nil {
		return nil, fmt.Errorf("read chunks linked to %s: %w", entity, err)
	}
	slices.Sort(ids)
	return ids, nil
}

// LinkedOf returns, for each entity, the chunks the linker resolved to
// it, sorted; in one round trip.
func (s *Store) LinkedOf(ctx context.Context, tenant string, entities []string) ([][]string, error) {
	if err := checkTenant("read linked chunks", tenant); err != nil {
		return nil, err
	}
	out, err := s.sortedSets(ctx, prefix(tenant)+"linked:", entities)
	if err != nil {
		return nil, fmt.Errorf("read chunks linked to %d entities: %w", len(entities), err)
	}
	return out, nil
}

// sortedSets reads the sets named key prefix + each id, each sorted, in
// one round trip.
func (s *Store) sortedSets(ctx context.Context, keyPrefix string, ids []string) ([][]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	cmds := make([]*goredis.StringSliceCmd, len(ids))
	if _, err := s.c.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for i, id := range ids {
			cmds[i] = p.SMembers(ctx, keyPrefix+id)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	out := make([][]string, len(ids))
	for i, c := range cmds {
		out[i] = c.Val()
		slices.Sort(out[i])
	}
	return out, nil
}

// ChunkLinks returns the mention list JSON the linker stored for chunk, ""
// when it stored none.
func (s *Store) ChunkLinks(ctx context.Context, tenant, chunk string) (string, error) {
	if err := checkTenant("read chunk links", tenant); err != nil {
		return "", err
	}
	v, err := s.c.Get(ctx, prefix(tenant)+"chunklinks:"+chunk).Result()
	if err == goredis.Nil {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read links of chunk %s: %w", chunk, err)
	}
	return v, nil
}

// LinkedAt returns, for each chunk, the surface sequence its text was last
// matched against (-1 for none) and the delivery token of the write that
// last changed its links ("" for none), in one round trip.
func (s *Store) LinkedAt(ctx context.Context, tenant string, chunks []string) ([]int64, []string, error) {
	if err := checkTenant("read link versions", tenant); err != nil {
		return nil, nil, err
	}
	if len(chunks) == 0 {
		return nil, nil, nil
	}
	p := s.c.Pipeline()
	vers := p.ZMScore(ctx, prefix(tenant)+"linkver", chunks...)
	applied := p.HMGet(ctx, prefix(tenant)+"linkapplied", chunks...)
	if _, err := p.Exec(ctx); err != nil && err != goredis.Nil {
		return nil, nil, fmt.Errorf("read link versions of %d chunks: %w", len(chunks), err)
	}
	out := make([]int64, len(chunks))
	tokens := make([]string, len(chunks))
	vs := vers.Val()
	as := applied.Val()
	for i := range chunks {
		out[i] = -1
		if i < len(vs) && vs[i] != 0 {
			out[i] = int64(vs[i])
		}
		if i < len(as) {
			if rec, ok := as[i].(string); ok {
				tokens[i], _, _ = strings.Cut(rec, "\t")
			}
		}
	}
	return out, tokens, nil
}

// BumpLinkVersion records that the texts of chunks were matched against
// the dictionary up to version, never lowering what is recorded.
func (s *Store) BumpLinkVersion(ctx context.Context, tenant string, chunks []string, version int64) error {
	if err := checkTenant("record link versions", tenant); err != nil {
		return err
	}
	if len(chunks) == 0 {
		return nil
	}
	zs := make([]goredis.Z, len(chunks))
	for i, c := range chunks {
		zs[i] = goredis.Z{Score: float64(version), Member: c}
	}
	if err := s.c.ZAddGT(ctx, prefix(tenant)+"linkver", zs...).Err(); err != nil {
		return fmt.Errorf("record link version of %d chunks: %w", len(chunks), err)
	}
	return nil
}

// RaiseLinkTarget records seq as the surface sequence the linker's
// backfill must bring every linked chunk up to, unless a higher one is
// recorded (kg:{t}:linkstate, member target), and returns the one
// recorded. seq 0 only reads it.
func (s *Store) RaiseLinkTarget(ctx context.Context, tenant string, seq int64) (int64, error) {
	if err := checkTenant("record link target", tenant); err != nil {
		return 0, err
	}
	key := prefix(tenant) + "linkstate"
	p := s.c.Pipeline()
	if seq > 0 {
		p.ZAddGT(ctx, key, goredis.Z{Score: float64(seq), Member: "target"})
	}
	got := p.ZScore(ctx, key, "target")
	if _, err := p.Exec(ctx); err != nil && err != goredis.Nil {
		return 0, fmt.Errorf("record link target %d: %w", seq, err)
	}
	return int64(got.Val()), nil
}

// Degrees returns, for each entity id, the number of edges it is the head
// or the tail of, in one round trip: a cheap stamp that changes whenever
// an edge is added to or removed from the entity, so a reader can keep
// what it derived from Entity until the stamp moves.
func (s *Store) Degrees(ctx context.Context, tenant string, ids []string) ([]int64, error) {
	if err := checkTenant("read degrees", tenant); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	p := s.c.Pipeline()
	outs := make([]*goredis.IntCmd, len(ids))
	ins := make([]*goredis.IntCmd, len(ids))
	for i, id := range ids {
		outs[i] = p.SCard(ctx, prefix(tenant)+"out:"+id)
		ins[i] = p.SCard(ctx, prefix(tenant)+"in:"+id)
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, fmt.Errorf("read the degrees of %d entities: %w", len(ids), err)
	}
	out := make([]int64, len(ids))
	for i := range ids {
		out[i] = outs[i].Val() + ins[i].Val()
	}
	return out, nil
}
