package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/internal/ports/genmem"

	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/infra/memory"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/wiring/api"
	"github.com/annalist-dev/annalist/schemas"
)

const (
	tenantA = schemas.DefaultTenant
	tenantB = "other"
)

// fixture is a server on real stores in a real redis-server: 叶向高 (字进卿,
// 福清人) in tenant A with his entry chunk and document, 王溥 in tenant B.
type fixture struct {
	srv   *httptest.Server
	c     redisdb.Client
	pages *pages.Store
	mem   *memory.Requests
	sink  *sink
	req   *requester
}

// newFixture builds the fixture; mutate changes its Deps, wrap (optional)
// wraps the API's handler.
func newFixture(t *testing.T, mutate func(*api.Deps), wrap ...func(http.Handler) http.Handler) *fixture {
	t.Helper()
	ctx := context.Background()
	c := redistest.Client(t)
	store, err := kg.New(c, kg.Config{})
	if err != nil {
		t.Fatal(err)
	}
	text := "叶向高，字进卿，福清人。"
	ye := []schemas.Triplet{
		{TripletID: "t1", Head: "叶向高", HeadType: schemas.EntityPerson, Relation: schemas.RelCourtesyName,
			Tail: "进卿", ChunkID: "d-0000", DocID: "d", Entry: "叶向高", EntryChunk: "d-0000",
			Span: schemas.Span{Start: 4, End: 7}, Evidence: "字进卿", Method: "regex", Confidence: 0.9},
		{TripletID: "t2", Head: "叶向高", HeadType: schemas.EntityPerson, Relation: schemas.RelNativePlace,
			Tail: "福清", TailType: schemas.EntityPlace, ChunkID: "d-0000", DocID: "d", Entry: "叶向高", EntryChunk: "d-0000",
			Span: schemas.Span{Start: 8, End: 11}, Evidence: "福清人", Method: "regex", Confidence: 0.9},
	}
	if _, err := store.Apply(ctx, tenantA, ye, []string{"e1", "e2"}); err != nil {
		t.Fatal(err)
	}
	wp := []schemas.Triplet{{TripletID: "t3", Head: "王溥", HeadType: schemas.EntityPerson, Relation: schemas.RelCourtesyName,
		Tail: "子明", ChunkID: "b-0000", DocID: "b", Entry: "王溥", EntryChunk: "b-0000",
		Span: schemas.Span{Start: 3, End: 6}, Evidence: "字子明", Method: "regex", Confidence: 0.9}}
	if _, err := store.Apply(ctx, tenantB, wp, []string{"e3"}); err != nil {
		t.Fatal(err)
	}
	chunks := redisdb.NewChunks(c)
	if err := chunks.PutDocument(ctx, tenantA, schemas.Document{DocID: "d", Title: "叶向高传", Source: "test", Text: text},
		[]schemas.Chunk{{ChunkID: "d-0000", DocID: "d", Seq: 0, Total: 1, Start: 0, End: len([]rune(text)), Text: text}}); err != nil {
		t.Fatal(err)
	}
	if err := chunks.MarkStage(ctx, tenantA, "d", "extractor"); err != nil {
		t.Fatal(err)
	}
	f := &fixture{c: c, pages: pages.New(c), mem: memory.NewRequests(c, time.Hour), sink: &sink{}, req: &requester{}}
	d := api.Deps{Sink: f.sink, Graph: store, Chunks: chunks, Pages: f.pages, Requester: f.req, Memory: f.mem,
		MaxBody: 4 << 10}
	if mutate != nil {
		mutate(&d)
	}
	h := api.New(d)
	for _, w := range wrap {
		h = w(h)
	}
	f.srv = httptest.NewServer(h)
	t.Cleanup(f.srv.Close)
	return f
}

