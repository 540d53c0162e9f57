package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/wiring/api"
	"github.com/annalist-dev/annalist/schemas"
)

// topicFixture is a graph of five persons over four chunks, with the
// entity linker's mentions of them, the chunks stored, and an API that
// serves the biography and topic_page kinds.
type topicFixture struct {
	srv   *httptest.Server
	pages *pages.Store
	q     *requester
	// person ids by name; 张三 has two, one per entry.
	gu, lu, li, yan, zhang1, zhang2 string
}

func newTopicFixture(t *testing.T) *topicFixture {
	t.Helper()
	ctx := context.Background()
	c := redistest.Client(t)
	store, err := kg.New(c, kg.Config{})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"陆文渊，字静之，苏州吴县人。",                // d-0000
		"顾承泽，字伯润，松江华亭人。与陆文渊善，文渊荐其才可大用。", // d-0001
		"张三，字子平。与子安同年。",                 // d-0002
		"张三，字叔度，严鹤龄之友。",                 // d-0003
		"李四，字子安。",                       // d-0004
		"严鹤龄，字鸣远。",                      // d-0005
	}
	var chunks []schemas.Chunk
	total := 0
	for i, text := range texts {
		n := len([]rune(text))
		chunks = append(chunks, schemas.Chunk{ChunkID: "d-000" + string(rune('0'+i)), DocID: "d", Seq: i,
			Total: len(texts), Profile: "liezhuan", Method: "pattern", Start: total, End: total + n, Text: text})
		total += n
	}
	chunkStore := redisdb.NewChunks(c)
	if err := chunkStore.PutDocument(ctx, schemas.DefaultTenant,
		schemas.Document{DocID: "d", Source: "test/d", Text: strings.Join(texts, "")}, chunks); err != nil {
		t.Fatal(err)
	}
	fact := func(head, chunk, rel, tail, tailType string) schemas.Triplet {
		return schemas.Triplet{TripletID: chunk + rel, Head: head, HeadType: schemas.EntityPerson, Relation: rel,
			Tail: tail, TailType: tailType, ChunkID: chunk, DocID: "d", Entry: head, EntryChunk: chunk,
			Span: schemas.Span{Start: 0, End: 2}, Evidence: tail, Method: "regex", Confidence: 0.9}
	}
	ts := []schemas.Triplet{
		fact("陆文渊", "d-0000", schemas.RelCourtesyName, "静之", ""),
		fact("顾承泽", "d-0001", schemas.RelNativePlace, "松江华亭", schemas.EntityPlace),
		fact("张三", "d-0002", schemas.RelCourtesyName, "子平", ""),
		fact("张三", "d-0003", schemas.RelCourtesyName, "叔度", ""),
		fact("李四", "d-0004", schemas.RelCourtesyName, "子安", ""),
		fact("严鹤龄", "d-0005", schemas.RelCourtesyName, "鸣远", ""),
	}
	for i, tr := range ts {
		if _, err := store.Apply(ctx, schemas.DefaultTenant, []schemas.Triplet{tr}, []string{"e" + string(rune('0'+i))}); err != nil {
			t.Fatal(err)
		}
	}
	f := &topicFixture{gu: kg.PersonID("顾承泽", "d-0001"), lu: kg.PersonID("陆文渊", "d-0000"),
		li: kg.PersonID("李四", "d-0004"), yan: kg.PersonID("严鹤龄", "d-0005"),
		zhang1: kg.PersonID("张三", "d-0002"), zhang2: kg.PersonID("张三", "d-0003")}
	// The linker's mentions: d-0003 names 严鹤龄, but no sentence citing
	// it names him; d-0002 names 李四 by his courtesy name.
	type m struct{ entity, surface string }
	links := map[string][]m{
		"d-0001": {{f.gu, "顾承泽"}, {f.lu, "陆文渊"}},
		"d-0002": {{f.zhang1, "张三"}, {f.li, "子安"}},
		"d-0003": {{f.zhang2, "张三"}, {f.yan, "严鹤龄"}},
	}
	var rows [][]string
	for chunk, ms := range links {
		var js, ids, seen []string
		for _, x := range ms {
			js = append(js, `{"entity":"`+x.entity+`","surface":"`+x.surface+`"}`)
			ids = append(ids, x.entity)
			seen = append(seen, x.surface+"\t1")
		}
		rows = append(rows, []string{chunk, "d", "1", "t-" + chunk, "[" + strings.Join(js, ",") + "]",
			strings.Join(ids, "\t"), strings.Join(seen, "\n"), "1"})
	}
	if _, err := store.Link(ctx, schemas.DefaultTenant, rows); err != nil {
		t.Fatal(err)
	}
	f.q = &requester{}
	if err := f.q.registry().Register(nopKind(schemas.KindTopicPage)); err != nil {
		t.Fatal(err)
	}
	f.pages = pages.New(c)
	f.srv = httptest.NewServer(api.New(api.Deps{Graph: store, Chunks: chunkStore, Pages: f.pages, Requester: f.q}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *topicFixture) do(t *testing.T, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func cited(text string, chunks ...string) schemas.PageSentence {
	s := schemas.PageSentence{Text: text, Status: "supported"}
	for _, c := range chunks {
		s.Citations = append(s.Citations, schemas.Citation{ChunkID: c, DocID: "d"})
	}
	return s
}

// sectioned is a topic page of the given sections, with its flat
// sentence list in page order.
func sectioned(subject, requestID string, secs ...schemas.PageSection) schemas.Page {
	p := schemas.Page{Subject: subject, Kind: schemas.KindTopicPage, RequestID: requestID}
	for i, s := range secs {
		for j := range s.Sentences {
			s.Sentences[j].Section = s.Title
		}
		secs[i] = s
		p.Sentences = append(p.Sentences, s.Sentences...)
	}
	p.Sections = secs
	return p
}

// TestTopicPageRequest: a topic page is requested through the kind
// registry like any kind; its subject is the planner's, not a person the
// graph must know.
func TestTopicPageRequest(t *testing.T) {
	f := newTopicFixture(t)
	for _, tc := range []struct {
		body string
		want int
	}{
		{`{"kind":"topic_page","subject":"松江华亭"}`, http.StatusAccepted},
		{`{"kind":"topic_page","subject":"倭寇之患"}`, http.StatusAccepted}, // free text
		{`{"kind":"topic page","subject":"松江华亭"}`, http.StatusBadRequest},
		{`{"kind":"topic_page","subject":"  "}`, http.StatusBadRequest},
		{`{"subject":"松江华亭"}`, http.StatusNotFound}, // a place has no biography
	} {
		if code, body := f.do(t, http.MethodPost, "/v1/requests", tc.body); code != tc.want {
			t.Errorf("POST %s = %d %s; want %d", tc.body, code, body, tc.want)
		}
	}
	if len(f.q.got) != 2 || f.q.got[0].Kind != schemas.KindTopicPage || f.q.got[0].Subject != "松江华亭" ||
		f.q.got[1].Subject != "倭寇之患" {
		t.Fatalf("published %+v; want the two topic_page requests", f.q.got)
	}
}

// pageAnswer is what GET /v1/pages/{subject} answers, as a client reads it.
type pageAnswer struct {
	schemas.Page
	Versions []pages.VersionInfo `json:"versions"`
	People   []api.PersonRef     `json:"people"`
	Chunks   map[string]string   `json:"chunks"`
}

// TestTopicPageSections: GET /v1/pages/{subject}?kind=topic_page answers
// the sections, the persons the sentences name (from the linker's
// mentions in the chunks each sentence cites) and, with text=1, the cited
// chunks' text; versions and diff honour ?kind= too, and a malformed kind
// is 400 on each.
func TestTopicPageSections(t *testing.T) {
	ctx := context.Background()
	f := newTopicFixture(t)
	natives := schemas.PageSection{Title: "嘉靖", Sentences: []schemas.PageSentence{
		cited("顾承泽，字伯润，松江华亭人。", "d-0001"),
		cited("与陆文渊善，文渊荐其才可大用。", "d-0001"),
	}}
	friends := schemas.PageSection{Title: "交游", Sentences: []schemas.PageSentence{
		// 张三 is two persons here (each chunk resolves the surface to
		// another); 李四 is named by his canonical name while the chunk
		// writes 子安; 严鹤龄 is mentioned by a cited chunk but not named.
		cited("张三与李四同年。", "d-0002", "d-0003"),
	}}
	const topic = "松江华亭"
	if _, _, err := f.pages.Publish(ctx, schemas.DefaultTenant, sectioned(topic, "r-1", natives, friends)); err != nil {
		t.Fatal(err)
	}
	path := "/v1/pages/" + url.PathEscape(topic)
	get := func(q string) (int, pageAnswer, string) {
		t.Helper()
		code, body := f.do(t, http.MethodGet, path+q, "")
		var a pageAnswer
		if code == http.StatusOK {
			if err := json.Unmarshal([]byte(body), &a); err != nil {
				t.Fatalf("GET %s: %v: %s", q, err, body)
			}
		}
		return code, a, body
	}

	code, a, body := get("?kind=topic_page")
	if code != http.StatusOK || a.Kind != schemas.KindTopicPage || a.Subject != topic {
		t.Fatalf("GET ?kind=topic_page = %d %s", code, body)
	}
	var titles []string
	for _, s := range a.Sections {
		titles = append(titles, s.Title)
	}
	if !slices.Equal(titles, []string{"嘉靖", "交游"}) || len(a.Sections[0].Sentences) != 2 ||
		a.Sections[0].Sentences[1].Text != natives.Sentences[1].Text || a.Sections[1].Sentences[0].Section != "交游" {
		t.Errorf("sections = %+v; want 嘉靖 (2 sentences) then 交游 (1)", a.Sections)
	}
	if len(a.Sentences) != 3 || len(a.Versions) != 1 {
		t.Errorf("flat sentences %d, versions %d; want 3 and 1", len(a.Sentences), len(a.Versions))
	}
	want := []api.PersonRef{
		{Surface: "陆文渊", Entity: f.lu, Name: "陆文渊", Link: "陆文渊"},
		{Surface: "顾承泽", Entity: f.gu, Name: "顾承泽", Link: "顾承泽"},
		{Surface: "李四", Entity: f.li, Name: "李四", Link: "李四"},
	}
	if !slices.Equal(a.People, want) {
		t.Errorf("people = %+v\nwant %+v (longest surface first; 张三 ambiguous, 严鹤龄 not named)", a.People, want)
	}
	if a.Chunks != nil {
		t.Errorf("chunks without text=1: %v", a.Chunks)
	}
	if _, a, body = get("?kind=topic_page&text=1"); len(a.Chunks) != 3 || a.Chunks["d-0002"] != "张三，字子平。与子安同年。" {
		t.Errorf("text=1: chunks %v; want the three cited chunks' text: %s", a.Chunks, body)
	}

	// A place and a person may share a name: without ?kind= it is the
	// biography, which 松江华亭 does not have.
	for _, tc := range []struct {
		q    string
		want int
	}{
		{"", http.StatusNotFound},
		{"?kind=biography", http.StatusNotFound},
		{"?kind=topic_page&version=1", http.StatusOK},
		{"?kind=topic_page&version=2", http.StatusNotFound},
		{"?kind=TopicPage", http.StatusBadRequest},
		{"?kind=topic-page", http.StatusBadRequest},
		{"?kind=topic_page&text=yes", http.StatusBadRequest},
	} {
		if code, _, body := get(tc.q); code != tc.want {
			t.Errorf("GET %s = %d %s; want %d", tc.q, code, body, tc.want)
		}
	}

	// A second version drops a sentence; versions and diff of the kind.
	natives.Sentences = natives.Sentences[:1]
	if _, _, err := f.pages.Publish(ctx, schemas.DefaultTenant, sectioned(topic, "r-2", natives, friends)); err != nil {
		t.Fatal(err)
	}
	code, body = f.do(t, http.MethodGet, path+"/versions?kind=topic_page", "")
	var vs []pages.VersionInfo
	if code != http.StatusOK || json.Unmarshal([]byte(body), &vs) != nil || len(vs) != 2 || vs[1].Sentences != 2 {
		t.Errorf("versions?kind=topic_page = %d %s; want 2 versions", code, body)
	}
	code, body = f.do(t, http.MethodGet, path+"/diff?kind=topic_page", "")
	var d pages.PageDiff
	if code != http.StatusOK || json.Unmarshal([]byte(body), &d) != nil || d.From != 1 || d.To != 2 ||
		!slices.Contains(d.Sentences, pages.SentenceDiff{Op: pages.DiffRemoved, Text: "与陆文渊善，文渊荐其才可大用。"}) {
		t.Errorf("diff?kind=topic_page = %d %s; want 1..2 removing the second sentence", code, body)
	}
	for _, tc := range []struct {
		path string
		want int
	}{
		{"/versions", http.StatusNotFound}, // the biography's
		{"/diff", http.StatusNotFound},
		{"/versions?kind=Topic", http.StatusBadRequest},
		{"/diff?kind=Topic", http.StatusBadRequest},
		{"/diff?kind=topic_page&from=1&to=3", http.StatusNotFound},
	} {
		if code, body := f.do(t, http.MethodGet, path+tc.path, ""); code != tc.want {
			t.Errorf("GET %s = %d %s; want %d", tc.path, code, body, tc.want)
		}
	}
}

// TestPagesByKindShareASubject: a person's biography and a topic page
// about him are apart on every page route; the biography stays the
// default, found by any of his names.
func TestPagesByKindShareASubject(t *testing.T) {
	ctx := context.Background()
	f := newTopicFixture(t)
	bio := schemas.Page{Subject: "陆文渊", Kind: schemas.KindBiography, RequestID: "r-bio",
		Sentences: []schemas.PageSentence{cited("陆文渊，字静之，苏州吴县人。", "d-0000")}}
	if _, _, err := f.pages.Publish(ctx, schemas.DefaultTenant, bio); err != nil {
		t.Fatal(err)
	}
	circle := schemas.PageSection{Title: "交游", Sentences: []schemas.PageSentence{cited("顾承泽与陆文渊善。", "d-0001")}}
	for _, id := range []string{"r-t1", "r-t2"} {
		if _, _, err := f.pages.Publish(ctx, schemas.DefaultTenant, sectioned("陆文渊", id, circle)); err != nil {
			t.Fatal(err)
		}
		circle.Sentences = append(circle.Sentences, cited("文渊荐其才可大用。", "d-0001"))
	}
	for _, tc := range []struct {
		path, want string
	}{
		{"/v1/pages/" + url.PathEscape("静之"), `"request_id":"r-bio"`},
		{"/v1/pages/" + url.PathEscape("陆文渊") + "?kind=topic_page", `"request_id":"r-t2"`},
		{"/v1/pages/" + url.PathEscape("静之") + "/versions", `"request_id":"r-bio"`},
		{"/v1/pages/" + url.PathEscape("陆文渊") + "/versions?kind=topic_page", `"request_id":"r-t2"`},
		{"/v1/pages/" + url.PathEscape("陆文渊") + "/diff?kind=topic_page", `"op":"added"`},
	} {
		if code, body := f.do(t, http.MethodGet, tc.path, ""); code != http.StatusOK || !strings.Contains(body, tc.want) {
			t.Errorf("GET %s = %d %s; want 200 with %s", tc.path, code, body, tc.want)
		}
	}
	// The biography has one version: nothing to compare.
	if code, body := f.do(t, http.MethodGet, "/v1/pages/"+url.PathEscape("陆文渊")+"/diff", ""); code != http.StatusBadRequest {
		t.Errorf("diff of the one-version biography = %d %s; want 400", code, body)
	}
	// The topic page's subject is as requested: no alias lookup.
	if code, _ := f.do(t, http.MethodGet, "/v1/pages/"+url.PathEscape("静之")+"?kind=topic_page", ""); code != http.StatusNotFound {
		t.Errorf("topic page by an alias of its subject = %d; want 404", code)
	}
}
