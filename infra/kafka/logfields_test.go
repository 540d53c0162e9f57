package kafka_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/kit/logging/logtest"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// TestHandlerLoggerCarriesTheRecordsFields: a handler given one input logs
// through the context's logger with the STYLE.md fields of the record:
// stage, topic, partition, offset, event id and trace id.
func TestHandlerLoggerCarriesTheRecordsFields(t *testing.T) {
	e := newEnv(t)
	e.publish(doc("solo", "ok"))
	var logs logtest.Buffer
	h := func(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
		out := make([][]pipeline.Output, len(ins))
		for i, in := range ins {
			zerolog.Ctx(ctx).Info().Msg("handled one")
			out[i] = []pipeline.Output{{Topic: e.out, Msg: in.Msg}}
		}
		return out, nil
	}
	r := e.run(h, kafka.Options{Logger: zerolog.New(&logs)})
	e.waitIdle()
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, line := range strings.Split(logs.String(), "\n") {
		if !strings.Contains(line, "handled one") {
			continue
		}
		found = true
		var f map[string]any
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		for k, want := range map[string]any{"stage": e.stage.Name, "topic": e.in, "event_id": "ev-solo", "trace_id": "tr-solo"} {
			if f[k] != want {
				t.Errorf("log field %s = %v, want %v (line %s)", k, f[k], want, line)
			}
		}
		for _, k := range []string{"partition", "offset"} {
			if _, ok := f[k]; !ok {
				t.Errorf("log line lacks %s: %s", k, line)
			}
		}
	}
	if !found {
		t.Fatalf("the handler's log line is missing:\n%s", logs.String())
	}
	// Run adds the stage key, once: every line of the runtime and of the
	// handler has it exactly once (json.Unmarshal above would hide a
	// repeated key).
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if n := strings.Count(line, `"stage":`); n != 1 {
			t.Errorf("log line carries the stage key %d times: %s", n, line)
		}
	}
}

func TestRequestIDOfGenerationMessages(t *testing.T) {
	for _, tc := range []struct {
		msg  schemas.Message
		want string
	}{
		{schemas.Request{RequestID: "r1"}, "r1"},
		{&schemas.Draft{RequestID: "r2"}, "r2"},
		{schemas.Verdict{RequestID: "r3"}, "r3"},
		{schemas.Repair{RequestID: "r4"}, "r4"},
		{schemas.Correction{RequestID: "r5"}, "r5"},
		{schemas.Page{RequestID: "r6"}, "r6"},
		{schemas.Document{DocID: "d"}, ""},
		{nil, ""},
	} {
		if got := kafka.RequestID(tc.msg); got != tc.want {
			t.Errorf("request id of %T = %q, want %q", tc.msg, got, tc.want)
		}
	}
}
