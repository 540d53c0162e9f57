package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/internal/wiring/api"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// requester records the requests it is asked to publish. It checks them
// against its kinds as app.App does; the zero value serves the biography
// kind alone.
type requester struct {
	kinds  *kind.Registry
	got    []schemas.Request
	traces []string
}

func (q *requester) registry() *kind.Registry {
	if q.kinds == nil {
		q.kinds = &kind.Registry{}
		if err := q.kinds.Register(nopKind(schemas.KindBiography)); err != nil {
			panic(err)
		}
	}
	return q.kinds
}

func (q *requester) ValidateRequest(r schemas.Request) error { return q.registry().Validate(r) }

func (q *requester) Request(ctx context.Context, _ string, r schemas.Request) (schemas.Request, error) {
	if r.RequestID == "" {
		r.RequestID = "r-test"
	}
	if err := q.ValidateRequest(r); err != nil {
		return r, err
	}
	q.got = append(q.got, r)
	q.traces = append(q.traces, pipeline.TraceID(ctx))
	return r, nil
}

// nopKind is a kind whose planner and drafter are never called here: the
// API only checks requests against the registry.
func nopKind(name string) kind.Spec {
	return kind.Spec{Name: name, Planner: nopPlanner{}, Drafters: map[string]kind.Drafter{kind.EngineOffline: nopDrafter{}},
		Layout: kind.Layout{Sections: []kind.Section{{Name: "all"}}}}
}

type nopPlanner struct{}

func (nopPlanner) Plan(context.Context, string, schemas.Request) (*schemas.ReferenceSet, error) {
	return &schemas.ReferenceSet{}, nil
}

type nopDrafter struct{}

func (nopDrafter) Draft(context.Context, *schemas.ReferenceSet, []schemas.PageSentence, int) (schemas.Draft, bool, error) {
	return schemas.Draft{}, true, nil
}

// generationServer is the API on a real redis-server whose graph knows
// 叶向高 (字进卿), with a page store and a requester that records what it
// is asked; the server is closed when t ends.
func generationServer(t *testing.T) (*httptest.Server, *pages.Store, *requester) {
	t.Helper()
	c := redistest.Client(t)
	store, err := kg.New(c, kg.Config{})
	if err != nil {
		t.Fatal(err)
	}
	tr := schemas.Triplet{TripletID: "t1", Head: "叶向高", HeadType: schemas.EntityPerson, Relation: schemas.RelCourtesyName,
		Tail: "进卿", ChunkID: "d-0000", DocID: "d", Entry: "叶向高", EntryChunk: "d-0000",
		Span: schemas.Span{Start: 4, End: 7}, Evidence: "字进卿", Method: "regex", Confidence: 0.9}
	if _, err := store.Apply(context.Background(), schemas.DefaultTenant, []schemas.Triplet{tr}, []string{"e1"}); err != nil {
		t.Fatal(err)
	}
	ps := pages.New(c)
	q := &requester{}
	srv := httptest.NewServer(api.New(api.Deps{Graph: store, Chunks: redisdb.NewChunks(c), Pages: ps, Requester: q}))
	t.Cleanup(srv.Close)
	return srv, ps, q
}