// do sends a request; hdr are header name/value pairs.
func (f *fixture) do(t *testing.T, method, path, body string, hdr ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func esc(s string) string { return url.PathEscape(s) }

func TestEntitySearch(t *testing.T) {
	f := newFixture(t, nil)
	for _, tc := range []struct {
		name, path string
		hdr        []string
		want       int
		names      []string
	}{
		{name: "by courtesy name", path: "/v1/entities?q=" + url.QueryEscape("进卿"), want: 200, names: []string{"叶向高"}},
		{name: "prefix, persons first", path: "/v1/entities?q=" + url.QueryEscape("福"), want: 200, names: []string{"福清"}},
		{name: "substring", path: "/v1/entities?q=" + url.QueryEscape("向高"), want: 200, names: []string{"叶向高"}},
		{name: "nothing found", path: "/v1/entities?q=" + url.QueryEscape("无此人"), want: 200, names: nil},
		{name: "another tenant's entity", path: "/v1/entities?q=" + url.QueryEscape("子明"), want: 200, names: nil},
		{name: "tenant B sees its own", path: "/v1/entities?q=" + url.QueryEscape("子明"), hdr: []string{"X-Annalist-Tenant", tenantB}, want: 200, names: []string{"王溥"}},
		{name: "tenant B does not see A's", path: "/v1/entities?q=" + url.QueryEscape("进卿"), hdr: []string{"X-Annalist-Tenant", tenantB}, want: 200, names: nil},
		{name: "tenant as query parameter", path: "/v1/entities?tenant=" + tenantB + "&q=" + url.QueryEscape("王"), want: 200, names: []string{"王溥"}},
		{name: "no query", path: "/v1/entities", want: 400},
		{name: "bad limit", path: "/v1/entities?q=a&limit=x", want: 400},
		{name: "limit too large", path: "/v1/entities?q=a&limit=100000", want: 400},
		{name: "invalid tenant", path: "/v1/entities?q=a", hdr: []string{"X-Annalist-Tenant", "no spaces please"}, want: 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := f.do(t, http.MethodGet, tc.path, "", tc.hdr...)
			if code != tc.want {
				t.Fatalf("GET %s = %d %s; want %d", tc.path, code, body, tc.want)
			}
			if code != 200 {
				return
			}
			var got struct {
				Entities []struct {
					ID, Name, Type, Matched string
					Aliases                 []string
				} `json:"entities"`
			}
			if err := json.Unmarshal([]byte(body), &got); err != nil || got.Entities == nil {
				t.Fatalf("body %s: %v (entities must be a list)", body, err)
			}
			var names []string
			for _, e := range got.Entities {
				names = append(names, e.Name)
				if e.ID == "" || e.Type == "" || e.Matched == "" || len(e.Aliases) == 0 {
					t.Errorf("match %+v lacks id, type, matched or aliases", e)
				}
			}
			if !slices.Equal(names, tc.names) {
				t.Fatalf("GET %s found %v; want %v", tc.path, names, tc.names)
			}
		})
	}
}

