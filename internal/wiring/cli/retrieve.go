package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/writer/biography"
	"github.com/annalist-dev/annalist/internal/evaluation/dataset"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/kit/progress"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/schemas"
)

// RetrieveOutput is the JSON of `annalist retrieve NAME`: the reference set
// the writer builds from the knowledge graph, and the vector-only
// baseline's top k for the same name.
type RetrieveOutput struct {
	Subject  string              `json:"subject"`
	Name     string              `json:"name,omitempty"`
	EntityID string              `json:"entity_id,omitempty"`
	Aliases  []string            `json:"aliases,omitempty"`
	Homonyms []string            `json:"homonyms,omitempty"`
	KG       []schemas.Reference `json:"kg"`
	Vector   []schemas.Reference `json:"vector"`
}

// cmdRetrieve is `annalist retrieve NAME [--k N]`: the reference set is the
// writer's (app.Retriever, so --vector-k fuses vector hits as the writer
// would), the baseline is vector search alone.
func cmdRetrieve(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("retrieve", io.Stderr)
	var s service
	s.register(fs)
	k := fs.Int("k", 10, "chunks the vector-only baseline returns")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || strings.TrimSpace(pos[0]) == "" {
		return fmt.Errorf("%w: want `retrieve NAME`", errUsage)
	}
	if *k <= 0 {
		return fmt.Errorf("%w: --k must be positive", errUsage)
	}
	a, log, err := s.open(ctx, io, app.Needs{Redis: true, Vectors: true})
	if err != nil {
		// The embedded vector index belongs to the process that owns the
		// data directory (a running demo); the graph is still readable.
		first := err
		if a, log, err = s.open(ctx, io, app.Needs{Redis: true}); err != nil {
			return errors.Join(first, err)
		}
		log.Warn().Err(first).Msg("vector store unavailable: the vector baseline is empty")
	}
	defer a.Close()
	kg, err := a.Retriever()
	if err != nil {
		return err
	}
	out := RetrieveOutput{Subject: pos[0], KG: []schemas.Reference{}, Vector: []schemas.Reference{}}
	rs, err := kg.Retrieve(ctx, s.tenant, pos[0])
	switch {
	case errors.Is(err, kind.ErrUnknownSubject):
		log.Warn().Str("subject", pos[0]).Msg("the knowledge graph knows no such subject")
	case err != nil:
		return err
	default:
		out.Name, out.EntityID, out.Aliases, out.Homonyms = rs.Name, rs.EntityID, rs.Aliases, rs.Homonyms
		out.KG = rs.References
	}
	if a.Vectors != nil {
		baseline := biography.NewRetriever(a.KG, a.Chunks, biography.WithVectors(a.Embedder, a.Vectors, *k))
		if out.Vector, err = baseline.VectorBaseline(ctx, s.tenant, pos[0], *k); err != nil {
			return err
		}
	}
	if s.json {
		return writeJSON(io.Stdout, out)
	}
	if out.Name != "" {
		fmt.Fprintf(io.Stdout, "%s → %s (%s), names %s\n", out.Subject, out.Name, out.EntityID, strings.Join(out.Aliases, "、"))
	}
	for _, part := range []struct {
		name string
		refs []schemas.Reference
	}{{"kg", out.KG}, {"vector", out.Vector}} {
		fmt.Fprintf(io.Stdout, "%s: %d chunks\n", part.name, len(part.refs))
		for _, r := range part.refs {
			fmt.Fprintf(io.Stdout, "  %.4f %-9s %s  %s\n", r.Score, r.Source, r.ChunkID, snippet(r.Text, 40))
		}
	}
	return nil
}

