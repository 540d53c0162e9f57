package cli

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"

	"github.com/annalist-dev/annalist/infra/metrics"
)

// benchProfiles are the pprof profiles a bench writes of its own
// process: CPU, where goroutines blocked (channels, locks, I/O waits
// through the runtime) and contended mutexes. `go tool pprof FILE` reads
// them.
type benchProfiles struct {
	cpu, block, mutex string
}

// Sampling of the block and mutex profiles while a bench writes them: a
// blocking event of a microsecond or more is sampled (one in
// blockRateNanos nanoseconds of blocking on average), one contention in
// mutexFraction.
const (
	blockRateNanos = 1000
	mutexFraction  = 10
)

func (p *benchProfiles) register(fs *flag.FlagSet) {
	fs.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile of the benchmark to this file")
	fs.StringVar(&p.block, "blockprofile", "", "write a profile of where the benchmark's goroutines blocked to this file")
	fs.StringVar(&p.mutex, "mutexprofile", "", "write a profile of the benchmark's contended mutexes to this file")
}

// start starts the profiles asked for; the returned stop writes them.
func (p benchProfiles) start() (stop func() error, err error) {
	var cpu *os.File
	if p.cpu != "" {
		if cpu, err = os.Create(p.cpu); err != nil {
			return nil, fmt.Errorf("cpu profile: %w", err)
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return nil, fmt.Errorf("cpu profile: %w", err)
		}
	}
	if p.block != "" {
		runtime.SetBlockProfileRate(blockRateNanos)
	}
	if p.mutex != "" {
		runtime.SetMutexProfileFraction(mutexFraction)
	}
	return func() error {
		var errs []error
		if cpu != nil {
			pprof.StopCPUProfile()
			errs = append(errs, cpu.Close())
		}
		for _, w := range []struct{ name, file string }{{"block", p.block}, {"mutex", p.mutex}} {
			if w.file == "" {
				continue
			}
			errs = append(errs, writeProfile(w.name, w.file))
		}
		runtime.SetBlockProfileRate(0)
		runtime.SetMutexProfileFraction(0)
		return errors.Join(errs...)
	}, nil
}

func writeProfile(name, file string) error {
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("%s profile: %w", name, err)
	}
	if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("%s profile: %w", name, err)
	}
	return f.Close()
}

// BenchRedis is what a bench's process spent on Redis: round trips (a
// pipeline or script call counts once), per unit of work (a document
// ingested, a page generated), the seconds the client waited, and the
// commands that made most of them.
type BenchRedis struct {
	RoundTrips uint64  `json:"round_trips"`
	PerUnit    float64 `json:"round_trips_per_unit"`
	Unit       string  `json:"unit"`
	Seconds    float64 `json:"seconds"`
	// PipelineShare is the share of round trips that were pipelines or
	// transactions (each carrying several commands).
	PipelineShare float64             `json:"pipeline_share"`
	TopByCalls    []BenchRedisCommand `json:"top_by_calls"`
	// Dials counts the connections the client opened (not round trips).
	Dials uint64 `json:"dials"`
}

// BenchRedisCommand is one command's share of a bench's round trips.
type BenchRedisCommand struct {
	Command string  `json:"command"`
	Calls   uint64  `json:"calls"`
	Seconds float64 `json:"seconds"`
}

// benchRedis summarises the round trips the registry counted after the
// counts since (nil: all of them) over units of work.
func benchRedis(reg *metrics.Registry, since map[string]metrics.RoundTrips, units int, unit string) (*BenchRedis, error) {
	by, err := reg.RedisRoundTrips()
	if err != nil {
		return nil, err
	}
	for cmd, rt := range since {
		now := by[cmd]
		now.Calls -= rt.Calls
		now.Seconds -= rt.Seconds
		by[cmd] = now
	}
	out := &BenchRedis{Unit: unit}
	for cmd, rt := range by {
		if cmd == "dial" {
			out.Dials = rt.Calls
			continue
		}
		if rt.Calls == 0 {
			continue
		}
		out.RoundTrips += rt.Calls
		out.Seconds += rt.Seconds
		out.TopByCalls = append(out.TopByCalls, BenchRedisCommand{Command: cmd, Calls: rt.Calls, Seconds: rt.Seconds})
	}
	slices.SortFunc(out.TopByCalls, func(a, b BenchRedisCommand) int {
		return cmp.Or(cmp.Compare(b.Calls, a.Calls), cmp.Compare(a.Command, b.Command))
	})
	if len(out.TopByCalls) > 10 {
		out.TopByCalls = out.TopByCalls[:10]
	}
	if units > 0 {
		out.PerUnit = float64(out.RoundTrips) / float64(units)
	}
	if out.RoundTrips > 0 {
		out.PipelineShare = float64(by["pipeline"].Calls) / float64(out.RoundTrips)
	}
	return out, nil
}

// benchStages is the time each stage spent in its handler, summed over
// its batches (stages overlap, so the sum can exceed the run): the stage
// nearest the run's length is the one the run waited on. It counts from
// since (nil: from when the registry was wired).
func benchStages(reg *metrics.Registry, since map[string]metrics.RoundTrips) (map[string]float64, error) {
	stages, err := reg.StageHandling()
	if err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(stages))
	for st, h := range stages {
		if v := h.Seconds - since[st].Seconds; v > 0 {
			out[st] = math.Round(v*1000) / 1000
		}
	}
	return out, nil
}
