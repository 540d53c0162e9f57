package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/llm"
	"github.com/annalist-dev/annalist/internal/evaluation/dataset"
	"github.com/annalist-dev/annalist/internal/kit/progress"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/producers"
)

// evalData is the folder of documents a measuring command reads: --data,
// else the mingshi-liezhuan evaluation data.
func evalData(data string) (string, error) {
	if data == "" {
		data = dataset.Path("mingshi-liezhuan")
	}
	if data == "" {
		return "", fmt.Errorf("%w: --data DIR is required", errUsage)
	}
	return data, nil
}

// freshDataDir points a measuring command (bench, eval) at a new directory
// under --data-dir, so it starts from an empty store — never a re-ingest
// the seen: markers would short-cut — and leaves the user's state alone.
// The returned function removes the directory unless keep is set.
func (s *service) freshDataDir(command, prefix string, keep bool) (func(), error) {
	if !s.embedded() {
		return nil, fmt.Errorf("%w: %s runs on its own embedded services; drop --brokers", errUsage, command)
	}
	if err := os.MkdirAll(s.dataDir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(s.dataDir, prefix)
	if err != nil {
		return nil, err
	}
	s.dataDir = tmp
	if keep {
		return func() {}, nil
	}
	return func() { _ = os.RemoveAll(tmp) }, nil
}

// openOfflineIngestion is how an evaluation that ingests its own corpus
// starts: a fresh data directory (freshDataDir), the offline engine
// throughout — an evaluation's cases must not depend on a model — and the
// stages it names (at least the ingestion stages) in this process. close
// closes the app, then removes the directory unless keep is set.
func (s *service) openOfflineIngestion(ctx context.Context, stdio IO, command, prefix string, keep bool, stages []string) (a *app.App, log zerolog.Logger, close func(), err error) {
	cleanup, err := s.freshDataDir(command, prefix, keep)
	if err != nil {
		return nil, log, nil, err
	}
	s.app.LLM = llm.Config{}
	a, log, err = s.open(ctx, stdio, app.NeedsFor(stages))
	if err != nil {
		cleanup()
		return nil, log, nil, err
	}
	return a, log, func() { a.Close(); cleanup() }, nil
}

// ingestDir publishes every file under dir, then the extra documents, and
// waits until the ingestion stages, run in this process, are idle. A
// progress reporter counts the files when desc is not empty.
func ingestDir(ctx context.Context, a *app.App, tenant, dir, desc string, log zerolog.Logger, extra ...producers.Item) (app.IngestResult, error) {
	return a.Ingest(ctx, tenant, true, true, func(ctx context.Context, sink producers.Sink) (producers.Summary, error) {
		var rep progress.Reporter
		if desc != "" {
			files, err := producers.Walk([]string{dir}, producers.Options{})
			if err != nil {
				return producers.Summary{}, err
			}
			rep = progress.New(int64(len(files)), desc, log)
		}
		sum, err := producers.IngestFiles(ctx, []string{dir}, producers.Options{}, tenant, sink, rep)
		if err != nil || len(extra) == 0 {
			return sum, err
		}
		sum.Documents += len(extra)
		return sum, sink.Send(ctx, tenant, extra)
	})
}