func TestNeighbourhood(t *testing.T) {
	f := newFixture(t, nil)
	code, body := f.do(t, http.MethodGet, "/v1/entities/"+esc("进卿")+"/neighbourhood", "")
	var g struct {
		Root  string `json:"root"`
		Nodes []struct{ ID, Name, Type string }
		Edges []struct {
			ID       string `json:"id"`
			HeadID   string `json:"head_id"`
			Relation string `json:"relation"`
			Tail     string `json:"tail"`
			TailID   string `json:"tail_id"`
			ChunkID  string `json:"chunk_id"`
			Evidence string `json:"evidence"`
		}
	}
	if code != 200 || json.Unmarshal([]byte(body), &g) != nil {
		t.Fatalf("neighbourhood by courtesy name = %d %s", code, body)
	}
	if !strings.HasPrefix(g.Root, "person:叶向高@") || len(g.Nodes) != 2 || len(g.Edges) != 2 {
		t.Fatalf("neighbourhood = %+v; want 叶向高 and 福清, two edges", g)
	}
	var place bool
	for _, e := range g.Edges {
		if e.HeadID != g.Root || e.ChunkID != "d-0000" || e.Evidence == "" || e.ID == "" {
			t.Errorf("edge %+v lacks its provenance", e)
		}
		place = place || (e.Relation == schemas.RelNativePlace && e.TailID == "place:福清" && e.Tail == "福清")
	}
	if !place {
		t.Errorf("no native place edge to place:福清 in %+v", g.Edges)
	}
	for _, tc := range []struct {
		path string
		hdr  []string
		want int
	}{
		{"/v1/entities/" + esc("无此人") + "/neighbourhood", nil, 404},
		{"/v1/entities/" + esc("叶向高") + "/neighbourhood", []string{"X-Annalist-Tenant", tenantB}, 404},
		{"/v1/entities/" + esc("叶向高") + "/neighbourhood?hops=0", nil, 400},
		{"/v1/entities/" + esc("叶向高") + "/neighbourhood?hops=3", nil, 400},
		{"/v1/entities/" + esc("叶向高") + "/neighbourhood?hops=2", nil, 200},
	} {
		if code, body := f.do(t, http.MethodGet, tc.path, "", tc.hdr...); code != tc.want {
			t.Errorf("GET %s %v = %d %s; want %d", tc.path, tc.hdr, code, body, tc.want)
		}
	}
}

func TestDocuments(t *testing.T) {
	f := newFixture(t, nil)
	for _, tc := range []struct {
		name, body, ctype string
		want              int
		ids               int
	}{
		{"one document", `{"text":"Ann Lee was born in York."}`, "application/json", 202, 1},
		{"batch", `{"documents":[{"text":"One."},{"text":"Two."}]}`, "application/json", 202, 2},
		{"NDJSON", "{\"text\":\"One.\"}\n{\"text\":\"Three.\"}\n", "application/x-ndjson", 202, 2},
		{"malformed JSON", `{"text":`, "application/json", 400, 0},
		{"no text", `{"title":"empty"}`, "application/json", 400, 0},
		{"oversized", `{"text":"` + strings.Repeat("x", 5<<10) + `"}`, "application/json", 413, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := f.do(t, http.MethodPost, "/v1/documents", tc.body, "Content-Type", tc.ctype)
			if code != tc.want {
				t.Fatalf("POST = %d %s; want %d", code, body, tc.want)
			}
			var got struct {
				DocIDs []string `json:"doc_ids"`
				Error  string   `json:"error"`
			}
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatalf("body is not JSON: %s", body)
			}
			if len(got.DocIDs) != tc.ids || (code != 202 && got.Error == "") {
				t.Fatalf("POST = %s; want %d doc ids (or an error)", body, tc.ids)
			}
		})
	}

	code, body := f.do(t, http.MethodGet, "/v1/documents/d", "")
	var st struct {
		DocID  string `json:"doc_id"`
		Title  string `json:"title"`
		Chunks int    `json:"chunks"`
		Stages struct{ Chunked, Extracted, Indexed bool }
	}
	if code != 200 || json.Unmarshal([]byte(body), &st) != nil {
		t.Fatalf("GET document = %d %s", code, body)
	}
	if st.DocID != "d" || st.Title != "叶向高传" || st.Chunks != 1 || !st.Stages.Chunked || !st.Stages.Extracted || st.Stages.Indexed {
		t.Fatalf("document status = %+v; want chunked and extracted, not indexed", st)
	}
	if code, _ := f.do(t, http.MethodGet, "/v1/documents/nope", ""); code != 404 {
		t.Fatalf("unknown document: %d; want 404", code)
	}
	if code, _ := f.do(t, http.MethodGet, "/v1/documents/d", "", "X-Annalist-Tenant", tenantB); code != 404 {
		t.Fatalf("another tenant's document: %d; want 404", code)
	}
}

