package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/internal/kit/logging/logtest"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/topology"
)

// topKeys counts the keys of a JSON object line, duplicates included
// (json.Unmarshal into a map would keep one of them silently).
func topKeys(t *testing.T, line string) map[string]int {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("log line is not a JSON object: %s", line)
	}
	keys := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("log line %s: %v", line, err)
		}
		keys[tok.(string)]++
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("log line %s: %v", line, err)
		}
	}
	return keys
}

// Every line a stage run by RunStages logs carries the stage key once
// (it used to carry it twice: RunStages and the runtime both added it).
func TestStageLogLinesCarryOneStageField(t *testing.T) {
	redistest.Require(t)
	var logs logtest.Buffer
	stages := []string{topology.StageRouter}
	cfg := app.Config{DataDir: t.TempDir(), Kafka: kafka.Config{SessionTimeout: 6 * time.Second, RebalanceTimeout: 6 * time.Second}}
	a, err := app.Open(context.Background(), cfg, zerolog.New(&logs).Level(zerolog.DebugLevel), app.NeedsFor(stages))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.RunStages(ctx, stages, nil) }()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(logs.String(), `"stage started"`); {
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("the stage did not start:\n%s", logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("run stages: %v", err)
	}
	n := 0
	for _, line := range strings.Split(logs.String(), "\n") {
		if !strings.Contains(line, `"stage"`) {
			continue
		}
		n++
		if k := topKeys(t, line); k["stage"] != 1 {
			t.Errorf("log line carries the stage key %d times: %s", k["stage"], line)
		}
	}
	if n == 0 {
		t.Fatalf("no stage log line:\n%s", logs.String())
	}
}
