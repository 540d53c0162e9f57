package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/consumers/linker"
	"github.com/annalist-dev/annalist/infra/llm"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/kit/progress"
	"github.com/annalist-dev/annalist/internal/ports/graph"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// dirList is a repeatable --data flag: directories ingested in order.
type dirList []string

func (d *dirList) String() string { return strings.Join(*d, ",") }
func (d *dirList) Set(v string) error {
	*d = append(*d, v)
	return nil
}

// evalMentions is `annalist eval mentions [--data DIR]... [--sample N]
// [--seed S]`: with --data, it ingests each DIR in order into a fresh
// embedded data directory (offline engine); without, it reads the data
// directory given (--data-dir). Every stored chunk is then linked (the
// linker's write is idempotent, so chunks the linker stage already linked
// are unchanged), and the linker's records are reported: mentions linked,
// resolved, ambiguous, per collection, with N seeded samples of resolved
// mentions outside the person's own entry, in ±15 characters of context,
// for a person to judge.
func evalMentions(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("eval mentions", io.Stderr)
	var s service
	s.register(fs)
	var dirs dirList
	fs.Var(&dirs, "data", "a folder to ingest first (repeat the flag: ingested in order)")
	n := fs.Int("sample", 100, "resolved mentions outside the person's entry to print for judging (precision)")
	recall := fs.Int("recall", 0, "occurrences of the graph's persons' full names to print with what the linker made of them (recall)")
	recallIn := fs.String("recall-collection", "", "draw the recall sample from this collection's chunks only (default: every collection)")
	amb := fs.Int("ambiguous", 0, "mentions of a surface several persons bear to print with what became of them")
	seed := fs.Uint64("seed", 1, "seed of the sample")
	keep := fs.Bool("keep", false, "keep the evaluation's data directory instead of deleting it")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 || len(pos) == 1 && pos[0] != "mentions" {
		return fmt.Errorf("%w: want `eval mentions [--data DIR]... [--sample N] [--seed S]`", errUsage)
	}
	if *n < 0 || *recall < 0 || *amb < 0 {
		return fmt.Errorf("%w: --sample, --recall and --ambiguous must not be negative", errUsage)
	}
	need := app.Needs{Redis: true}
	if len(dirs) > 0 {
		cleanup, err := s.freshDataDir("eval mentions", "eval-mentions-", *keep)
		if err != nil {
			return err
		}
		defer cleanup()
		s.app.LLM = llm.Config{}
		need = app.NeedsFor(app.IngestStages())
	}
	a, log, err := s.open(ctx, io, need)
	if err != nil {
		return err
	}
	defer a.Close()
	for _, d := range dirs {
		if _, err := ingestDir(ctx, a, s.tenant, d, "ingest "+filepath.Base(d), log); err != nil {
			return err
		}
	}
	ids, err := storedChunkIDs(ctx, a, s.tenant)
	if err != nil {
		return err
	}
	if err := linkStored(ctx, a, s.tenant, ids, log); err != nil {
		return err
	}
	report, err := eval.MentionsWith(ctx, eval.MentionSource{
		Chunks: func(ctx context.Context, ids []string) ([]schemas.Chunk, error) {
			return a.Chunks.Get(ctx, s.tenant, ids)
		},
		Links: func(ctx context.Context, c string) (string, error) { return a.KG.ChunkLinks(ctx, s.tenant, c) },
		EntryChunk: func(ctx context.Context, id string) (string, error) {
			e, err := a.KG.Entity(ctx, s.tenant, id)
			if errors.Is(err, graph.ErrNotFound) {
				return "", nil
			}
			return e.EntryChunk, err
		},
		Persons: func(ctx context.Context) ([]string, error) { return a.KG.Nodes(ctx, s.tenant, schemas.EntityPerson) },
		SurfaceStats: func(ctx context.Context) (map[string]graph.SurfaceStat, error) {
			return a.KG.SurfaceStats(ctx, s.tenant)
		},
		Candidates: func(ctx context.Context, surfaces []string) ([][]string, error) {
			cands, _, err := a.KG.SurfaceInfo(ctx, s.tenant, surfaces)
			return cands, err
		},
	}, ids, eval.MentionOptions{Sample: *n, Recall: *recall, RecallCollection: *recallIn, Ambiguous: *amb, Seed: *seed})
	if err != nil {
		return err
	}
	if *keep && len(dirs) > 0 {
		log.Info().Str("data_dir", filepath.Clean(s.dataDir)).Msg("evaluation state kept")
	}
	if s.json {
		return writeJSON(io.Stdout, report)
	}
	fmt.Fprintf(io.Stdout, "chunks %d (with mentions %d), mentions %d: resolved %d (outside the person's entry %d), ambiguous %d, single candidate unresolved %d, sent to review %d\n",
		report.Chunks, report.Linked, report.Mentions, report.Resolved, report.Outside, report.Ambiguous, report.Unresolved, report.Reviewed)
	var cols []string
	for c := range report.Collections {
		cols = append(cols, c)
	}
	slices.Sort(cols)
	for _, c := range cols {
		m := report.Collections[c]
		fmt.Fprintf(io.Stdout, "  %-20s chunks %d mentions %d resolved %d outside %d ambiguous %d\n", c, m.Chunks, m.Mentions, m.Resolved, m.Outside, m.Ambiguous)
	}
	for i, sm := range report.Samples {
		fmt.Fprintf(io.Stdout, "%3d %s %s → %s (%.2f, %d cand.)  %s\n", i+1, sm.ChunkID, sm.Surface, sm.Entity, sm.Score, sm.Candidates, sm.Context)
	}
	if sh := report.Shares; sh != nil {
		fmt.Fprintf(io.Stdout, "share of names among the occurrences of the %d names counted: mean %.3f, quartiles %.3f %.3f %.3f\n",
			sh.Surfaces, sh.Mean, sh.Q1, sh.Median, sh.Q3)
		if a := sh.Aliases; a != nil {
			fmt.Fprintf(io.Stdout, "share of names among the occurrences of the %d courtesy or art names counted: mean %.3f, quartiles %.3f %.3f %.3f\n",
				a.Surfaces, a.Mean, a.Q1, a.Median, a.Q3)
		}
	}
	if len(report.Recall) > 0 {
		fmt.Fprintf(io.Stdout, "recall: %d of %d occurrences of full names drawn; linked to a person of the name by length %v of %v\n",
			len(report.Recall), report.RecallPool, report.RecallLinked, report.RecallByLength)
	}
	for i, sm := range report.Recall {
		fmt.Fprintf(io.Stdout, "R%3d %s %s → %q (%.2f, %d cand.)  %s\n", i+1, sm.ChunkID, sm.Surface, sm.Linked, sm.Score, sm.Candidates, sm.Context)
	}
	for i, sm := range report.AmbiguousSample {
		fmt.Fprintf(io.Stdout, "A%3d %s %s → %q (%d cand., review %q)  %s\n", i+1, sm.ChunkID, sm.Surface, sm.Entity, sm.Candidates, sm.Review, sm.Context)
	}
	return nil
}

