package middleware_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/pipeline/middleware"
	"github.com/annalist-dev/annalist/pipeline/pipelinetest"
	"github.com/annalist-dev/annalist/schemas"
)

var (
	errTransient = errors.New("backend unavailable")
	errRefused   = pipeline.Permanentf("refused")
)

// inputs is a batch of one document per event id, traced as "tr-" + id.
func inputs(ids ...string) []pipeline.Input {
	out := make([]pipeline.Input, len(ids))
	for i, id := range ids {
		out[i] = pipelinetest.Input(schemas.Document{DocID: id, Text: "x"}, pipelinetest.Event(id),
			pipelinetest.Trace("tr-"+id), pipelinetest.Topic("in"), pipelinetest.Offset(7))
	}
	return out
}

// fake is a batch handler scripted per event id: the n-th call that
// includes an input fails with script[id][n] when that is set; a call
// fails as a whole when any of its inputs fails, as a transactional batch
// handler does. Successful inputs echo themselves to topic "out".
type fake struct {
	script map[string][]error
	mu     sync.Mutex
	seen   map[string]int
	calls  [][]string
}

func (f *fake) handle(_ context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen == nil {
		f.seen = map[string]int{}
	}
	var ids []string
	var fail error
	for _, in := range ins {
		id := in.Meta.EventID
		ids = append(ids, id)
		n := f.seen[id]
		f.seen[id]++
		if s := f.script[id]; n < len(s) && s[n] != nil && fail == nil {
			fail = s[n]
		}
	}
	f.calls = append(f.calls, ids)
	if fail != nil {
		return nil, fail
	}
	out := make([][]pipeline.Output, len(ins))
	for i, in := range ins {
		out[i] = []pipeline.Output{{Topic: "out", Msg: in.Msg}}
	}
	return out, nil
}

func (f *fake) callLog() string {
	var parts []string
	for _, c := range f.calls {
		parts = append(parts, strings.Join(c, ","))
	}
	return strings.Join(parts, " | ")
}

// outcome names each input's fate in a chain's answer.
func outcome(t *testing.T, outs [][]pipeline.Output, err error, n int) []string {
	t.Helper()
	if err == nil && len(outs) != n {
		t.Fatalf("%d output lists for %d inputs", len(outs), n)
	}
	res := make([]string, n)
	for i := range n {
		e := middleware.ErrorOf(err, i)
		var rj *middleware.Rejected
		switch {
		case e == nil:
			res[i] = fmt.Sprintf("ok:%d", len(outs[i]))
		case errors.Is(e, middleware.ErrSkipped):
			res[i] = "skipped"
		case errors.Is(e, middleware.ErrAbandoned):
			res[i] = "abandoned"
		case errors.As(e, &rj) && rj.Permanent:
			res[i] = "dead:permanent"
		case errors.As(e, &rj):
			res[i] = "dead:transient"
		case pipeline.IsPermanent(e):
			res[i] = "permanent"
		default:
			res[i] = "failed"
		}
	}
	return res
}

func TestChainOrder(t *testing.T) {
	var order []string
	mark := func(name string) middleware.Middleware {
		return func(next pipeline.BatchHandler) pipeline.BatchHandler {
			return func(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
				order = append(order, name)
				return next(ctx, ins)
			}
		}
	}
	h := middleware.Chain(func(context.Context, []pipeline.Input) ([][]pipeline.Output, error) {
		order = append(order, "handler")
		return [][]pipeline.Output{nil}, nil
	}, mark("a"), nil, mark("b"))
	if _, err := h(context.Background(), inputs("x")); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(order, ","); got != "a,b,handler" {
		t.Errorf("order %s, want a,b,handler (first middleware outermost, nil left out)", got)
	}
}

// dedup is a Deduper in memory.
type dedup struct {
	seen    map[string]bool
	seenErr error
	short   bool
	markErr error
	marked  []string
	group   string
}

func (d *dedup) Seen(_ context.Context, group string, ids []string) ([]bool, error) {
	d.group = group
	if d.seenErr != nil {
		return nil, d.seenErr
	}
	out := make([]bool, len(ids))
	for i, id := range ids {
		out[i] = d.seen[id]
	}
	if d.short {
		out = out[:len(out)-1]
	}
	return out, nil
}

