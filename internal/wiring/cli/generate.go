package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/schemas"
)

func cmdGenerate(ctx context.Context, stdio IO, args []string) error {
	fs := newFlagSet("generate", stdio.Stderr)
	var s service
	s.register(fs)
	noWait := fs.Bool("no-wait", false, "publish the request and print its id without waiting for the page")
	withQuotes := fs.Bool("quotes", false, "add at most one quotation per section of a topic page or a discussion summary, from the ingested quotes collection (verbatim, attributed, cited)")
	timeout := fs.Duration("timeout", 0, "give up waiting after this long (default: the request deadline, --request-deadline, and 30s more)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return fmt.Errorf("%w: want `generate KIND NAME`, e.g. `generate biography 叶向高`", errUsage)
	}
	kind, subject := pos[0], strings.Join(pos[1:], " ")
	switch kind { // the shorthands of the command line
	case "topic":
		kind = schemas.KindTopicPage
	case "discussion":
		kind = schemas.KindDiscussionSummary
	}
	if *withQuotes && kind != schemas.KindTopicPage && kind != schemas.KindDiscussionSummary {
		return fmt.Errorf("%w: --quotes is for topic pages and discussion summaries (`generate topic NAME --quotes`, `generate discussion ID --quotes`), not %s", errUsage, kind)
	}
	// The generation stages' needs: a topic's curation searches the
	// vectors for free text.
	a, _, err := s.open(ctx, stdio, app.NeedsFor(app.GenerateStages()))
	if err != nil {
		return err
	}
	defer a.Close()
	// Joined to the owner of the data directory, the command publishes and
	// waits on the owner's generation stages; an owner that will not run
	// them is said at once, not after the wait's timeout.
	if !*noWait {
		if err := a.OwnerRuns(app.GenerateStages()); err != nil {
			return err
		}
	}
	// Which kinds exist is the process's registry's to say; a kind it
	// does not hold is refused with its message before anything is
	// resolved or published.
	kinds, err := a.Kinds()
	if err != nil {
		return err
	}
	if _, err := kinds.Lookup(kind); err != nil {
		return err
	}
	// A biography's subject is a person the graph must know; the subject
	// of another kind (a question, a topic) is its planner's to resolve.
	if kind == schemas.KindBiography {
		if ids, err := a.KG.Resolve(ctx, s.tenant, subject); err != nil {
			return err
		} else if len(ids) == 0 {
			return fmt.Errorf("unknown subject %q: no entity or alias of that name in tenant %q (ingest its sources first)", subject, s.tenant)
		}
	}
	runStages := s.embedded() && !a.Joined && !*noWait
	// The request fails at its deadline by itself; the timeout only
	// bounds a wait that cannot see that (the store unreachable).
	if *timeout <= 0 {
		*timeout = a.RequestDeadline() + 30*time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	res, err := a.Generate(ctx, s.tenant, runStages, !*noWait, []schemas.Request{{Kind: kind, Subject: subject, Quotes: *withQuotes}})
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no page within %s: %w (is a process running the generation stages? `annalist serve` or `annalist consume`)", *timeout, err)
	}
	if err != nil {
		return err
	}
	r := res[0]
	if *noWait {
		if s.json {
			return writeJSON(stdio.Stdout, r.Status)
		}
		fmt.Fprintf(stdio.Stdout, "request %s queued for %s %q\n", r.Request.RequestID, kind, subject)
		return nil
	}
	if r.Status.State == pages.RequestFailed {
		// With --json, stdout still gets one JSON value: the status,
		// which says failed and why; the exit code is non-zero either way.
		if s.json {
			if err := writeJSON(stdio.Stdout, r.Status); err != nil {
				return err
			}
		}
		return fmt.Errorf("request %s failed: %s", r.Request.RequestID, r.Status.Error)
	}
	if r.Page == nil {
		return fmt.Errorf("request %s: no page (state %s)", r.Request.RequestID, r.Status.State)
	}
	if s.json {
		return writeJSON(stdio.Stdout, r.Page)
	}
	return writePage(stdio.Stdout, *r.Page)
}

// writePage prints a page as numbered sentences with citation markers,
// under their section titles on a sectioned page, then the cited chunks.
func writePage(w io.Writer, p schemas.Page) error {
	fmt.Fprintf(w, "%s — %s, version %d (%d sentences, %d ms)\n\n", p.Subject, p.Kind, p.Version,
		len(p.Sentences), p.Stats["millis"])
	var order []schemas.Citation
	index := map[string]int{}
	// A sectioned page (a topic page) prints each section's title before
	// its sentences; the numbering runs on through the page.
	type line struct {
		title string
		s     schemas.PageSentence
	}
	var lines []line
	if len(p.Sections) > 0 {
		for _, sec := range p.Sections {
			for j, s := range sec.Sentences {
				t := ""
				if j == 0 {
					t = sec.Title
				}
				lines = append(lines, line{t, s})
			}
		}
	} else {
		for _, s := range p.Sentences {
			lines = append(lines, line{s: s})
		}
	}
	for i, l := range lines {
		s := l.s
		if l.title != "" {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "## %s\n", l.title)
		}
		var marks []string
		for _, c := range s.Citations {
			n, ok := index[c.ChunkID]
			if !ok {
				order = append(order, c)
				n = len(order)
				index[c.ChunkID] = n
			}
			marks = append(marks, fmt.Sprintf("[%d]", n))
		}
		fmt.Fprintf(w, "%2d. %s %s\n", i+1, s.Text, strings.Join(marks, ""))
		switch s.Status {
		case schemas.StatusSupported:
		default:
			note := s.Note
			if note != "" {
				note = ": " + note
			}
			fmt.Fprintf(w, "    (%s%s)\n", s.Status, note)
		}
	}
	for _, d := range p.Dropped {
		fmt.Fprintf(w, "    dropped sentence %d: %s\n", d.Index+1, d.Reason)
	}
	fmt.Fprintln(w, "\nsources")
	for i, c := range order {
		fmt.Fprintf(w, "[%d] %s  %s\n", i+1, c.ChunkID, excerpt(c.Text, 90))
	}
	fmt.Fprintf(w, "\nstats: drafted %d, corrected %d, dropped %d, llm calls %d\n",
		p.Stats["drafted"], p.Stats["corrected"], p.Stats["dropped"], p.Stats["llm_calls"])
	return nil
}

// excerpt shortens s to n characters on one line.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
