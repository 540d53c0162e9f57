package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strings"
	"sync"

	"github.com/annalist-dev/annalist/internal/ports/graph"

	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/internal/wiring/demo"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// cmdDemo runs everything in one process on embedded defaults: broker,
// Redis, vector index, every stage and the HTTP API; it ingests the demo
// corpus, prints what the knowledge graph learned and the verified
// biographies it writes, and keeps running (accepting documents and
// requests over HTTP) until Ctrl-C.
func cmdDemo(ctx context.Context, stdio IO, args []string) error {
	fs := newFlagSet("demo", stdio.Stderr)
	var s service
	s.register(fs)
	addr := fs.String("addr", DefaultAddr, "host:port of the HTTP API")
	once := fs.Bool("once", false, "exit after printing instead of serving until Ctrl-C")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if !s.embedded() {
		return fmt.Errorf("%w: demo runs the embedded mode; drop --brokers", errUsage)
	}
	a, log, err := s.open(ctx, stdio, app.NeedsFor(app.AllStages()))
	if err != nil {
		return err
	}
	defer a.Close()
	if a.Joined {
		return fmt.Errorf("%s is in use by another annalist process; stop it or use another --data-dir", s.dataDir)
	}
	// The port is taken before the demo's work, so a busy one fails at once.
	var l net.Listener
	if !*once {
		if l, err = listenHTTP(*addr); err != nil {
			return err
		}
		defer l.Close()
	}
	items, err := demo.Documents()
	if err != nil {
		return err
	}

	// The stages run for the life of the demo; the ingest of the corpus
	// below only publishes and waits for them.
	stageCtx, stopStages := context.WithCancel(ctx)
	defer stopStages()
	var wg sync.WaitGroup
	var stageErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		stageErr = a.RunStages(stageCtx, app.AllStages(), nil)
	}()
	stop := func() error {
		stopStages()
		wg.Wait()
		return stageErr
	}

	fmt.Fprintf(stdio.Stdout, "annalist demo: ingesting %d documents of the demo corpus (data in %s)\n", len(items), s.dataDir)
	res, err := a.Ingest(ctx, s.tenant, false, true, func(ctx context.Context, sink producers.Sink) (producers.Summary, error) {
		var sum producers.Summary
		for _, it := range items {
			sum.Files++
			sum.Documents++
			sum.Chars += int64(len([]rune(it.Doc.Text)))
		}
		return sum, sink.Send(ctx, s.tenant, items)
	})
	if err != nil {
		return errors.Join(err, stop())
	}
	fmt.Fprintf(stdio.Stdout, "pipeline idle after %.2fs: %d documents, %d chunks, %d KG nodes, %d edges, %d aliases, %d vectors\n\n",
		res.Seconds, res.Store.Documents, res.Store.Chunks, res.Store.Nodes, res.Store.Edges, res.Store.Aliases, res.Store.Vectors)
	if err := printLearned(ctx, stdio.Stdout, a, s.tenant); err != nil {
		return errors.Join(err, stop())
	}
	if err := printBiographies(ctx, stdio.Stdout, a, s.tenant); err != nil {
		return errors.Join(err, stop())
	}
	if *once {
		return stop()
	}
	// The shipped discussions go in once the biographies are printed (their
	// English paragraphs are not part of the corpus those were written
	// from); the discussions and feed stages summarise them while the UI
	// is served.
	if _, err := demo.SendDiscussions(ctx, a, s.tenant, stdio.Stdout); err != nil {
		return errors.Join(err, stop())
	}
	err = serveHTTP(ctx, l, a, log, app.AllStages(), func(url string) {
		fmt.Fprintf(stdio.Stdout, "\nweb UI: %s/  (search 静之, open the biography, hover a citation)\n", url)
		fmt.Fprintf(stdio.Stdout, "API at %s/v1 — try:\n", url)
		fmt.Fprintf(stdio.Stdout, "  curl %s/v1/entities/静之\n", url)
		fmt.Fprintf(stdio.Stdout, "  curl %s/v1/pages/静之\n", url)
		fmt.Fprintf(stdio.Stdout, "  curl %s/v1/feed   (the discussion summaries; the Discussions view shows them)\n", url)
		fmt.Fprintf(stdio.Stdout, "  curl -X POST %s/v1/requests -d '{\"kind\":\"biography\",\"subject\":\"严鹤龄\"}'\n", url)
		fmt.Fprintf(stdio.Stdout, "  curl -X POST %s/v1/documents -d '{\"text\":\"Ann Lee was born in York in 1802.\"}'\n", url)
		fmt.Fprintln(stdio.Stdout, "  go run . kg show 静之   (in another terminal; it joins this process's services)")
		fmt.Fprintln(stdio.Stdout, "Ctrl-C stops the demo.")
	})
	return errors.Join(err, stop())
}

// printBiographies requests a biography of every person who has an entry
// of their own in the corpus and prints the pages with their citations.
func printBiographies(ctx context.Context, w io.Writer, a *app.App, tenant string) error {
	ids, err := a.KG.Nodes(ctx, tenant, schemas.EntityPerson)
	if err != nil {
		return err
	}
	sort.Strings(ids)
	var reqs []schemas.Request
	for _, id := range ids {
		e, err := a.KG.Entity(ctx, tenant, id)
		if err != nil {
			return err
		}
		facts := 0
		for _, ed := range e.Edges {
			if ed.Relation != schemas.RelMention {
				facts++
			}
		}
		// A person with an entry of their own, or an article about them
		// (English sources have no entries); not a relative inside another's
		// entry, nor someone mentioned in passing.
		own := e.EntryChunk != "" && e.FirstChunk == e.EntryChunk
		if !own && (e.EntryChunk != "" || facts < 3) {
			continue
		}
		reqs = append(reqs, schemas.Request{Kind: schemas.KindBiography, Subject: e.Name})
	}
	fmt.Fprintf(w, "\nWriting %d biographies; every sentence is verified against its sources before it is published:\n", len(reqs))
	res, err := a.Generate(ctx, tenant, false, true, reqs)
	if err != nil {
		return err
	}
	for _, r := range res {
		fmt.Fprintln(w)
		if r.Page == nil {
			fmt.Fprintf(w, "%s: no page (%s)\n", r.Request.Subject, r.Status.Error)
			continue
		}
		if err := writePage(w, *r.Page); err != nil {
			return err
		}
	}
	return nil
}

// printLearned prints every person the graph holds with the facts and
// aliases it learned, each fact with the chunk it came from.
func printLearned(ctx context.Context, w io.Writer, a *app.App, tenant string) error {
	ids, err := a.KG.Nodes(ctx, tenant, schemas.EntityPerson)
	if err != nil {
		return err
	}
	sort.Strings(ids)
	fmt.Fprintf(w, "The knowledge graph learned about %d people:\n", len(ids))
	for _, id := range ids {
		e, err := a.KG.Entity(ctx, tenant, id)
		if err != nil {
			return err
		}
		printEntity(w, e)
	}
	return nil
}

func printEntity(w io.Writer, e graph.Entity) {
	var others []string
	for _, al := range e.Aliases {
		if al != e.Name {
			others = append(others, al)
		}
	}
	line := "• " + e.Name
	if len(others) > 0 {
		line += " (also " + strings.Join(others, ", ") + ")"
	}
	fmt.Fprintln(w, line)
	for _, ed := range e.Edges {
		if ed.Relation == schemas.RelMention {
			continue
		}
		fmt.Fprintf(w, "    %-14s %-24s ← %s\n", ed.Relation, ed.Tail, ed.ChunkID)
	}
}
