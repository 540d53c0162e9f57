package cli

import (
	"context"
	"fmt"

	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/schemas"
)

// verifyResult is the `annalist verify --json` contract.
type verifyResult struct {
	Status    string                `json:"status"`
	ErrorType string                `json:"error_type"`
	Evidence  []verifyEvidence      `json:"evidence"`
	Corrected *string               `json:"corrected,omitempty"`
	Facts     []schemas.FactVerdict `json:"facts,omitempty"`
	Solvers   []string              `json:"solvers,omitempty"`
	Dropped   string                `json:"dropped,omitempty"`
}

type verifyEvidence struct {
	ChunkID string `json:"chunk_id"`
	Text    string `json:"text"`
}

func cmdVerify(ctx context.Context, stdio IO, args []string) error {
	fs := newFlagSet("verify", stdio.Stderr)
	var s service
	s.register(fs)
	subject := fs.String("subject", "", "the person the sentence is about (name or alias)")
	sentence := fs.String("text", "", "the sentence to verify")
	correct := fs.Bool("correct", false, "route an error to its solver and print the verified correction")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *subject == "" || *sentence == "" || len(pos) > 0 {
		return fmt.Errorf("%w: want `verify --subject NAME --text SENTENCE [--correct]`", errUsage)
	}
	a, _, err := s.open(ctx, stdio, app.Needs{Redis: true})
	if err != nil {
		return err
	}
	defer a.Close()
	r, err := a.Retriever()
	if err != nil {
		return err
	}
	refs, err := r.Retrieve(ctx, s.tenant, *subject)
	if err != nil {
		return err
	}
	chk, err := a.CheckSentence(ctx, s.tenant, refs, *sentence, *correct)
	if err != nil {
		return err
	}
	v := chk.Verdict
	out := verifyResult{Status: v.Status, ErrorType: v.ErrorType, Evidence: []verifyEvidence{},
		Facts: v.Facts, Solvers: chk.Solvers}
	seen := map[string]bool{}
	for _, f := range v.Facts {
		for _, e := range f.Evidence {
			if seen[e.ChunkID] {
				continue
			}
			seen[e.ChunkID] = true
			text := e.Text
			if ref, ok := refs.Reference(e.ChunkID); ok {
				text = ref.Text
			}
			out.Evidence = append(out.Evidence, verifyEvidence{ChunkID: e.ChunkID, Text: text})
		}
	}
	if *correct && v.Status != schemas.StatusSupported {
		switch {
		case chk.Corrected != "":
			out.Corrected = &chk.Corrected
		case chk.Dropped:
			out.Dropped = chk.Reason
		}
	}
	if s.json {
		return writeJSON(stdio.Stdout, out)
	}
	fmt.Fprintf(stdio.Stdout, "%s", out.Status)
	if out.ErrorType != "" {
		fmt.Fprintf(stdio.Stdout, " (%s)", out.ErrorType)
	}
	fmt.Fprintln(stdio.Stdout)
	for _, f := range v.Facts {
		fmt.Fprintf(stdio.Stdout, "  %-13s %s", f.Status, f.Fact.Text)
		if f.Message != "" {
			fmt.Fprintf(stdio.Stdout, " — %s", f.Message)
		}
		fmt.Fprintln(stdio.Stdout)
	}
	for _, e := range out.Evidence {
		fmt.Fprintf(stdio.Stdout, "  evidence %s: %s\n", e.ChunkID, excerpt(e.Text, 90))
	}
	if out.Corrected != nil {
		fmt.Fprintf(stdio.Stdout, "corrected (%v): %s\n", chk.Solvers, *out.Corrected)
	}
	if out.Dropped != "" {
		fmt.Fprintf(stdio.Stdout, "no verified correction: %s\n", out.Dropped)
	}
	return nil
}
