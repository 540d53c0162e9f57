package app_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/internal/lang/en/support"
	"github.com/annalist-dev/annalist/schemas"
)

// An answer request carrying its documents runs through the real stages
// (embedded broker, a child redis-server): the planner makes the
// documents its references, the offline drafter extracts and cites, the
// verifier checks each sentence with the support judge, and the page is
// stored under kind answer, every sentence citing the documents that
// support it.
func TestAnswerKindThroughTheStages(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := open(t, t.TempDir())
	defer a.Close()
	docs := []schemas.AnswerDocument{
		{Title: "Eiffel Tower", Text: "The Eiffel Tower is a wrought-iron lattice tower in Paris. It is named after the engineer Gustave Eiffel."},
		{Title: "Construction", Text: "Construction of the Eiffel Tower began in 1887. The tower was completed in 1889 for the World's Fair."},
		{Title: "Bananas", Text: "Bananas are yellow fruit. They grow in the tropics."},
	}
	const q = "When was the Eiffel Tower completed?"
	res, err := a.Generate(ctx, schemas.DefaultTenant, true, true, []schemas.Request{{Kind: schemas.KindAnswer, Subject: q, Documents: docs}})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.Status.State != pages.RequestPublished || r.Page == nil {
		t.Fatalf("answer request: %+v", r.Status)
	}
	p := r.Page
	if p.Kind != schemas.KindAnswer || p.Subject != q || len(p.Sentences) == 0 ||
		p.Sentences[0].Text != "The tower was completed in 1889 for the World's Fair." {
		t.Fatalf("answer page = %+v", p)
	}
	for _, st := range p.Sentences {
		var passages []string
		for _, c := range st.Citations {
			k, ok := schemas.ParseAnswerDocRef(c.ChunkID)
			if !ok {
				t.Fatalf("%q cites %q, not a document of the request", st.Text, c.ChunkID)
			}
			passages = append(passages, docs[k-1].Title+". "+docs[k-1].Text)
		}
		if st.Status != schemas.StatusSupported || len(passages) == 0 || support.Judge(st.Text, passages).Label != support.Complete ||
			strings.Contains(st.Text, "Bananas") {
			t.Errorf("sentence %+v", st)
		}
	}
}
