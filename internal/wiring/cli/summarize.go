package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/en/discourse"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// errInput marks input a command cannot read: not JSON, or JSON that is
// not a valid discussion. It exits with status 1, like any other failure
// of the data rather than of the command line.
var errInput = errors.New("bad input")

// cmdSummarize is `annalist summarize discussion FILE [--json]`: the
// offline discussion summary (discourse.Summarize) of one KGDS-style
// object (SBK, KGD, optional id; other fields ignored), or of each of
// many (JSON lines, consecutive objects or an array), FILE being a path
// or - for stdin. It opens no service: the summary is computed from the
// input alone, so --data-dir is accepted and unused. With --json a single
// discussion prints one JSON object; many print one compact object a
// line, in input order. A discussion without id gets one from its content
// (stable: the same SBK and KGD give the same id).
func cmdSummarize(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("summarize", io.Stderr)
	var c common
	c.register(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || pos[0] != "discussion" {
		return fmt.Errorf("%w: want `summarize discussion FILE` (FILE: a KGDS-style JSON object, JSON lines of them, or - for stdin)", errUsage)
	}
	data, err := readInput(pos[1], io.Stdin)
	if err != nil {
		return fmt.Errorf("read %s: %w", pos[1], err)
	}
	ds, err := producers.ReadDiscussions(bytes.NewReader(data))
	if errors.Is(err, producers.ErrDiscussionInput) {
		return fmt.Errorf("%s: %w: %v", pos[1], errInput, err)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", pos[1], err)
	}
	for i, d := range ds {
		if err := ctx.Err(); err != nil {
			return err
		}
		sum := discourse.Summarize(d)
		if sum.ID == "" {
			sum.ID = d.ID
		}
		switch {
		case c.json && len(ds) == 1:
			err = writeJSON(io.Stdout, sum)
		case c.json:
			err = writeJSONLine(io.Stdout, sum)
		default:
			if i > 0 {
				fmt.Fprintln(io.Stdout)
			}
			err = printSummary(io.Stdout, sum)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readInput reads the file at path, or stdin for "-".
func readInput(path string, stdin io.Reader) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(path)
}

// writeJSONLine prints v as one compact JSON line.
func writeJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printSummary prints a summary for a reader: the background paragraphs,
// then each participant's opinions with the turn each comes from.
func printSummary(w io.Writer, s schemas.DiscussionSummary) error {
	idx := make([]string, len(s.Background.Paragraphs))
	for i, p := range s.Background.Paragraphs {
		idx[i] = fmt.Sprint(p)
	}
	fmt.Fprintf(w, "discussion %s\nbackground: paragraphs %s\n", s.ID, strings.Join(idx, ", "))
	for _, b := range s.Background.Sentences {
		var cites []string
		for _, c := range b.Citations {
			cites = append(cites, fmt.Sprintf("¶%d", c.Paragraph))
		}
		fmt.Fprintf(w, "  %s [%s]\n", b.Text, strings.Join(cites, ", "))
	}
	for _, o := range s.Opinions {
		fmt.Fprintf(w, "%s:\n", o.Participant)
		for _, st := range o.Sentences {
			var cites []string
			for _, c := range st.Citations {
				cites = append(cites, fmt.Sprintf("turn %d", c.Turn))
			}
			fmt.Fprintf(w, "  %s [%s]\n", st.Text, strings.Join(cites, ", "))
		}
	}
	return nil
}