func TestGenerationEndpoints(t *testing.T) {
	ctx := context.Background()
	srv, ps, q := generationServer(t)

	do := func(method, path, body string, hdr ...string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	for _, tc := range []struct {
		name, body string
		want       int
	}{
		{"malformed JSON", `{"subject":`, http.StatusBadRequest},
		{"unknown field", `{"subject":"叶向高","colour":1}`, http.StatusBadRequest},
		{"no subject", `{"kind":"biography"}`, http.StatusBadRequest},
		{"unknown kind", `{"kind":"poem","subject":"叶向高"}`, http.StatusBadRequest},
		{"unknown subject", `{"subject":"无名氏"}`, http.StatusNotFound},
		{"oversized", `{"subject":"` + strings.Repeat("叶", api.MaxGenerationRequestBody/3+1) + `"}`, http.StatusRequestEntityTooLarge},
		{"by courtesy name", `{"kind":"biography","subject":"进卿"}`, http.StatusAccepted},
	} {
		code, body := do(http.MethodPost, "/v1/requests", tc.body)
		if code != tc.want {
			t.Errorf("%s: POST /v1/requests = %d %s; want %d", tc.name, code, body, tc.want)
		}
	}
	if len(q.got) != 1 || q.got[0].Subject != "进卿" || q.got[0].Kind != schemas.KindBiography {
		t.Fatalf("published requests = %+v; want only the valid one", q.got)
	}
	// A caller's trace id follows the request: traceparent first, then
	// X-Request-ID; anything else is ignored.
	for _, tc := range []struct{ hdr, val, want string }{
		{"Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "4bf92f3577b34da6a3ce929d0e0e4736"},
		{"X-Request-ID", "req-42", "req-42"},
		{"X-Request-ID", "bad id", ""},
		{"Traceparent", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", ""},
	} {
		if code, body := do(http.MethodPost, "/v1/requests", `{"subject":"叶向高"}`, tc.hdr, tc.val); code != http.StatusAccepted {
			t.Fatalf("POST with %s: %d %s", tc.hdr, code, body)
		}
		if got := q.traces[len(q.traces)-1]; got != tc.want {
			t.Errorf("%s %q: trace id %q; want %q", tc.hdr, tc.val, got, tc.want)
		}
	}
	q.got = q.got[:1]

	if code, _ := do(http.MethodGet, "/v1/pages/"+url.PathEscape("叶向高"), ""); code != http.StatusNotFound {
		t.Fatalf("page before any version: %d; want 404", code)
	}
	p := schemas.Page{Subject: "叶向高", Kind: schemas.KindBiography, RequestID: "r-test", Version: 1,
		Sentences: []schemas.PageSentence{{Text: "叶向高，字进卿。", Status: "supported", Citations: []schemas.Citation{{ChunkID: "d-0000"}}}}}
	if _, _, err := ps.Publish(ctx, schemas.DefaultTenant, p); err != nil {
		t.Fatal(err)
	}
	if err := ps.Finish(ctx, schemas.DefaultTenant, q.got[0], &p, ""); err != nil {
		t.Fatal(err)
	}
	// A page is found by any name of its subject.
	code, body := do(http.MethodGet, "/v1/pages/"+url.PathEscape("进卿"), "")
	var got struct {
		schemas.Page
		Versions []pages.VersionInfo `json:"versions"`
	}
	if code != http.StatusOK || json.Unmarshal([]byte(body), &got) != nil || got.Version != 1 || len(got.Versions) != 1 {
		t.Fatalf("GET page by courtesy name = %d %s", code, body)
	}
	if code, _ := do(http.MethodGet, "/v1/pages/"+url.PathEscape("叶向高")+"?version=2", ""); code != http.StatusNotFound {
		t.Fatalf("missing version: %d; want 404", code)
	}
	if code, _ := do(http.MethodGet, "/v1/pages/"+url.PathEscape("叶向高")+"?version=x", ""); code != http.StatusBadRequest {
		t.Fatalf("bad version: %d; want 400", code)
	}
	if code, body := do(http.MethodGet, "/v1/requests/r-test", ""); code != http.StatusOK || !strings.Contains(body, `"published"`) {
		t.Fatalf("request status = %d %s", code, body)
	}
	if code, _ := do(http.MethodGet, "/v1/requests/r-test", "", "X-Annalist-Tenant", "other"); code != http.StatusNotFound {
		t.Fatalf("another tenant's request: %d; want 404", code)
	}
	if code, _ := do(http.MethodGet, "/v1/pages/"+url.PathEscape("叶向高"), "", "X-Annalist-Tenant", "other"); code != http.StatusNotFound {
		t.Fatalf("another tenant's page: %d; want 404", code)
	}

	rv := schemas.Review{ReviewID: "rv1", Subject: "叶向高", Relation: "native_place", Question: "native place?",
		Options: []schemas.ReviewOption{{Value: "福清", ChunkID: "c1"}, {Value: "侯官", ChunkID: "c2"}}}
	if err := ps.OpenReview(ctx, schemas.DefaultTenant, rv); err != nil {
		t.Fatal(err)
	}
	if code, body := do(http.MethodGet, "/v1/reviews", ""); code != http.StatusOK || !strings.Contains(body, "rv1") {
		t.Fatalf("review queue = %d %s", code, body)
	}
	if code, _ := do(http.MethodGet, "/v1/reviews?status=maybe", ""); code != http.StatusBadRequest {
		t.Fatalf("bad status filter: %d", code)
	}
	for _, tc := range []struct {
		path, body string
		want       int
	}{
		{"/v1/reviews/rv1", `{"decision":"长乐"}`, http.StatusBadRequest},
		{"/v1/reviews/rv1", `{}`, http.StatusBadRequest},
		{"/v1/reviews/rv1", `not json`, http.StatusBadRequest},
		{"/v1/reviews/nope", `{"decision":"福清"}`, http.StatusNotFound},
		{"/v1/reviews/rv1", `{"decision":"福清"}`, http.StatusOK},
	} {
		if code, body := do(http.MethodPost, tc.path, tc.body); code != tc.want {
			t.Errorf("POST %s %s = %d %s; want %d", tc.path, tc.body, code, body, tc.want)
		}
	}
	if code, body := do(http.MethodGet, "/v1/reviews", ""); code != http.StatusOK || strings.Contains(body, "rv1") {
		t.Fatalf("open queue after the decision = %d %s", code, body)
	}
	ds, err := ps.Decisions(ctx, schemas.DefaultTenant, "叶向高")
	if err != nil || len(ds) != 1 || ds[0].Value != "福清" {
		t.Fatalf("stored decision = %+v, %v", ds, err)
	}
}

// Request kinds: a kind the server has not registered is 400 with the
// registry's message, before the subject is looked up and before anything
// is published; a registered kind other than the biography is accepted
// whatever its subject (its planner resolves it); GET /v1/pages/{subject}
// serves the biography and, with ?kind=, a page of another kind about the
// same subject.
func TestRequestKindsAndPagesByKind(t *testing.T) {
	ctx := context.Background()
	srv, ps, q := generationServer(t)
	do := func(method, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	const refused = "kind topic_page is not registered (registered: biography)"
	for _, body := range []string{`{"kind":"topic_page","subject":"叶向高"}`, `{"kind":"topic_page","subject":"翰林院"}`} {
		code, got := do(http.MethodPost, "/v1/requests", body)
		if code != http.StatusBadRequest || !strings.Contains(got, refused) {
			t.Errorf("POST %s = %d %s; want 400 saying %q", body, code, got, refused)
		}
	}
	if code, got := do(http.MethodPost, "/v1/requests", `{"kind":"answer","subject":"何谓进士"}`); code != http.StatusBadRequest ||
		!strings.Contains(got, "kind answer is not registered") {
		t.Errorf("answer before it is registered = %d %s; want 400", code, got)
	}
	if len(q.got) != 0 {
		t.Fatalf("refused requests were published: %+v", q.got)
	}
	if err := q.registry().Register(nopKind(schemas.KindAnswer)); err != nil {
		t.Fatal(err)
	}
	if code, got := do(http.MethodPost, "/v1/requests", `{"kind":"answer","subject":"何谓进士"}`); code != http.StatusAccepted {
		t.Fatalf("answer once registered = %d %s; want 202", code, got)
	}
	if code, got := do(http.MethodPost, "/v1/requests", `{"subject":"无名氏"}`); code != http.StatusNotFound {
		t.Fatalf("biography of an unknown person = %d %s; want 404", code, got)
	}
	if len(q.got) != 1 || q.got[0].Kind != schemas.KindAnswer {
		t.Fatalf("published = %+v; want the answer only", q.got)
	}
	// An answer's documents travel in the request's body: a body of
	// exactly api.MaxGenerationRequestBody bytes (a thousand passages) is
	// accepted with every document, one byte more is refused with 413 and
	// a JSON error that names the limit; nothing is published.
	answerBody := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"kind":"answer","subject":"When was the tower completed?","documents":[`)
		for i := range 1000 {
			fmt.Fprintf(&b, `{"title":"Tower %d","text":"The tower was completed in 1889 and painted every seven years."},`, i)
		}
		const last = `{"title":"Padding","text":"`
		const end = `"}]}`
		b.WriteString(last)
		b.WriteString(strings.Repeat("x", n-b.Len()-len(end)))
		b.WriteString(end)
		return b.String()
	}
	if body := answerBody(api.MaxGenerationRequestBody); len(body) != api.MaxGenerationRequestBody {
		t.Fatalf("body of %d bytes", len(body))
	} else if code, got := do(http.MethodPost, "/v1/requests", body); code != http.StatusAccepted {
		t.Fatalf("answer with a body at the limit = %d %.200s; want 202", code, got)
	}
	if len(q.got) != 2 || len(q.got[1].Documents) != 1001 || q.got[1].Documents[0].Title != "Tower 0" {
		t.Fatalf("published %d requests; want the answer with its 1001 documents", len(q.got))
	}
	code, got := do(http.MethodPost, "/v1/requests", answerBody(api.MaxGenerationRequestBody+1))
	var refusal struct {
		Error string `json:"error"`
	}
	if code != http.StatusRequestEntityTooLarge || json.Unmarshal([]byte(got), &refusal) != nil ||
		!strings.Contains(refusal.Error, fmt.Sprint(api.MaxGenerationRequestBody)) || !strings.Contains(refusal.Error, "documents") {
		t.Fatalf("answer with a body over the limit = %d %s; want 413 with a JSON error naming the limit", code, got)
	}
	if len(q.got) != 2 {
		t.Fatalf("a refused request was published: %d requests", len(q.got))
	}
	q.got = q.got[:1]

	sentence := func(text string) []schemas.PageSentence {
		return []schemas.PageSentence{{Text: text, Status: "supported", Citations: []schemas.Citation{{ChunkID: "d-0000"}}}}
	}
	for _, p := range []schemas.Page{
		{Subject: "叶向高", Kind: schemas.KindBiography, RequestID: "r-bio", Version: 1, Sentences: sentence("叶向高，字进卿。")},
		{Subject: "叶向高", Kind: schemas.KindAnswer, RequestID: "r-answer", Version: 1, Sentences: sentence("进卿即叶向高。")},
	} {
		if _, _, err := ps.Publish(ctx, schemas.DefaultTenant, p); err != nil {
			t.Fatal(err)
		}
	}
	page := func(path string) (int, schemas.Page, string) {
		t.Helper()
		code, body := do(http.MethodGet, path, "")
		var p schemas.Page
		if code == http.StatusOK {
			if err := json.Unmarshal([]byte(body), &p); err != nil {
				t.Fatalf("GET %s: %v: %s", path, err, body)
			}
		}
		return code, p, body
	}
	name := url.PathEscape("叶向高")
	for _, tc := range []struct {
		path, wantReq string
		wantCode      int
	}{
		{"/v1/pages/" + name, "r-bio", http.StatusOK},
		{"/v1/pages/" + url.PathEscape("进卿"), "r-bio", http.StatusOK}, // a biography by any name
		{"/v1/pages/" + name + "?kind=biography", "r-bio", http.StatusOK},
		{"/v1/pages/" + name + "?kind=answer", "r-answer", http.StatusOK},
		{"/v1/pages/" + name + "?kind=answer&version=1", "r-answer", http.StatusOK},
		{"/v1/pages/" + name + "?kind=answer&version=2", "", http.StatusNotFound},
		{"/v1/pages/" + name + "?kind=topic_page", "", http.StatusNotFound},
		{"/v1/pages/" + name + "?kind=Topic%20Page", "", http.StatusBadRequest},
	} {
		code, p, body := page(tc.path)
		if code != tc.wantCode || p.RequestID != tc.wantReq {
			t.Errorf("GET %s = %d %s; want %d with the page of %q", tc.path, code, body, tc.wantCode, tc.wantReq)
		}
	}
}
