package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/producers"
)

// cmdChunk prints the chunks of one document exactly as the chunker stage
// makes them: same producer (document id, profile detection), same
// chunker and configuration.
func cmdChunk(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("chunk", io.Stderr)
	var c common
	c.register(fs)
	var cfg chunker.Config
	profile := fs.String("profile", "", "chunker profile ("+strings.Join(chunker.Profiles(), ", ")+"); empty detects it as the pipeline does")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: want exactly one FILE", errUsage)
	}
	files, err := producers.Walk(pos, producers.Options{Profile: *profile})
	if err != nil {
		return err
	}
	if len(files) != 1 {
		return fmt.Errorf("%w: %s is not one .txt, .md or .jsonl file", errUsage, pos[0])
	}
	items, errs := producers.Read(files[0], producers.Options{Profile: *profile})
	if len(errs) > 0 {
		return errs[0]
	}
	if len(items) != 1 {
		return fmt.Errorf("%w: %s holds %d documents; chunk takes a file with one", errUsage, pos[0], len(items))
	}
	chunks, err := chunker.New(cfg).Chunk(ctx, items[0].Doc)
	if err != nil {
		return err
	}
	out := chunker.ToJSON(chunks)
	if c.json {
		return writeJSON(io.Stdout, out)
	}
	for _, ch := range out {
		subject := ch.Subject
		switch {
		case subject == "":
			subject = "—"
		case ch.Attached:
			subject += " (in " + ch.Main + ")"
		}
		fmt.Fprintf(io.Stdout, "%s  [%d,%d)  %s  %s\n", ch.ID, ch.Start, ch.End, subject, preview(ch.Text, 40))
	}
	return nil
}

func preview(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