func (d *dedup) Mark(_ context.Context, group string, ids []string) error {
	if d.markErr != nil {
		return d.markErr
	}
	d.marked = append(d.marked, ids...)
	return nil
}

func TestIdempotent(t *testing.T) {
	for _, tc := range []struct {
		name      string
		d         *dedup
		ins       []string
		script    map[string][]error
		want      []string
		calls     string
		acked     []string // inputs the runtime reports acknowledged
		marked    []string
		ackErr    bool
		withoutDB bool
	}{
		{name: "repeat within a batch", ins: []string{"a", "b", "a"}, withoutDB: true,
			want: []string{"ok:1", "ok:1", "skipped"}, calls: "a,b"},
		{name: "seen markers", d: &dedup{seen: map[string]bool{"b": true}}, ins: []string{"a", "b", "c"},
			want: []string{"ok:1", "skipped", "ok:1"}, calls: "a,c", acked: []string{"a", "c"}, marked: []string{"a", "c"}},
		{name: "all seen", d: &dedup{seen: map[string]bool{"a": true}}, ins: []string{"a"},
			want: []string{"skipped"}, calls: "", acked: nil, marked: nil},
		{name: "failed lookup handles everything", d: &dedup{seen: map[string]bool{"b": true}, seenErr: errTransient},
			ins: []string{"a", "b"}, want: []string{"ok:1", "ok:1"}, calls: "a,b", acked: []string{"a", "b"}, marked: []string{"a", "b"}},
		{name: "short answer handles everything", d: &dedup{seen: map[string]bool{"b": true}, short: true},
			ins: []string{"a", "b"}, want: []string{"ok:1", "ok:1"}, calls: "a,b", acked: []string{"a", "b"}, marked: []string{"a", "b"}},
		{name: "only acknowledged inputs are marked", d: &dedup{}, ins: []string{"a", "b"},
			want: []string{"ok:1", "ok:1"}, calls: "a,b", acked: []string{"b"}, marked: []string{"b"}},
		{name: "a failed call marks nothing", d: &dedup{}, ins: []string{"a", "b"}, script: map[string][]error{"b": {errTransient}},
			want: []string{"failed", "failed"}, calls: "a,b", acked: nil, marked: nil},
		{name: "failed marking is reported", d: &dedup{markErr: errTransient}, ins: []string{"a"},
			want: []string{"ok:1"}, calls: "a", acked: []string{"a"}, ackErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake{script: tc.script}
			var d middleware.Deduper
			if !tc.withoutDB {
				d = tc.d
			}
			h := middleware.Idempotent(d, "annalist.test")(f.handle)
			ctx, acks := middleware.WithAcks(context.Background())
			outs, err := h(ctx, inputs(tc.ins...))
			if got := outcome(t, outs, err, len(tc.ins)); !slices.Equal(got, tc.want) {
				t.Errorf("outcome %v, want %v", got, tc.want)
			}
			if got := f.callLog(); got != tc.calls {
				t.Errorf("calls %q, want %q", got, tc.calls)
			}
			if tc.d == nil || tc.withoutDB {
				return
			}
			if len(tc.d.marked) != 0 {
				t.Fatalf("marked %v before the acknowledgement", tc.d.marked)
			}
			if err := acks.Acked(ctx, inputs(tc.acked...)); (err != nil) != tc.ackErr {
				t.Errorf("Acked = %v, want an error: %v", err, tc.ackErr)
			}
			if !slices.Equal(tc.d.marked, tc.marked) {
				t.Errorf("marked %v, want %v", tc.d.marked, tc.marked)
			}
			if tc.d.group != "annalist.test" && tc.d.seen != nil {
				t.Errorf("looked up group %q", tc.d.group)
			}
		})
	}
}

// Without a runtime that acknowledges outputs nothing is marked: marking
// before the acknowledgement could lose outputs.
func TestIdempotentMarksNothingWithoutAcks(t *testing.T) {
	d := &dedup{}
	f := &fake{}
	if _, err := middleware.Idempotent(d, "g")(f.handle)(context.Background(), inputs("a")); err != nil {
		t.Fatal(err)
	}
	if len(d.marked) != 0 {
		t.Fatalf("marked %v with no acknowledgement", d.marked)
	}
}

