// Package progress reports the progress of long work (ingest, eval, bench):
// a progress bar when stderr is a terminal, periodic log lines otherwise,
// so logs stay machine-readable and stdout stays free for --json output.
package progress

import (
	"io"
	"os"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Reporter counts units of work done out of a total.
type Reporter interface {
	// Add records n more units done.
	Add(n int)
	// Finish ends the report (clears the bar or logs the final line).
	Finish()
}

// New returns a bar on stderr when it is a terminal, else a reporter that
// logs at most every interval (and at the end).
func New(total int64, desc string, log zerolog.Logger) Reporter {
	if term.IsTerminal(int(os.Stderr.Fd())) {
		return Bar(os.Stderr, total, desc)
	}
	return Log(log, total, desc, 2*time.Second)
}

// Bar draws a progress bar on w.
func Bar(w io.Writer, total int64, desc string) Reporter {
	return &bar{pb: progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetWidth(30),
	)}
}

type bar struct{ pb *progressbar.ProgressBar }

func (b *bar) Add(n int) { _ = b.pb.Add(n) }
func (b *bar) Finish()   { _ = b.pb.Finish() }

// Log reports through log lines, at most one per interval.
func Log(log zerolog.Logger, total int64, desc string, interval time.Duration) Reporter {
	return &logger{log: log, total: total, desc: desc, interval: interval, start: time.Now(), last: time.Now()}
}

type logger struct {
	mu       sync.Mutex
	log      zerolog.Logger
	total    int64
	done     int64
	desc     string
	interval time.Duration
	start    time.Time
	last     time.Time
}

func (l *logger) Add(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done += int64(n)
	if time.Since(l.last) >= l.interval {
		l.last = time.Now()
		l.emit("progress")
	}
}

func (l *logger) Finish() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.emit("done")
}

// emit logs the count and the time since the reporter was made, in
// seconds and named so: zerolog writes a Dur in milliseconds, a number a
// reader of the line takes for seconds.
func (l *logger) emit(msg string) {
	l.log.Info().Str("task", l.desc).Int64("done", l.done).Int64("total", l.total).
		Float64("elapsed_seconds", time.Since(l.start).Seconds()).Msg(msg)
}

// Nop reports nothing.
func Nop() Reporter { return nop{} }

type nop struct{}

func (nop) Add(int) {}
func (nop) Finish() {}

// Counter reports work whose total is known only when the first unit is
// done: Step is the callback the evals take (done, total), which opens
// the reporter on its first call and counts one unit per call; Finish
// ends the report if it was opened.
type Counter struct {
	desc string
	log  zerolog.Logger
	rep  Reporter
}

// NewCounter returns a Counter that opens New(total, desc, log).
func NewCounter(desc string, log zerolog.Logger) *Counter {
	return &Counter{desc: desc, log: log}
}

// Step records one unit of total done.
func (c *Counter) Step(_, total int) {
	if c.rep == nil {
		c.rep = New(int64(total), c.desc, c.log)
	}
	c.rep.Add(1)
}

// Finish ends the report if Step opened one.
func (c *Counter) Finish() {
	if c.rep != nil {
		c.rep.Finish()
	}
}
