package kafka_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// echo is the trivial stage of the benchmarks: one output per input, on
// the env's output topic.
func (e *env) echo(_ context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
	out := make([][]pipeline.Output, len(ins))
	for i, in := range ins {
		out[i] = []pipeline.Output{{Topic: e.out, Msg: in.Msg}}
	}
	return out, nil
}

// BenchmarkRunLoop measures the loop's throughput through kfake over TCP:
// each iteration publishes a block of records and waits until the stage has
// handled them (consumed, echoed with acks=all, committed). msgs/s counts
// input records.
func BenchmarkRunLoop(b *testing.B) {
	for _, bc := range []struct {
		name  string
		block int
		dedup bool
	}{
		{"block=1000", 1000, false},
		{"block=1000/seen-markers", 1000, true},
		{"block=1", 1, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e := newEnv(b)
			var handled atomic.Int64
			progress := make(chan struct{}, 1)
			opts := kafka.Options{Observer: kafka.ObserverFunc(func(s kafka.BatchStats) {
				handled.Add(int64(s.Handled))
				select {
				case progress <- struct{}{}:
				default:
				}
			})}
			if bc.dedup {
				opts.Deduper = e.seen
			}
			r := e.run(e.echo, opts)
			ctx := context.Background()
			var seq, target int64
			recs := make([]kafka.Record, bc.block)
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				for i := range recs {
					seq++
					d := schemas.Document{DocID: fmt.Sprintf("b-%d", seq), Source: "bench", Text: "一段文字 some text of a chunk-sized document"}
					recs[i] = kafka.Record{Topic: e.in, Msg: d, Meta: schemas.Meta{EventID: d.DocID}}
				}
				if err := e.prod.Publish(ctx, recs...); err != nil {
					b.Fatal(err)
				}
				target += int64(bc.block)
				for handled.Load() < target {
					select {
					case <-progress:
					case <-time.After(10 * time.Second):
						b.Fatalf("stage stalled at %d of %d", handled.Load(), target)
					}
				}
			}
			b.ReportMetric(float64(target)/time.Since(start).Seconds(), "msgs/s")
			if err := r.stop(); err != nil {
				b.Fatal(err)
			}
		})
	}
}
