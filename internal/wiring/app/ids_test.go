package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/internal/wiring/demo"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// TestGeneratedIDsMatchTheGrammar holds every id the project makes to the
// one id grammar the API and the CLI enforce on clients (schemas.ValidID):
// the document and chunk ids of the demo corpus and of the evaluation
// data, and request ids. An id the project generates and then refuses
// from a client would make its own exports impossible to post back.
func TestGeneratedIDsMatchTheGrammar(t *testing.T) {
	items, err := demo.Documents()
	if err != nil {
		t.Fatal(err)
	}
	checkItems(t, items)
	for range 100 {
		if id := app.NewRequestID(); schemas.ValidID("request_id", id) != nil {
			t.Fatalf("request id %q: %v", id, schemas.ValidID("request_id", id))
		}
	}
}

func TestGeneratedIDsOfTheEvaluationData(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every ingestible file of the evaluation data")
	}
	for _, sub := range []string{"mingshi-liezhuan", "qingshigao-liezhuan", "archive"} {
		t.Run(sub, func(t *testing.T) {
			dir := datasettest.Require(t, sub)
			files, err := producers.Walk([]string{dir}, producers.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var items []producers.Item
			for _, f := range files {
				its, errs := producers.Read(f, producers.Options{})
				for _, e := range errs {
					// The archive has empty files; every other refusal
					// (the text rule, the id grammar) is a failure.
					if !strings.Contains(e.Error(), "has no text") {
						t.Errorf("%s: %v", f.Rel, e)
					}
				}
				items = append(items, its...)
			}
			if len(items) == 0 {
				t.Fatalf("no documents under %s", dir)
			}
			checkItems(t, items)
		})
	}
}

// checkItems checks the items' document ids and the ids of the chunks the
// chunker makes of them.
func checkItems(t *testing.T, items []producers.Item) {
	t.Helper()
	c := chunker.New(chunker.Config{})
	for _, it := range items {
		if err := schemas.ValidID("doc_id", it.Doc.DocID); err != nil {
			t.Errorf("%s: %v", it.Doc.Source, err)
			continue
		}
		chunks, err := c.Chunk(context.Background(), it.Doc)
		if err != nil {
			t.Errorf("chunk %s: %v", it.Doc.Source, err)
			continue
		}
		for _, ch := range chunks {
			if err := schemas.ValidID("chunk_id", ch.ChunkID); err != nil {
				t.Errorf("%s: %v", it.Doc.Source, err)
			}
		}
	}
}