func TestDeadLetter(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		want []string
	}{
		{"success", context.Background(), nil, []string{"ok:1", "ok:1"}},
		{"permanent", context.Background(), errRefused, []string{"dead:permanent", "dead:permanent"}},
		{"transient, retries spent", context.Background(), errTransient, []string{"dead:transient", "dead:transient"}},
		{"decode error is permanent", context.Background(), fmt.Errorf("x: %w", schemas.ErrDecode), []string{"dead:permanent", "dead:permanent"}},
		{"per input", context.Background(), middleware.InputErrors{nil, errRefused}, []string{"ok:1", "dead:permanent"}},
		{"skipped and abandoned pass", context.Background(), middleware.InputErrors{middleware.ErrSkipped, middleware.ErrAbandoned}, []string{"skipped", "abandoned"}},
		{"drain timeout abandons", cancelled, errTransient, []string{"abandoned", "abandoned"}},
		{"drain timeout abandons even a permanent error", cancelled, errRefused, []string{"abandoned", "abandoned"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := middleware.DeadLetter()(func(_ context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
				out := make([][]pipeline.Output, len(ins))
				for i := range out {
					out[i] = []pipeline.Output{{Topic: "out"}}
				}
				return out, tc.err
			})
			outs, err := h(tc.ctx, inputs("a", "b"))
			if got := outcome(t, outs, err, 2); !slices.Equal(got, tc.want) {
				t.Errorf("outcome %v, want %v", got, tc.want)
			}
			var rj *middleware.Rejected
			if errors.As(middleware.ErrorOf(err, 1), &rj) && !errors.Is(rj, middleware.ErrorOf(tc.err, 1)) {
				t.Errorf("rejection %v does not wrap the error", rj)
			}
		})
	}
}

func TestIsolate(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		ins    []string
		script map[string][]error
		want   []string
		calls  string
	}{
		{name: "success is not split", ins: []string{"a", "b", "c"},
			want: []string{"ok:1", "ok:1", "ok:1"}, calls: "a,b,c"},
		{name: "one bad input fails alone", ins: []string{"a", "bad", "c"}, script: map[string][]error{"bad": {errRefused, errRefused}},
			want: []string{"ok:1", "permanent", "ok:1"}, calls: "a,bad,c | a | bad | c"},
		{name: "a batch failure that does not recur", ins: []string{"a", "b"}, script: map[string][]error{"b": {errTransient}},
			want: []string{"ok:1", "ok:1"}, calls: "a,b | a | b"},
		{name: "one input is not run twice", ins: []string{"a"}, script: map[string][]error{"a": {errTransient}},
			want: []string{"failed"}, calls: "a"},
		{name: "drain timeout abandons the batch without splitting it", ctx: cancelled, ins: []string{"a", "b"},
			script: map[string][]error{"a": {errTransient}}, want: []string{"abandoned", "abandoned"}, calls: "a,b"},
		{name: "an abandoned input abandons the rest", ins: []string{"a", "b", "c"},
			script: map[string][]error{"a": {errTransient}, "b": {errTransient, middleware.ErrAbandoned}},
			want:   []string{"ok:1", "abandoned", "abandoned"}, calls: "a,b,c | a | b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			f := &fake{script: tc.script}
			outs, err := middleware.Isolate()(f.handle)(ctx, inputs(tc.ins...))
			if got := outcome(t, outs, err, len(tc.ins)); !slices.Equal(got, tc.want) {
				t.Errorf("outcome %v, want %v", got, tc.want)
			}
			if got := f.callLog(); got != tc.calls {
				t.Errorf("calls %q, want %q", got, tc.calls)
			}
		})
	}
}

