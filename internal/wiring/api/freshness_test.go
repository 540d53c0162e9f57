package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/schemas"
)

// GET /v1/pages/{subject} says why the version was made and whether a
// regeneration is pending: reason and trigger_doc_ids (a list, empty for
// a requested page), stale true from the change recorded under the page
// until the regeneration's page is published.
func TestPageAnswerCarriesReasonAndStale(t *testing.T) {
	ctx := context.Background()
	srv, ps, _ := generationServer(t)
	type answer struct {
		Version       int      `json:"version"`
		Reason        *string  `json:"reason"`
		TriggerDocIDs []string `json:"trigger_doc_ids"`
		Stale         *bool    `json:"stale"`
		raw           map[string]any
	}
	get := func(query string) answer {
		t.Helper()
		res, err := http.Get(srv.URL + "/v1/pages/" + url.PathEscape("叶向高") + query)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		var a answer
		if res.StatusCode != http.StatusOK || json.Unmarshal(b, &a) != nil || json.Unmarshal(b, &a.raw) != nil ||
			a.Reason == nil || a.Stale == nil {
			t.Fatalf("GET page%s = %d %s", query, res.StatusCode, b)
		}
		if ids, ok := a.raw["trigger_doc_ids"].([]any); !ok {
			t.Fatalf("trigger_doc_ids = %v; want a list", a.raw["trigger_doc_ids"])
		} else if len(ids) != len(a.TriggerDocIDs) {
			t.Fatalf("trigger_doc_ids = %v", ids)
		}
		return a
	}
	p := schemas.Page{Subject: "叶向高", Kind: schemas.KindBiography, RequestID: "r-user", Version: 1,
		Sentences: []schemas.PageSentence{{Text: "叶向高，字进卿。", Status: "supported", Citations: []schemas.Citation{{ChunkID: "d-0000"}}}}}
	if _, _, err := ps.Publish(ctx, schemas.DefaultTenant, p, "e"); err != nil {
		t.Fatal(err)
	}
	if a := get(""); *a.Reason != schemas.ReasonRequested || len(a.TriggerDocIDs) != 0 || *a.Stale {
		t.Fatalf("requested page: reason %q docs %v stale %v", *a.Reason, a.TriggerDocIDs, *a.Stale)
	}
	sched := ps.Schedule()
	now := time.Now()
	if _, err := sched.Record(ctx, schemas.DefaultTenant, pages.Trigger{Reason: schemas.ReasonRetracted, DocIDs: []string{"d"}, Key: "k"},
		[]pages.PageRef{{Kind: schemas.KindBiography, Subject: "叶向高"}}, now, time.Millisecond, time.Second); err != nil {
		t.Fatal(err)
	}
	if a := get(""); !*a.Stale {
		t.Fatal("a page with a recorded change is not stale")
	}
	cs, err := sched.Claim(ctx, schemas.DefaultTenant, now.Add(time.Second), time.Minute, 1)
	if err != nil || len(cs) != 1 {
		t.Fatalf("claim = %v, %v", cs, err)
	}
	if a := get(""); !*a.Stale {
		t.Fatal("a page whose regeneration is being published is not stale")
	}
	p.RequestID, p.Reason, p.TriggerDocIDs = cs[0].RequestID, schemas.ReasonRetracted, []string{"d"}
	if _, _, err := ps.Publish(ctx, schemas.DefaultTenant, p, "e"); err != nil {
		t.Fatal(err)
	}
	a := get("")
	if a.Version != 2 || *a.Reason != schemas.ReasonRetracted || !slices.Equal(a.TriggerDocIDs, []string{"d"}) || *a.Stale {
		t.Fatalf("regenerated page: v%d reason %q docs %v stale %v", a.Version, *a.Reason, a.TriggerDocIDs, *a.Stale)
	}
	if a := get("?version=1"); a.Version != 1 || *a.Reason != schemas.ReasonRequested || len(a.TriggerDocIDs) != 0 {
		t.Fatalf("version 1: v%d reason %q docs %v", a.Version, *a.Reason, a.TriggerDocIDs)
	}
}
