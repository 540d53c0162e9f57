package answer_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/annalist-dev/annalist/consumers/writer/answer"
	"github.com/annalist-dev/annalist/internal/ports/graph"
	"github.com/annalist-dev/annalist/schemas"
)

// world is a knowledge graph of two entities and the chunks that mention
// them.
type world struct {
	names  map[string]string
	chunks map[string][]string
	texts  map[string]string
}

func (w world) Resolve(_ context.Context, _, surface string) ([]string, error) {
	if id, ok := w.names[surface]; ok {
		return []string{id}, nil
	}
	return nil, nil
}

func (w world) Entity(_ context.Context, _, id string) (graph.Entity, error) {
	cs, ok := w.chunks[id]
	if !ok {
		return graph.Entity{}, fmt.Errorf("%s: %w", id, graph.ErrNotFound)
	}
	return graph.Entity{Chunks: cs}, nil
}

func (w world) Get(_ context.Context, _ string, ids []string) ([]schemas.Chunk, error) {
	var out []schemas.Chunk
	for _, id := range ids {
		if t, ok := w.texts[id]; ok {
			out = append(out, schemas.Chunk{ChunkID: id, DocID: "doc-" + id, Text: t})
		}
	}
	return out, nil
}

// A question without documents is answered from the chunks that mention
// the entities it names, ranked by relevance and bounded.
func TestPlannerRetrieves(t *testing.T) {
	w := world{
		names:  map[string]string{"Eiffel Tower": "e:tower", "Paris": "e:paris"},
		chunks: map[string][]string{"e:tower": {"c1", "c2"}, "e:paris": {"c3", "c4"}},
		texts: map[string]string{
			"c1": "The Eiffel Tower was completed in 1889.",
			"c2": "Its designers were engineers.",
			"c3": "Paris is the capital of France.",
			"c4": "The Eiffel Tower in Paris draws millions of visitors every year.",
		},
	}
	p := answer.NewPlanner(answer.WithRetrieval(w, w), answer.WithMaxReferences(2))
	refs, err := p.Plan(context.Background(), "t", schemas.Request{RequestID: "r", Kind: schemas.KindAnswer,
		Subject: "When was the Eiffel Tower in Paris completed?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(refs.References) != 2 || refs.References[0].ChunkID != "c1" || refs.References[0].Source != schemas.SourceEntity ||
		refs.References[1].ChunkID != "c4" || refs.References[0].DocID != "doc-c1" {
		t.Fatalf("references = %+v", refs.References)
	}
}