func TestTrace(t *testing.T) {
	var buf bytes.Buffer
	base := zerolog.New(&buf).With().Str("stage", "s").Logger()
	fields := func(c zerolog.Context, in pipeline.Input) zerolog.Context {
		return c.Str("event_id", in.Meta.EventID)
	}
	var traces []string
	h := middleware.Trace(base, fields)(func(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
		zerolog.Ctx(ctx).Info().Int("n", len(ins)).Msg("call")
		traces = append(traces, pipeline.TraceID(ctx))
		return make([][]pipeline.Output, len(ins)), nil
	})
	for _, ins := range [][]pipeline.Input{inputs("one"), inputs("a", "b")} {
		if _, err := h(context.Background(), ins); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("log lines: %q", buf.String())
	}
	var one, many map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &one); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(lines[1]), &many); err != nil {
		t.Fatal(err)
	}
	if one["stage"] != "s" || one["event_id"] != "one" {
		t.Errorf("a call of one input logs %v, want the stage and its event id", one)
	}
	if many["stage"] != "s" || many["event_id"] != nil {
		t.Errorf("a call of a batch logs %v, want the stage alone", many)
	}
	if !slices.Equal(traces, []string{"tr-one", ""}) {
		t.Errorf("trace ids in the context %q, want the input's for one input and none for a batch", traces)
	}
}

func TestRetry(t *testing.T) {
	stopped := make(chan struct{})
	close(stopped)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name     string
		ctx      context.Context
		stop     <-chan struct{}
		ins      []string
		script   map[string][]error
		want     []string
		calls    string
		backoffs []int
	}{
		{name: "success", ins: []string{"a"}, want: []string{"ok:1"}, calls: "a"},
		{name: "flaky input succeeds", ins: []string{"a"}, script: map[string][]error{"a": {errTransient, errTransient}},
			want: []string{"ok:1"}, calls: "a | a | a", backoffs: []int{1, 2}},
		{name: "permanent error is not retried", ins: []string{"a"}, script: map[string][]error{"a": {errRefused}},
			want: []string{"permanent"}, calls: "a"},
		// A transient error is an outage, not a bad input: there is no
		// bound on the attempts, the input is called until it succeeds.
		{name: "transient errors never run out", ins: []string{"a"}, script: map[string][]error{"a": {errTransient, errTransient, errTransient, errTransient, errTransient, errTransient}},
			want: []string{"ok:1"}, calls: "a | a | a | a | a | a | a", backoffs: []int{1, 2, 3, 4, 5, 6}},
		{name: "permanent after transient", ins: []string{"a"}, script: map[string][]error{"a": {errTransient, errRefused}},
			want: []string{"permanent"}, calls: "a | a", backoffs: []int{1}},
		{name: "shutdown ends the wait", stop: stopped, ins: []string{"a"}, script: map[string][]error{"a": {errTransient}},
			want: []string{"abandoned"}, calls: "a", backoffs: []int{1}},
		{name: "work context done", ctx: cancelled, ins: []string{"a"}, script: map[string][]error{"a": {errTransient}},
			want: []string{"abandoned"}, calls: "a"},
		{name: "a batch is not retried", ins: []string{"a", "b"}, script: map[string][]error{"a": {errTransient}},
			want: []string{"failed", "failed"}, calls: "a,b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			var backoffs []int
			p := middleware.RetryPolicy{Stop: tc.stop, Backoff: func(n int) time.Duration {
				backoffs = append(backoffs, n)
				return time.Microsecond
			}}
			f := &fake{script: tc.script}
			outs, err := middleware.Retry(p)(f.handle)(ctx, inputs(tc.ins...))
			if got := outcome(t, outs, err, len(tc.ins)); !slices.Equal(got, tc.want) {
				t.Errorf("outcome %v, want %v", got, tc.want)
			}
			if got := f.callLog(); got != tc.calls {
				t.Errorf("calls %q, want %q", got, tc.calls)
			}
			if !slices.Equal(backoffs, tc.backoffs) {
				t.Errorf("backoffs after attempts %v, want %v", backoffs, tc.backoffs)
			}
		})
	}
}