func snippet(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// evalRetrieval is `annalist eval retrieval --data DIR [--k N]`: it ingests
// DIR into a fresh embedded data directory (offline engine, so the chunk
// ids are the offline chunker's and the gold answer can be computed from
// the text), then runs the KG retriever and the vector-only baseline on
// every query (internal/evaluation/eval) and prints their macro-averaged precision,
// recall and F1. args are the eval command's arguments, with or without
// the suite's name.
func evalRetrieval(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("eval retrieval", io.Stderr)
	var s service
	s.register(fs)
	data := fs.String("data", "", "liezhuan volumes (default: "+dataset.EnvVar+"/mingshi-liezhuan)")
	k := fs.Int("k", 10, "chunks the vector-only baseline returns per query")
	keep := fs.Bool("keep", false, "keep the evaluation's data directory instead of deleting it")
	misses := fs.Bool("misses", false, "list the queries a system scored F1 < 0.5 on")
	strict := fs.Bool("strict", false, "relevant means the person's own text (not the entries of people attached to it) or a chunk naming the person")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 || len(pos) == 1 && pos[0] != "retrieval" {
		return fmt.Errorf("%w: want `eval retrieval --data DIR`", errUsage)
	}
	if *k <= 0 {
		return fmt.Errorf("%w: --k must be positive", errUsage)
	}
	dir, err := evalData(*data)
	if err != nil {
		return err
	}
	a, log, closeApp, err := s.openOfflineIngestion(ctx, io, "eval retrieval", "eval-retrieval-", *keep, app.IngestStages())
	if err != nil {
		return err
	}
	defer closeApp()
	if _, err := ingestDir(ctx, a, s.tenant, dir, "ingest", log); err != nil {
		return err
	}
	ch := chunker.New(a.Config.Chunker)
	queries, err := eval.RetrievalQueries(ctx, dir, ch.Chunk)
	if err != nil {
		return err
	}
	if err := sameChunks(ctx, a, s.tenant, queries); err != nil {
		return err
	}
	kg := biography.NewRetriever(a.KG, a.Chunks)
	vec := biography.NewRetriever(a.KG, a.Chunks, biography.WithVectors(a.Embedder, a.Vectors, *k))
	systems := map[string]eval.RetrieveFunc{
		"kg": func(ctx context.Context, name string) ([]schemas.Reference, error) {
			rs, err := kg.Retrieve(ctx, s.tenant, name)
			if errors.Is(err, kind.ErrUnknownSubject) {
				return nil, nil
			}
			if err != nil {
				return nil, err
			}
			return rs.References, nil
		},
		"vector": func(ctx context.Context, name string) ([]schemas.Reference, error) {
			return vec.VectorBaseline(ctx, s.tenant, name, *k)
		},
	}
	rep := progress.New(int64(len(queries)), "eval retrieval", log)
	report, err := eval.RetrievalWith(ctx, queries, systems, eval.RetrievalOptions{Strict: *strict}, func(int, int) { rep.Add(1) })
	rep.Finish()
	if err != nil {
		return err
	}
	if !*misses {
		report.Misses = nil
	}
	if *keep {
		log.Info().Str("data_dir", filepath.Clean(s.dataDir)).Msg("evaluation state kept")
	}
	if s.json {
		return writeJSON(io.Stdout, report)
	}
	definition := "relevant: the person's entry or a chunk naming the person"
	if report.Strict {
		definition = "strict: the person's own text or a chunk naming the person"
	}
	fmt.Fprintf(io.Stdout, "%d queries (macro averages; %s)\n", report.Queries, definition)
	for _, n := range []string{"kg", "vector"} {
		sc := report.Scores[n]
		fmt.Fprintf(io.Stdout, "%-6s precision %.3f recall %.3f f1 %.3f (%.1f references per query)\n",
			n, sc.Precision, sc.Recall, sc.F1, sc.MeanReferences)
	}
	return nil
}

// sameChunks checks that the store holds the gold chunks as the offline
// chunker made them, so ids compare: a store chunked otherwise (by a model)
// cannot be scored against this gold.
func sameChunks(ctx context.Context, a *app.App, tenant string, queries []eval.RetrievalQuery) error {
	var ids []string
	for _, q := range queries {
		ids = append(ids, q.Chunks...)
	}
	got, err := a.Chunks.Get(ctx, tenant, ids)
	if err != nil {
		return err
	}
	if len(got) != len(ids) {
		return fmt.Errorf("eval retrieval: the store holds %d of the %d gold chunks; it was not chunked by the offline chunker", len(got), len(ids))
	}
	return nil
}
