package api

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/infra/discussionstore"
	"github.com/annalist-dev/annalist/infra/hnsw"
	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

type nopRequester struct{}

func (nopRequester) ValidateRequest(schemas.Request) error { return nil }

func (nopRequester) Request(_ context.Context, _ string, r schemas.Request) (schemas.Request, error) {
	return r, nil
}

// TestOpenAPIListsEveryRoute checks that every route New mounts with all
// its dependencies present is documented, with its method, and that the
// document names no path the server does not route.
func TestOpenAPIListsEveryRoute(t *testing.T) {
	b, err := openapiFS.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI string                               `json:"openapi"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("openapi.json is not JSON: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.0") {
		t.Fatalf("openapi = %q; want 3.0.x", doc.OpenAPI)
	}
	// Typed nils are enough: routes only looks at which interfaces the
	// dependencies implement.
	d := Deps{Sink: nopDiscussionSink{}, Discussions: (*discussionstore.Store)(nil), Graph: (*kg.Store)(nil), Chunks: (*redisdb.Chunks)(nil), Pages: &pages.Store{},
		Requester: nopRequester{}, Metrics: http.NotFoundHandler(),
		Pipeline:    func(context.Context) (any, error) { return nil, nil },
		DeadLetters: kafka.DeadLetters{}, Vectors: (*hnsw.Store)(nil)}
	routed := map[string]bool{}
	for _, rt := range routes(d) {
		method, path, ok := strings.Cut(rt.pattern, " ")
		if !ok {
			t.Fatalf("route %q has no method", rt.pattern)
		}
		routed[path] = true
		op, ok := doc.Paths[path][strings.ToLower(method)]
		if !ok {
			t.Errorf("%s %s is routed but not in openapi.json", method, path)
			continue
		}
		if _, ok := op["responses"]; !ok {
			t.Errorf("%s %s: no responses documented", method, path)
		}
	}
	if len(routed) < 18 {
		t.Errorf("only %d paths routed with every dependency present", len(routed))
	}
	for path := range doc.Paths {
		if !routed[path] {
			t.Errorf("openapi.json documents %s, which is not routed", path)
		}
	}
}

type nopSink struct{}

// nopDiscussionSink publishes documents and discussions, as the App does.
type nopDiscussionSink struct{ nopSink }

func (nopDiscussionSink) SendDiscussions(context.Context, string, []producers.DiscussionItem) error {
	return nil
}

func (nopSink) Send(context.Context, string, []producers.Item) error { return nil }

// queryParams are the query parameters the page and review handlers
// (generate.go) read, the tenant aside (a shared component). The document
// must list exactly these for the route: a parameter a handler reads and
// openapi.json omits, or one it documents and no handler reads, fails
// here.
var queryParams = map[string][]string{
	"GET /v1/pages/{subject}":          {"kind", "text", "version"},
	"GET /v1/pages/{subject}/versions": {"kind"},
	"GET /v1/pages/{subject}/diff":     {"from", "kind", "to"},
	"GET /v1/reviews":                  {"status"},
	"GET /v1/dead-letters":             {"limit", "since", "topic"},
}

func TestOpenAPIDocumentsQueryParameters(t *testing.T) {
	b, err := openapiFS.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name   string         `json:"name"`
				In     string         `json:"in"`
				Schema map[string]any `json:"schema"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for route, want := range queryParams {
		method, path, _ := strings.Cut(route, " ")
		op, ok := doc.Paths[path][strings.ToLower(method)]
		if !ok {
			t.Errorf("%s is not documented", route)
			continue
		}
		var got []string
		for _, p := range op.Parameters {
			if p.In != "query" {
				continue
			}
			if p.Schema == nil {
				t.Errorf("%s: query parameter %s has no schema", route, p.Name)
			}
			got = append(got, p.Name)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s documents query parameters %v; the handler reads %v", route, got, want)
		}
	}
}