// storedChunkIDs lists the tenant's stored chunks (the chunk index of
// infra/redisdb's Chunks), incrementally so a large store does not block
// Redis.
func storedChunkIDs(ctx context.Context, a *app.App, tenant string) ([]string, error) {
	var ids []string
	var cursor uint64
	for {
		keys, next, err := a.Redis.SScan(ctx, "idx:{"+tenant+"}:chunks", cursor, "*", 1000).Result()
		if err != nil {
			return nil, fmt.Errorf("list stored chunks: %w", err)
		}
		ids = append(ids, keys...)
		if next == 0 {
			break
		}
		cursor = next
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// linkStored runs the linker's handler over stored chunks in batches, as
// the linker stage would on the chunks topic.
func linkStored(ctx context.Context, a *app.App, tenant string, ids []string, log zerolog.Logger) error {
	st, err := linker.New(a.KG, a.Chunks, linker.Config{Reviews: a.Pages})
	if err != nil {
		return err
	}
	rep := progress.New(int64(len(ids)), "link", log)
	defer rep.Finish()
	const batch = 200
	for lo := 0; lo < len(ids); lo += batch {
		cs, err := a.Chunks.Get(ctx, tenant, ids[lo:min(lo+batch, len(ids))])
		if err != nil {
			return err
		}
		ins := make([]pipeline.Input, len(cs))
		for i, c := range cs {
			ins[i] = pipeline.Input{Msg: c, Meta: schemas.Meta{EventID: "eval-mentions:" + c.ChunkID, Tenant: tenant}}
		}
		if _, err := st.Handle(ctx, ins); err != nil {
			return err
		}
		rep.Add(len(cs))
	}
	return nil
}
