// Package logging builds the process logger: zerolog, JSON by default,
// human-readable console output when stderr is a terminal. Field names are
// constants so every stage logs the same keys.
package logging

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/term"
)

// Field names used across the project.
const (
	FieldStage     = "stage"
	FieldTopic     = "topic"
	FieldPartition = "partition"
	FieldOffset    = "offset"
	FieldEventID   = "event_id"
	FieldRequestID = "request_id"
	FieldTraceID   = "trace_id"
	FieldTenant    = "tenant"
	FieldDocID     = "doc_id"
	FieldChunkID   = "chunk_id"
)

// Config selects level and format.
type Config struct {
	// Level is trace, debug, info (default), warn or error.
	Level string
	// Format is json, console, or auto (default: console on a terminal).
	Format string
}

// New returns a logger writing to w.
func New(cfg Config, w io.Writer) (zerolog.Logger, error) {
	level := zerolog.InfoLevel
	if cfg.Level != "" {
		l, err := zerolog.ParseLevel(strings.ToLower(cfg.Level))
		if err != nil {
			return zerolog.Nop(), fmt.Errorf("log level %q: %w", cfg.Level, err)
		}
		level = l
	}
	format := cfg.Format
	if format == "" || format == "auto" {
		format = "json"
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			format = "console"
		}
	}
	switch format {
	case "json":
	case "console":
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: time.TimeOnly}
	default:
		return zerolog.Nop(), fmt.Errorf("log format %q: want json, console or auto", cfg.Format)
	}
	return zerolog.New(w).Level(level).With().Timestamp().Logger(), nil
}
