package chunker_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/pipeline/pipelinetest"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

var _ chunker.Sink = (*redisdb.Chunks)(nil)

// memorySink records what it is given and can fail.
type memorySink struct {
	tenants []string
	docs    []schemas.Document
	chunks  [][]schemas.Chunk
	err     error
}

func (s *memorySink) PutDocument(_ context.Context, tenant string, doc schemas.Document, chunks []schemas.Chunk) error {
	if s.err != nil {
		return s.err
	}
	s.tenants = append(s.tenants, tenant)
	s.docs = append(s.docs, doc)
	s.chunks = append(s.chunks, chunks)
	return nil
}

// fromDocuments places an input on the documents topic under tenant acme.
var fromDocuments = pipelinetest.Options(pipelinetest.Tenant("acme"), pipelinetest.Event("e1"),
	pipelinetest.Topic(topology.Documents), pipelinetest.Partition(2), pipelinetest.Offset(7))

func TestHandler(t *testing.T) {
	sink := &memorySink{}
	h := chunker.New(chunker.Config{}).Handler(sink)
	doc := schemas.Document{DocID: "vol-1", Source: "mingshi/001.txt", Text: volListed}
	for _, msg := range []schemas.Message{doc, &doc} {
		out, err := h(context.Background(), pipelinetest.Input(msg, fromDocuments))
		if err != nil {
			t.Fatal(err)
		}
		stored := sink.chunks[len(sink.chunks)-1]
		if len(out) != len(stored) || len(out) == 0 {
			t.Fatalf("%d outputs, %d stored chunks", len(out), len(stored))
		}
		for i, o := range out {
			ch, ok := o.Msg.(schemas.Chunk)
			if !ok || o.Topic != topology.Chunks || o.EventID != "" {
				t.Fatalf("output %d: topic %q %T event %q", i, o.Topic, o.Msg, o.EventID)
			}
			if fmt.Sprint(ch) != fmt.Sprint(stored[i]) {
				t.Fatalf("output %d differs from the stored chunk", i)
			}
			if _, _, _, err := schemas.Encode(ch, schemas.Meta{EventID: "x"}); err != nil {
				t.Fatalf("output %d does not encode: %v", i, err)
			}
		}
	}
	if sink.tenants[0] != "acme" || sink.docs[0].DocID != "vol-1" {
		t.Fatalf("stored under %q: %+v", sink.tenants[0], sink.docs[0])
	}
}

func TestHandlerErrors(t *testing.T) {
	c := chunker.New(chunker.Config{})
	var nilDoc *schemas.Document
	tests := []struct {
		name      string
		sink      *memorySink
		msg       schemas.Message
		permanent bool
	}{
		{"not a document", &memorySink{}, schemas.Chunk{ChunkID: "c"}, true},
		{"nil document", &memorySink{}, nilDoc, true},
		{"unknown profile", &memorySink{}, schemas.Document{DocID: "d", Text: "x", Profile: "ode"}, true},
		{"store fails", &memorySink{err: errors.New("connection refused")}, schemas.Document{DocID: "d", Text: "x"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := c.Handler(tt.sink)(context.Background(), pipelinetest.Input(tt.msg, fromDocuments))
			if err == nil || out != nil {
				t.Fatalf("out %v err %v, want an error", out, err)
			}
			if pipeline.IsPermanent(err) != tt.permanent {
				t.Fatalf("error %v: permanent %v, want %v", err, pipeline.IsPermanent(err), tt.permanent)
			}
		})
	}
}

// Against a real Redis: the stage stores the document and its chunks, and
// a redelivered document changes nothing.
func TestHandlerStoresInRedisIdempotently(t *testing.T) {
	store := redisdb.NewChunks(redistest.Client(t))
	h := chunker.New(chunker.Config{}).Handler(store)
	ctx := context.Background()
	doc := schemas.Document{DocID: "vol-1", Source: "mingshi/001.txt", Collection: "mingshi", Text: volListed}
	var first []pipeline.Output
	for i := 0; i < 2; i++ {
		out, err := h(ctx, pipelinetest.Input(doc, fromDocuments))
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = out
		} else if fmt.Sprint(out) != fmt.Sprint(first) {
			t.Fatal("redelivery produced different outputs")
		}
		docs, chunks, err := store.Counts(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		if docs != 1 || chunks != int64(len(first)) {
			t.Fatalf("delivery %d: %d documents, %d chunks stored, want 1 and %d", i+1, docs, chunks, len(first))
		}
	}
	ids := make([]string, len(first))
	for i, o := range first {
		ids[i] = o.Msg.(schemas.Chunk).ChunkID
	}
	got, err := store.Get(ctx, "acme", ids)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for i, c := range got {
		want := first[i].Msg.(schemas.Chunk)
		if c.Subject != want.Subject || c.Entry != want.Entry || c.Start != want.Start || c.Text != want.Text {
			t.Fatalf("stored chunk %s = %+v, want %+v", c.ChunkID, c, want)
		}
		text.WriteString(c.Text)
	}
	if text.String() != doc.Text {
		t.Fatal("stored chunks do not give the document back")
	}
	info, ok, err := store.Document(ctx, "acme", "vol-1")
	if err != nil || !ok || info.Chunks != len(first) || info.Profile != chunker.ProfileLiezhuan {
		t.Fatalf("document info %+v ok %v err %v", info, ok, err)
	}
}
