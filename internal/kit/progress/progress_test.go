package progress_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/internal/kit/progress"
)

// TestCounter: the report opens with the total the first step gives, counts
// one unit per step and ends with a "done" line; a counter never stepped
// logs nothing.
func TestCounter(t *testing.T) {
	var buf bytes.Buffer
	c := progress.NewCounter("work", zerolog.New(&buf))
	for i := 1; i <= 3; i++ {
		c.Step(i, 3)
	}
	c.Finish()
	var last struct {
		Task    string `json:"task"`
		Done    int64  `json:"done"`
		Total   int64  `json:"total"`
		Message string `json:"message"`
	}
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	if err := json.Unmarshal(lines[len(lines)-1], &last); err != nil {
		t.Fatalf("%v: %s", err, buf.String())
	}
	if last.Task != "work" || last.Done != 3 || last.Total != 3 || last.Message != "done" {
		t.Errorf("last line %+v, want work 3 of 3 done", last)
	}

	buf.Reset()
	progress.NewCounter("idle", zerolog.New(&buf)).Finish()
	if buf.Len() != 0 {
		t.Errorf("an unstepped counter logged %q", buf.String())
	}
}

// TestLogElapsedInSeconds: the log lines give the elapsed time in seconds,
// under a name that says so.
func TestLogElapsedInSeconds(t *testing.T) {
	var buf bytes.Buffer
	r := progress.Log(zerolog.New(&buf), 1, "work", time.Hour)
	time.Sleep(20 * time.Millisecond)
	r.Add(1)
	r.Finish()
	var line map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(buf.Bytes()), &line); err != nil {
		t.Fatalf("%v: %s", err, buf.String())
	}
	if _, ok := line["elapsed"]; ok {
		t.Errorf("line %s has elapsed without its unit", buf.String())
	}
	s, ok := line["elapsed_seconds"].(float64)
	if !ok || s < 0.02 || s >= 60 {
		t.Errorf("elapsed_seconds %v after 20ms of work, want seconds: %s", line["elapsed_seconds"], buf.String())
	}
}
