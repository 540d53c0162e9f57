package producers

import (
	"context"
	"fmt"
	"io"

	"github.com/annalist-dev/annalist/internal/kit/progress"
)

// Summary counts what an ingest run did.
type Summary struct {
	Files     int      `json:"files"`
	Documents int      `json:"documents"`
	Bytes     int64    `json:"bytes"`
	Chars     int64    `json:"chars"`
	Errors    []string `json:"errors,omitempty"`
}

// sendBatch is how many documents go to the sink per call: enough to
// amortise the produce round trip, small enough to keep memory flat.
const sendBatch = 64

// IngestFiles walks paths and sends every document to sink. Files that
// cannot be read become entries in Summary.Errors and do not stop the run;
// a sink error stops it (nothing is reported sent that was not).
func IngestFiles(ctx context.Context, paths []string, opts Options, tenant string, sink Sink, rep progress.Reporter) (Summary, error) {
	var sum Summary
	files, err := Walk(paths, opts)
	if err != nil {
		return sum, err
	}
	if rep == nil {
		rep = progress.Nop()
	}
	defer rep.Finish()
	var batch []Item
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := sink.Send(ctx, tenant, batch); err != nil {
			return fmt.Errorf("publish %d documents: %w", len(batch), err)
		}
		for _, it := range batch {
			sum.Documents++
			sum.Chars += int64(len([]rune(it.Doc.Text)))
		}
		batch = batch[:0]
		return nil
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		items, errs := Read(f, opts)
		for _, e := range errs {
			sum.Errors = append(sum.Errors, e.Error())
		}
		sum.Files++
		sum.Bytes += f.Size
		batch = append(batch, items...)
		if len(batch) >= sendBatch {
			if err := flush(); err != nil {
				return sum, err
			}
		}
		rep.Add(1)
	}
	return sum, flush()
}

// IngestJSONL reads JSON Lines from r and sends every document to sink.
func IngestJSONL(ctx context.Context, r io.Reader, name string, def JSONLDefaults, tenant string, sink Sink) (Summary, error) {
	var sum Summary
	items, errs := ReadJSONL(r, name, def)
	for _, e := range errs {
		sum.Errors = append(sum.Errors, e.Error())
	}
	for i := 0; i < len(items); i += sendBatch {
		end := min(i+sendBatch, len(items))
		if err := sink.Send(ctx, tenant, items[i:end]); err != nil {
			return sum, fmt.Errorf("publish documents: %w", err)
		}
		for _, it := range items[i:end] {
			sum.Documents++
			sum.Bytes += int64(len(it.Doc.Text))
			sum.Chars += int64(len([]rune(it.Doc.Text)))
		}
	}
	return sum, nil
}
