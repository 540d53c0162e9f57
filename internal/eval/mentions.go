package eval

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/consumers/linker"
	"github.com/annalist-dev/annalist/schemas"
)

// MentionSource is what the mention report reads: the stored chunks and
// the linker's records of each (infra/redis's Chunks and infra/kg's Store).
type MentionSource struct {
	// Chunks returns the stored chunks with the given ids.
	Chunks func(ctx context.Context, ids []string) ([]schemas.Chunk, error)
	// Links returns the mention list JSON stored for a chunk, "" if none.
	Links func(ctx context.Context, chunk string) (string, error)
	// EntryChunk returns the entry chunk of an entity ("" when it has none).
	EntryChunk func(ctx context.Context, entity string) (string, error)
}

// MentionCounts counts mentions: every surface of a person the linker
// matched (one-character surfaces are never matched), those it resolved
// to one person, those it kept with several candidates, and those with
// one candidate it did not resolve for want of evidence. Outside are the
// resolved mentions in a chunk that is not part of the resolved person's
// own entry: the mentions that add chunks to a person.
type MentionCounts struct {
	Chunks     int `json:"chunks"`
	Linked     int `json:"chunks_with_mentions"`
	Mentions   int `json:"mentions"`
	Resolved   int `json:"resolved"`
	Ambiguous  int `json:"ambiguous"`
	Unresolved int `json:"unresolved_single"`
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
	Context    string  `json:"context"`
}

// MentionReport is the result of `annalist eval mentions`.
type MentionReport struct {
	MentionCounts
	Collections map[string]MentionCounts `json:"collections"`
	// Samples are drawn, seeded, from the resolved mentions outside the
	// person's own entry: a mention inside it is the entry naming its own
	// subject and says nothing about the linker's precision.
	Samples []MentionSample `json:"samples"`
}

// Mentions reads the linker's records of the chunks ids and reports their
// counts, with n sampled mentions (seed).
func Mentions(ctx context.Context, src MentionSource, ids []string, n int, seed uint64) (MentionReport, error) {
	rep := MentionReport{Collections: map[string]MentionCounts{}}
	slices.Sort(ids)
	type cand struct {
		c     schemas.Chunk
		m     linker.Mention
		entry string
	}
	var pool []cand
	entries := map[string]string{}
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
			}
			rep.Collections[col] = cc
		}
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	pool = pool[:min(n, len(pool))]
	slices.SortFunc(pool, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.c.ChunkID, b.c.ChunkID), cmp.Compare(a.m.Start, b.m.Start))
	})
	for _, p := range pool {
		rep.Samples = append(rep.Samples, MentionSample{ChunkID: p.c.ChunkID, Collection: p.c.Collection,
			Surface: p.m.Surface, Entity: p.m.Entity, EntryChunk: p.entry, Score: p.m.Score,
			Candidates: len(p.m.Candidates), Context: window(p.c.Text, p.m.Start, p.m.End, 15)})
	}
	return rep, nil
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