// An input whose dependency is down for its first five calls is handled
// by the runtime's chain on the sixth, not dead-lettered: the stage was
// paused from the first failure to the success, each retry was observed,
// and the backoff grew with the attempts while the stage waited.
func TestRuntimePausesOnTransientErrors(t *testing.T) {
	const downFor = 5
	// The batch call fails too, before Isolate gives a its own calls.
	f := &fake{script: map[string][]error{"a": slices.Repeat([]error{errTransient}, 1+downFor)}}
	var (
		retries  []int
		resumed  []int
		paused   bool
		backoffs []int
	)
	rt := middleware.Runtime{Group: "g", Retry: middleware.RetryPolicy{
		Backoff: func(n int) time.Duration { backoffs = append(backoffs, n); return 0 },
		OnRetry: func(_ context.Context, attempt int, err error) {
			if !errors.Is(err, errTransient) {
				t.Errorf("retry %d observed with %v, want the transient error", attempt, err)
			}
			if attempt == 1 {
				paused = true
			}
			retries = append(retries, attempt)
		},
		OnResume: func(_ context.Context, calls int) {
			paused = false
			resumed = append(resumed, calls)
		},
	}}
	ctx, _ := middleware.WithAcks(context.Background())
	outs, err := rt.Wrap(f.handle)(ctx, inputs("a", "b"))
	if got := outcome(t, outs, err, 2); !slices.Equal(got, []string{"ok:1", "ok:1"}) {
		t.Fatalf("outcome %v, want both inputs handled", got)
	}
	// The batch call, then a's six calls, then b's one.
	if got, want := f.callLog(), "a,b | a | a | a | a | a | a | b"; got != want {
		t.Errorf("calls %q, want %q", got, want)
	}
	if !slices.Equal(retries, []int{1, 2, 3, 4, 5}) || !slices.Equal(backoffs, retries) {
		t.Errorf("retries observed %v with backoffs %v, want 1..%d for both", retries, backoffs, downFor)
	}
	if paused || !slices.Equal(resumed, []int{downFor + 1}) {
		t.Errorf("paused %v, resumed %v: want resumed once after %d calls", paused, resumed, downFor+1)
	}
}