func TestPageDiff(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	path := "/v1/pages/" + esc("进卿") + "/diff"
	if code, _ := f.do(t, http.MethodGet, path, ""); code != 404 {
		t.Fatalf("diff of a page that does not exist: %d; want 404", code)
	}
	for i, texts := range [][]string{{"叶向高，字进卿。"}, {"叶向高，字进卿。", "福清人。"}} {
		p := schemas.Page{Subject: "叶向高", Kind: schemas.KindBiography, RequestID: "r" + string(rune('1'+i))}
		for _, s := range texts {
			p.Sentences = append(p.Sentences, schemas.PageSentence{Text: s, Status: "supported"})
		}
		if _, _, err := f.pages.Publish(ctx, tenantA, p); err != nil {
			t.Fatal(err)
		}
	}
	code, body := f.do(t, http.MethodGet, path, "")
	var d pages.PageDiff
	if code != 200 || json.Unmarshal([]byte(body), &d) != nil {
		t.Fatalf("diff = %d %s", code, body)
	}
	want := []pages.SentenceDiff{{Op: "same", Text: "叶向高，字进卿。"}, {Op: "added", Text: "福清人。"}}
	if d.From != 1 || d.To != 2 || !slices.Equal(d.Sentences, want) {
		t.Fatalf("default diff = %+v; want 1→2 %v", d, want)
	}
	code, body = f.do(t, http.MethodGet, path+"?from=2&to=1", "")
	if code != 200 || json.Unmarshal([]byte(body), &d) != nil || d.Sentences[1].Op != "removed" {
		t.Fatalf("reverse diff = %d %s", code, body)
	}
	for _, tc := range []struct {
		q    string
		hdr  []string
		want int
	}{
		{"?from=1&to=3", nil, 404},
		{"?from=x", nil, 400},
		{"?to=0", nil, 400},
		{"?to=1", nil, 400}, // nothing before version 1
		{"", []string{"X-Annalist-Tenant", tenantB}, 404},
	} {
		if code, body := f.do(t, http.MethodGet, path+tc.q, "", tc.hdr...); code != tc.want {
			t.Errorf("GET diff%s %v = %d %s; want %d", tc.q, tc.hdr, code, body, tc.want)
		}
	}
}

func TestOperationsEndpoints(t *testing.T) {
	ready := errors.New("redis unreachable")
	f := newFixture(t, func(d *api.Deps) {
		d.Ready = func(context.Context) error { return ready }
		d.Metrics = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "annalist_messages_total 1\n")
		})
		d.UI = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "ui:"+r.URL.Path)
		})
		d.Pipeline = func(context.Context) (any, error) {
			return map[string]any{"stages": []map[string]any{{"name": "chunker", "handled": 3}}}, nil
		}
	})
	if code, body := f.do(t, http.MethodGet, "/readyz", ""); code != 503 || !strings.Contains(body, "redis unreachable") {
		t.Fatalf("readyz while not ready = %d %s", code, body)
	}
	ready = nil
	for _, tc := range []struct{ path, want string }{
		{"/readyz", `"ok"`},
		{"/healthz", `"ok"`},
		{"/metrics", "annalist_messages_total 1"},
		{"/", "ui:/"},
		{"/ui/app.js", "ui:/ui/app.js"},
		{"/v1/pipeline", `"chunker"`},
		{"/openapi.json", `"openapi": "3.0`},
	} {
		if code, body := f.do(t, http.MethodGet, tc.path, ""); code != 200 || !strings.Contains(body, tc.want) {
			t.Errorf("GET %s = %d %.200s; want 200 with %s", tc.path, code, body, tc.want)
		}
	}
	if code, _ := f.do(t, http.MethodGet, "/v1/nothing", ""); code != 404 {
		t.Errorf("an unknown API path must not reach the UI: %d", code)
	}
}

