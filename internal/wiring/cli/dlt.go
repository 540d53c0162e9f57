package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/internal/wiring/app"
)

// DLTListOutput is the JSON of `annalist dlt list`.
type DLTListOutput struct {
	DeadLetters []kafka.DeadLetter `json:"dead_letters"`
}

// cmdDLT is `annalist dlt list|replay TOPIC [--since S] [--offset P:O]…`:
// what the dead-letter topics hold and why, and their replay to the
// original topic after a fix (infra/kafka's DLT functions; what was replayed
// is marked in Redis, so a second replay skips it).
func cmdDLT(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("dlt", io.Stderr)
	var s service
	s.register(fs)
	since := fs.String("since", "", "only dead letters from this time on: RFC 3339 (2026-01-02T15:04:05Z) or a duration back from now (1h)")
	var offsets []string
	fs.Func("offset", "only the dead letter at this PARTITION:OFFSET of the topic's DLT (repeatable; one topic only)", func(v string) error {
		offsets = append(offsets, v)
		return nil
	})
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: annalist dlt list|replay TOPIC [--since S] [--offset P:O] [--json]")
		fmt.Fprintln(fs.Output(), "TOPIC is an original topic (documents, chunks, …) or all. The command is the operator's:")
		fmt.Fprintln(fs.Output(), "it lists and replays every tenant's dead letters (--tenant does not apply).")
		fs.PrintDefaults()
	}
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || (pos[0] != "list" && pos[0] != "replay") {
		return fmt.Errorf("%w: want `dlt list TOPIC` or `dlt replay TOPIC`", errUsage)
	}
	topics, err := kafka.DLTTopics(pos[1])
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	from, err := kafka.ParseSince(*since, time.Now())
	if err != nil {
		return fmt.Errorf("%w: --since: %v", errUsage, err)
	}
	var positions []kafka.DLTPosition
	for _, o := range offsets {
		p, err := kafka.ParseDLTPosition(o)
		if err != nil {
			return fmt.Errorf("%w: --offset: %v", errUsage, err)
		}
		positions = append(positions, p)
	}
	if len(positions) > 0 && len(topics) != 1 {
		return fmt.Errorf("%w: --offset names a position in one topic's DLT; give that topic, not all", errUsage)
	}
	a, _, err := s.open(ctx, io, app.Needs{Broker: true, Redis: true})
	if err != nil {
		return err
	}
	defer a.Close()
	dl := kafka.DeadLetters{Config: a.Config.Kafka, Marks: kafka.NewRedisReplayMarks(a.Redis)}
	q := kafka.DLTQuery{Topics: topics, Since: from, Positions: positions}
	if pos[0] == "list" {
		out, err := dl.List(ctx, q)
		if err != nil {
			return err
		}
		if out == nil {
			out = []kafka.DeadLetter{}
		}
		if s.json {
			return writeJSON(io.Stdout, DLTListOutput{DeadLetters: out})
		}
		return writeDeadLetters(io, out)
	}
	res, err := dl.Replay(ctx, q)
	if s.json {
		if werr := writeJSON(io.Stdout, res); werr != nil {
			return errors.Join(err, werr)
		}
		return err
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(io.Stdout, "replayed %d dead letters (%d replayed before, skipped)\n", len(res.Replayed), res.Skipped)
	return writeDeadLetters(io, res.Replayed)
}

// writeDeadLetters prints one line per dead letter.
func writeDeadLetters(io IO, dls []kafka.DeadLetter) error {
	if len(dls) == 0 {
		_, err := fmt.Fprintln(io.Stdout, "no dead letters")
		return err
	}
	w := tabwriter.NewWriter(io.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TOPIC\tDLT P:O\tFROM\tGROUP\tTIME\tREPLAYED\tEVENT\tERROR")
	for _, d := range dls {
		replayed := "no"
		if d.Replayed {
			replayed = "yes"
		}
		fmt.Fprintf(w, "%s\t%d:%d\t%d@%d\t%s\t%s\t%s\t%s\t%s\n", d.Topic, d.DLTPartition, d.DLTOffset, d.Partition, d.Offset,
			d.Group, d.Time.UTC().Format(time.RFC3339), replayed, d.EventID, oneLine(d.Error))
	}
	return w.Flush()
}

// oneLine keeps an error on its table line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