// Transient is the one decision between pausing and dead-lettering: an
// unclassified error is transient; decode, validation, ErrPermanent and
// a panic (as Recover reports it) are not, nor the chain's outcomes.
func TestTransient(t *testing.T) {
	var panicErr error
	_, panicErr = middleware.Recover()(func(context.Context, []pipeline.Input) ([][]pipeline.Output, error) {
		panic("bug")
	})(context.Background(), inputs("a"))
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"unclassified", errTransient, true},
		{"wrapped timeout", fmt.Errorf("llm call: %w", context.DeadlineExceeded), true},
		{"permanent", errRefused, false},
		{"validation", fmt.Errorf("output: %w", schemas.ErrInvalid), false},
		{"decode", fmt.Errorf("in/0@1: %w", schemas.ErrDecode), false},
		{"panic", panicErr, false},
		{"skipped", middleware.ErrSkipped, false},
		{"abandoned", fmt.Errorf("%w: %w", middleware.ErrAbandoned, errTransient), false},
		{"nil", nil, false},
	} {
		if got := middleware.Transient(tc.err); got != tc.want {
			t.Errorf("%s: Transient(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

func TestMeasure(t *testing.T) {
	var got []middleware.Call
	f := &fake{script: map[string][]error{"b": {errTransient}}}
	h := middleware.Measure(func(_ context.Context, c middleware.Call) { got = append(got, c) })(f.handle)
	_, _ = h(context.Background(), inputs("a"))
	_, _ = h(context.Background(), inputs("b"))
	if len(got) != 2 || len(got[0].Inputs) != 1 || got[0].Err != nil || !errors.Is(got[1].Err, errTransient) || got[0].Took < 0 {
		t.Fatalf("calls observed: %+v", got)
	}
}

func TestRecover(t *testing.T) {
	for _, tc := range []struct {
		name  string
		h     pipeline.BatchHandler
		panic bool
	}{
		{"no panic", (&fake{}).handle, false},
		{"index out of range", func(_ context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
			out := make([][]pipeline.Output, len(ins))
			out[len(ins)] = nil // a runtime panic
			return out, nil
		}, true},
		{"panic with an error", func(context.Context, []pipeline.Input) ([][]pipeline.Output, error) {
			panic(errors.New("bad state"))
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			ctx := zerolog.New(&buf).WithContext(context.Background())
			outs, err := middleware.Recover()(tc.h)(ctx, inputs("a"))
			if !tc.panic {
				if err != nil || len(outs) != 1 {
					t.Fatalf("outs %v err %v", outs, err)
				}
				return
			}
			if !pipeline.IsPermanent(err) || !strings.Contains(err.Error(), "panicked") {
				t.Fatalf("err %v, want a permanent error saying the handler panicked", err)
			}
			if !strings.Contains(buf.String(), "handler panicked") || !strings.Contains(buf.String(), "stack") {
				t.Errorf("the panic was not logged with its stack: %s", buf.String())
			}
		})
	}
}

func TestCheckShape(t *testing.T) {
	for _, tc := range []struct {
		name string
		outs int
		err  error
		bad  bool
	}{
		{"one list per input", 2, nil, false},
		{"too few", 1, nil, true},
		{"an error passes", 0, errTransient, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := middleware.CheckShape()(func(context.Context, []pipeline.Input) ([][]pipeline.Output, error) {
				return make([][]pipeline.Output, tc.outs), tc.err
			})(context.Background(), inputs("a", "b"))
			if got := pipeline.IsPermanent(err) && strings.Contains(fmt.Sprint(err), "output lists"); got != tc.bad {
				t.Errorf("err %v; want a shape error: %v", err, tc.bad)
			}
		})
	}
}

func TestAcks(t *testing.T) {
	if middleware.AfterAck(context.Background(), func(context.Context, []pipeline.Input) error { return nil }) {
		t.Error("AfterAck accepted a hook with no runtime to acknowledge")
	}
	ctx, acks := middleware.WithAcks(context.Background())
	var order []string
	for _, name := range []string{"first", "second"} {
		middleware.AfterAck(ctx, func(_ context.Context, acked []pipeline.Input) error {
			order = append(order, fmt.Sprintf("%s:%d", name, len(acked)))
			if name == "first" {
				return errTransient
			}
			return nil
		})
	}
	if err := acks.Acked(ctx, inputs("a", "b")); !errors.Is(err, errTransient) {
		t.Errorf("Acked = %v, want the failing hook's error", err)
	}
	if !slices.Equal(order, []string{"first:2", "second:2"}) {
		t.Errorf("hooks ran %v, want both in order (a failure does not stop the others)", order)
	}
	if err := acks.Acked(ctx, nil); err != nil || len(order) != 2 {
		t.Errorf("hooks ran again on a second Acked")
	}
}

// The runtime's chain on one batch that holds every case: a repeat, an
// input seen before, a permanent failure, a flaky one, a panic and good
// inputs. Each ends where the package documentation says, and only the
// good and the flaky input are marked, after the acknowledgement.
func TestRuntimeChain(t *testing.T) {
	d := &dedup{seen: map[string]bool{"old": true}}
	f := &fake{script: map[string][]error{
		"bad":   {errRefused, errRefused},
		"flaky": {errTransient, errTransient},
	}}
	h := func(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
		for _, in := range ins {
			if in.Meta.EventID == "bomb" {
				panic("boom")
			}
		}
		return f.handle(ctx, ins)
	}
	var calls []middleware.Call
	rt := middleware.Runtime{Deduper: d, Group: "g",
		Retry:   middleware.RetryPolicy{Backoff: func(int) time.Duration { return 0 }},
		Observe: func(_ context.Context, c middleware.Call) { calls = append(calls, c) }}
	ctx, acks := middleware.WithAcks(context.Background())
	ins := inputs("good", "good", "old", "bad", "flaky", "bomb", "fine")
	outs, err := rt.Wrap(h)(ctx, ins)
	want := []string{"ok:1", "skipped", "skipped", "dead:permanent", "ok:1", "dead:permanent", "ok:1"}
	if got := outcome(t, outs, err, len(ins)); !slices.Equal(got, want) {
		t.Fatalf("outcome %v, want %v", got, want)
	}
	var rj *middleware.Rejected
	if !errors.As(middleware.ErrorOf(err, 5), &rj) || !strings.Contains(rj.Error(), "panicked") {
		t.Errorf("the panicking input's rejection: %v", middleware.ErrorOf(err, 5))
	}
	// The batch call, then one call per input: three for the flaky one.
	if len(calls) != 1+5+2 {
		t.Errorf("%d calls measured, want 8", len(calls))
	}
	if len(d.marked) != 0 {
		t.Fatalf("marked %v before the acknowledgement", d.marked)
	}
	var acked []pipeline.Input
	for i, in := range ins {
		if middleware.ErrorOf(err, i) == nil {
			acked = append(acked, in)
		}
	}
	if err := acks.Acked(ctx, acked); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.marked, []string{"good", "flaky", "fine"}) {
		t.Errorf("marked %v, want the handled inputs", d.marked)
	}
}