func TestOptionalEndpointsAreNotRouted(t *testing.T) {
	srv := httptest.NewServer(api.New(api.Deps{}))
	defer srv.Close()
	for _, p := range []string{"/v1/pipeline", "/metrics", "/", "/v1/entities?q=a", "/v1/requests/r/events"} {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("GET %s without its dependency = %d; want 404", p, resp.StatusCode)
		}
	}
}

func TestAuth(t *testing.T) {
	f := newFixture(t, func(d *api.Deps) { d.Auth = api.AuthConfig{APIToken: "write-secret", ReadToken: "read-secret"} })
	auth := func(tok string) []string { return []string{"Authorization", "Bearer " + tok} }
	writes := []struct{ path, body string }{
		{"/v1/documents", `{"text":"One."}`},
		{"/v1/requests", `{"subject":"叶向高"}`},
		{"/v1/reviews/nope", `{"decision":"x"}`},
	}
	for _, w := range writes {
		for _, tc := range []struct {
			name string
			hdr  []string
			want int
		}{
			{"no token", nil, 401},
			{"not bearer", []string{"Authorization", "Basic d3JpdGU6c2VjcmV0"}, 401},
			{"wrong token", auth("guess"), 403},
			{"read token", auth("read-secret"), 403},
		} {
			if code, body := f.do(t, http.MethodPost, w.path, w.body, tc.hdr...); code != tc.want {
				t.Errorf("%s: POST %s = %d %s; want %d", tc.name, w.path, code, body, tc.want)
			}
		}
	}
	if len(f.sink.got) != 0 || len(f.req.got) != 0 {
		t.Fatalf("refused writes were carried out: %d documents, %d requests", len(f.sink.got), len(f.req.got))
	}
	if code, body := f.do(t, http.MethodPost, "/v1/documents", `{"text":"One."}`, auth("write-secret")...); code != 202 {
		t.Fatalf("POST with the API token = %d %s", code, body)
	}
	if code, body := f.do(t, http.MethodPost, "/v1/requests", `{"subject":"叶向高"}`, auth("write-secret")...); code != 202 {
		t.Fatalf("POST request with the API token = %d %s", code, body)
	}
	if code, _ := f.do(t, http.MethodPost, "/v1/reviews/nope", `{"decision":"x"}`, auth("write-secret")...); code != 404 {
		t.Fatalf("review decision with the API token reaches the handler: %d; want 404", code)
	}

	reads := []string{"/v1/entities/" + esc("叶向高"), "/v1/entities?q=" + url.QueryEscape("叶"), "/v1/documents/d", "/v1/reviews"}
	for _, p := range reads {
		for _, tc := range []struct {
			name string
			hdr  []string
			want int
		}{
			{"no token", nil, 401},
			{"wrong token", auth("guess"), 403},
			{"read token", auth("read-secret"), 200},
			{"API token", auth("write-secret"), 200},
		} {
			if code, body := f.do(t, http.MethodGet, p, "", tc.hdr...); code != tc.want {
				t.Errorf("%s: GET %s = %d %.200s; want %d", tc.name, p, code, body, tc.want)
			}
		}
	}
	if code, _ := f.do(t, http.MethodGet, "/v1/documents/d?access_token=read-secret", ""); code != 200 {
		t.Errorf("read token as a query parameter: %d; want 200", code)
	}
	for _, p := range []string{"/healthz", "/readyz", "/openapi.json"} {
		if code, _ := f.do(t, http.MethodGet, p, ""); code != 200 {
			t.Errorf("GET %s without a token = %d; want 200 (always open)", p, code)
		}
	}

	// With only the API token, reads are open and writes are guarded.
	g := newFixture(t, func(d *api.Deps) { d.Auth = api.AuthConfig{APIToken: "write-secret"} })
	if code, _ := g.do(t, http.MethodGet, "/v1/entities/"+esc("叶向高"), ""); code != 200 {
		t.Errorf("read without a read token configured: %d; want 200", code)
	}
	if code, _ := g.do(t, http.MethodPost, "/v1/documents", `{"text":"One."}`); code != 401 {
		t.Errorf("write without a token: %d; want 401", code)
	}
}

// event is one Server-Sent Event.
type event struct{ id, name, data string }

// readEvent returns the next event, skipping comments; ok is false at the
// end of the stream.
func readEvent(t *testing.T, r *bufio.Reader) (event, bool) {
	t.Helper()
	var e event
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF && line == "" {
			return e, false
		}
		if err != nil && err != io.EOF {
			t.Fatalf("read event stream: %v", err)
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "":
			if e.name != "" {
				return e, true
			}
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "id: "):
			e.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			e.name = line[7:]
		case strings.HasPrefix(line, "data: "):
			e.data = line[6:]
		}
	}
}

// loop drives the request memory the way the writer does.
type loop struct {
	t   *testing.T
	mem *memory.Requests
	id  string
	k   int
}

func (l *loop) final(f genmem.Final) {
	l.t.Helper()
	f.Index = l.k
	ok, _, err := l.mem.Step(context.Background(), tenantA, l.id, genmem.Step{Key: "v:" + string(rune('0'+l.k)),
		ExpectIndex: l.k, NextIndex: l.k + 1, Record: &f})
	if err != nil || !ok {
		l.t.Fatalf("record sentence %d: applied=%v %v", l.k, ok, err)
	}
	l.k++
}

func TestRequestEvents(t *testing.T) {
	returned := make(chan struct{}, 4)
	// Signal every time an event stream's handler returns.
	f := newFixture(t, nil, func(inner http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/events") {
				defer func() { returned <- struct{}{} }()
			}
			inner.ServeHTTP(w, r)
		})
	})
	ctx := context.Background()
	req := schemas.Request{RequestID: "r-sse", Kind: schemas.KindBiography, Subject: "进卿"}
	if err := f.pages.SetRequest(ctx, tenantA, pages.RequestStatus{RequestID: req.RequestID, Subject: req.Subject, State: pages.RequestQueued}); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := f.mem.Step(ctx, tenantA, req.RequestID, genmem.Step{Key: "start", Start: &req, Name: "叶向高"}); err != nil || !ok {
		t.Fatalf("start request: %v %v", ok, err)
	}
	l := &loop{t: t, mem: f.mem, id: req.RequestID}
	l.final(genmem.Final{Sentence: schemas.PageSentence{Text: "叶向高，字进卿。", Status: "supported",
		Citations: []schemas.Citation{{ChunkID: "d-0000"}}}})

	open := func(ctx context.Context, path string, hdr ...string) *http.Response {
		t.Helper()
		r, _ := http.NewRequestWithContext(ctx, http.MethodGet, f.srv.URL+path, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := open(ctx, "/v1/requests/r-sse/events")
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("events = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	br := bufio.NewReader(resp.Body)
	e, ok := readEvent(t, br)
	var s struct {
		Index     int                `json:"index"`
		Text      string             `json:"text"`
		Status    string             `json:"status"`
		Citations []schemas.Citation `json:"citations"`
	}
	if !ok || e.name != "sentence" || e.id != "0" || json.Unmarshal([]byte(e.data), &s) != nil {
		t.Fatalf("first event = %+v", e)
	}
	if s.Index != 0 || s.Text != "叶向高，字进卿。" || s.Status != "supported" || len(s.Citations) != 1 ||
		s.Citations[0].Text != "叶向高，字进卿，福清人。" {
		t.Fatalf("first sentence = %+v; want the sentence with its citation's chunk text", s)
	}

	// Sentences written while the stream is open arrive in order.
	l.final(genmem.Final{Dropped: "unsupported after 3 attempts"})
	l.final(genmem.Final{Sentence: schemas.PageSentence{Text: "福清人。", Status: "corrected", Note: "era fixed",
		Citations: []schemas.Citation{{ChunkID: "d-0000", Text: "福清人"}}}})
	if e, ok := readEvent(t, br); !ok || e.name != "dropped" || e.data != `{"index":1,"reason":"unsupported after 3 attempts"}` {
		t.Fatalf("second event = %+v", e)
	}
	if e, ok := readEvent(t, br); !ok || e.name != "sentence" || !strings.Contains(e.data, `"note":"era fixed"`) ||
		!strings.Contains(e.data, `"text":"福清人"`) {
		t.Fatalf("third event = %+v", e)
	}
	page := schemas.Page{Subject: "叶向高", Kind: schemas.KindBiography, RequestID: "r-sse", Version: 1}
	if err := f.pages.Finish(ctx, tenantA, req, &page, ""); err != nil {
		t.Fatal(err)
	}
	e, ok = readEvent(t, br)
	var st pages.RequestStatus
	if !ok || e.name != "done" || json.Unmarshal([]byte(e.data), &st) != nil || st.State != pages.RequestPublished ||
		st.Page != "叶向高" || st.Version != 1 {
		t.Fatalf("last event = %+v; want done with the published status", e)
	}
	if e, ok := readEvent(t, br); ok {
		t.Fatalf("event after done: %+v", e)
	}
	<-returned

	// A client that reconnects after sentence 1 gets the rest.
	resp2 := open(ctx, "/v1/requests/r-sse/events", "Last-Event-ID", "1")
	defer resp2.Body.Close()
	br = bufio.NewReader(resp2.Body)
	var names []string
	for e, ok := readEvent(t, br); ok; e, ok = readEvent(t, br) {
		names = append(names, e.name+":"+e.id)
	}
	if !slices.Equal(names, []string{"sentence:2", "done:"}) {
		t.Fatalf("resumed stream = %v; want sentence 2 and done", names)
	}
	<-returned

	// The stream of a request still running ends when the client leaves.
	if err := f.pages.SetRequest(ctx, tenantA, pages.RequestStatus{RequestID: "r-open", Subject: "叶向高", State: pages.RequestQueued}); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	resp3 := open(cctx, "/v1/requests/r-open/events")
	if resp3.StatusCode != 200 {
		t.Fatalf("events of a running request = %d", resp3.StatusCode)
	}
	cancel()
	resp3.Body.Close()
	<-returned // the handler returns once the client is gone

	for _, tc := range []struct {
		path string
		hdr  []string
	}{
		{"/v1/requests/nope/events", nil},
		{"/v1/requests/r-sse/events", []string{"X-Annalist-Tenant", tenantB}},
	} {
		r := open(ctx, tc.path, tc.hdr...)
		r.Body.Close()
		if r.StatusCode != 404 {
			t.Errorf("GET %s %v = %d; want 404", tc.path, tc.hdr, r.StatusCode)
		}
		<-returned
	}
}

func TestEventsOfAnExpiredMemoryStreamThePage(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	req := schemas.Request{RequestID: "r-old", Kind: schemas.KindBiography, Subject: "叶向高"}
	p, _, err := f.pages.Publish(ctx, tenantA, schemas.Page{Subject: "叶向高", Kind: schemas.KindBiography, RequestID: "r-old",
		Sentences: []schemas.PageSentence{{Text: "叶向高，字进卿。", Status: "supported", Citations: []schemas.Citation{{ChunkID: "d-0000"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.pages.Finish(ctx, tenantA, req, &p, ""); err != nil {
		t.Fatal(err)
	}
	code, body := f.do(t, http.MethodGet, "/v1/requests/r-old/events", "")
	br := bufio.NewReader(strings.NewReader(body))
	var got []string
	for e, ok := readEvent(t, br); ok; e, ok = readEvent(t, br) {
		got = append(got, e.name)
		if e.name == "sentence" && !strings.Contains(e.data, "叶向高，字进卿，福清人。") {
			t.Errorf("sentence without its citation text: %s", e.data)
		}
	}
	if code != 200 || !slices.Equal(got, []string{"sentence", "done"}) {
		t.Fatalf("events = %d %v; want the page's sentence, then done", code, got)
	}
}

// TestTenantIsolation reads everything tenant A has as tenant A (200) and
// as tenant B (404).
func TestTenantIsolation(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	req := schemas.Request{RequestID: "r-iso", Kind: schemas.KindBiography, Subject: "叶向高"}
	p, _, err := f.pages.Publish(ctx, tenantA, schemas.Page{Subject: "叶向高", Kind: schemas.KindBiography, RequestID: req.RequestID,
		Sentences: []schemas.PageSentence{{Text: "叶向高，字进卿。", Status: "supported"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.pages.Finish(ctx, tenantA, req, &p, ""); err != nil {
		t.Fatal(err)
	}
	if err := f.pages.OpenReview(ctx, tenantA, schemas.Review{ReviewID: "rv-iso", Subject: "叶向高", Relation: "native_place",
		Question: "native place?", Options: []schemas.ReviewOption{{Value: "福清", ChunkID: "d-0000"}, {Value: "侯官", ChunkID: "d-0000"}}}); err != nil {
		t.Fatal(err)
	}
	reads := []string{
		"/v1/entities/" + esc("进卿"),
		"/v1/entities/" + esc("进卿") + "?text=1",
		"/v1/entities/" + esc("进卿") + "/neighbourhood",
		"/v1/chunks/d-0000",
		"/v1/documents/d",
		"/v1/pages/" + esc("进卿"),
		"/v1/pages/" + esc("进卿") + "?version=1",
		"/v1/pages/" + esc("进卿") + "/versions",
		"/v1/pages/" + esc("进卿") + "/diff?from=1&to=1",
		"/v1/requests/r-iso",
		"/v1/requests/r-iso/events",
	}
	for _, path := range reads {
		if code, body := f.do(t, http.MethodGet, path, ""); code != 200 {
			t.Errorf("tenant A: GET %s = %d %.200s; want 200", path, code, body)
		}
		for _, hdr := range [][]string{{"X-Annalist-Tenant", tenantB}} {
			if code, body := f.do(t, http.MethodGet, path, "", hdr...); code != 404 {
				t.Errorf("tenant B: GET %s = %d %.200s; want 404", path, code, body)
			}
		}
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		if code, _ := f.do(t, http.MethodGet, path+sep+"tenant="+tenantB, ""); code != 404 {
			t.Errorf("tenant B by query parameter: GET %s = %d; want 404", path, code)
		}
	}
	if code, body := f.do(t, http.MethodGet, "/v1/reviews", "", "X-Annalist-Tenant", tenantB); code != 200 || strings.Contains(body, "rv-iso") {
		t.Errorf("tenant B's review queue = %d %s; want A's review absent", code, body)
	}
	if code, _ := f.do(t, http.MethodPost, "/v1/reviews/rv-iso", `{"decision":"福清"}`, "X-Annalist-Tenant", tenantB); code != 404 {
		t.Errorf("tenant B deciding A's review = %d; want 404", code)
	}
	if code, _ := f.do(t, http.MethodPost, "/v1/requests", `{"subject":"进卿"}`, "X-Annalist-Tenant", tenantB); code != 404 {
		t.Errorf("tenant B requesting a page of A's subject = %d; want 404", code)
	}
	if code, _ := f.do(t, http.MethodGet, "/v1/chunks/nope", ""); code != 404 {
		t.Errorf("unknown chunk: %d; want 404", code)
	}
	if code, _ := f.do(t, http.MethodGet, "/v1/entities?q="+strings.Repeat("叶", 201), ""); code != 400 {
		t.Errorf("overlong search query: %d; want 400", code)
	}
}
