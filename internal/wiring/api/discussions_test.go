package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/discussionstore"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/wiring/api"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// discussionSink records the discussions published; err, when set, is
// the broker being down.
type discussionSink struct {
	sink
	mu    sync.Mutex
	items []producers.DiscussionItem
	err   error
}

func (s *discussionSink) SendDiscussions(_ context.Context, _ string, items []producers.DiscussionItem) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	s.items = append(s.items, items...)
	return nil
}

const kgds = `{"id": 7, "SBK": [{"paragraph_index": 1, "paragraph_text": "Simona Halep won the French Open on Saturday. It was her first major title."},
 {"paragraph_index": 2, "paragraph_text": "Her coach Darren Cahill praised her."}],
 "KGD": [{"participant": "Person1", "utterance": "She deserved it."}, {"participant": "Person2", "utterance": "Her coach did well."}],
 "CAO": "ignored"}`

func summaryItem(id string, version int, at time.Time) schemas.FeedItem {
	return schemas.FeedItem{ID: id, Version: version, RequestID: "rd-" + id, Published: at.UTC().Format(time.RFC3339Nano),
		Title: "Simona Halep won the French Open on Saturday.",
		Summary: schemas.DiscussionSummary{ID: id,
			Background: schemas.BackgroundSummary{Paragraphs: []int{1},
				Sentences: []schemas.BackgroundSentence{{Text: "Simona Halep won the French Open.",
					Citations: []schemas.ParagraphCitation{{Paragraph: 1}}}}},
			Opinions: []schemas.ParticipantOpinions{{Participant: "Person1", Sentences: []schemas.OpinionSentence{
				{Text: "Person1 thinks that Simona Halep deserved it.", Entities: []string{"Simona Halep"},
					Citations: []schemas.TurnCitation{{Turn: 0}}}}}}}}
}

type discussionFixture struct {
	srv    *httptest.Server
	store  *discussionstore.Store
	sink   *discussionSink
	tenant string
	// now is the store's clock; tick moves it on.
	now time.Time
}

func (f *discussionFixture) tick() { f.now = f.now.Add(time.Millisecond) }

func newDiscussionFixture(t *testing.T) *discussionFixture {
	t.Helper()
	f := &discussionFixture{sink: &discussionSink{}, tenant: "t-api-" + time.Now().Format("150405.000000000"),
		now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	f.store = discussionstore.New(redistest.Client(t), discussionstore.WithClock(func() time.Time { return f.now }))
	f.srv = httptest.NewServer(api.New(api.Deps{Sink: f.sink, Discussions: f.store}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *discussionFixture) do(t *testing.T, method, path, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Annalist-Tenant", f.tenant)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	if _, err := bufio.NewReader(resp.Body).WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b.String()
}

// POST accepts one object, an array and JSON lines, publishes them with
// their ids (a content id for one without), and refuses bad input with
// 400 naming the record, publishing nothing; a broker outage is 503.
func TestPostDiscussions(t *testing.T) {
	f := newDiscussionFixture(t)
	noID := strings.Replace(strings.ReplaceAll(kgds, "\n", ""), `"id": 7, `, "", 1)
	for name, tc := range map[string]struct {
		body string
		ids  int
	}{
		"object":     {kgds, 1},
		"array":      {"[" + kgds + "," + noID + "]", 2},
		"json lines": {strings.ReplaceAll(kgds, "\n", "") + "\n" + noID + "\n", 2},
	} {
		f.sink.items = nil
		status, _, body := f.do(t, http.MethodPost, "/v1/discussions", tc.body)
		var ans struct{ IDs []string }
		if status != http.StatusAccepted || json.Unmarshal([]byte(body), &ans) != nil || len(ans.IDs) != tc.ids || ans.IDs[0] != "7" {
			t.Errorf("%s: %d %s; want 202 with %d ids, 7 first", name, status, body, tc.ids)
			continue
		}
		if len(f.sink.items) != tc.ids || f.sink.items[tc.ids-1].Discussion.ID != ans.IDs[tc.ids-1] || f.sink.items[0].EventID == "" {
			t.Errorf("%s: published %+v", name, f.sink.items)
		}
		if tc.ids == 2 && !strings.HasPrefix(ans.IDs[1], "d-") {
			t.Errorf("%s: id %q for a discussion without one, want a content id", name, ans.IDs[1])
		}
	}
	f.sink.items = nil
	for name, tc := range map[string]struct{ body, want string }{
		"not json":    {"{", "not JSON"},
		"no turn":     {`[` + kgds + `, {"SBK": [{"paragraph_index": 1, "paragraph_text": "x"}], "KGD": []}]`, "record 2"},
		"empty":       {"", "empty input"},
		"bad id":      {strings.Replace(kgds, `"id": 7`, `"id": "a/../b"`, 1), "record 1"},
		"not objects": {`[1]`, "record 1 is not a JSON object"},
	} {
		status, _, body := f.do(t, http.MethodPost, "/v1/discussions", tc.body)
		if status != http.StatusBadRequest || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s; want 400 saying %q", name, status, body, tc.want)
		}
	}
	if len(f.sink.items) != 0 {
		t.Errorf("bad input published %d discussions", len(f.sink.items))
	}
	f.sink.err = errors.New("kafka: broker down")
	if status, hdr, _ := f.do(t, http.MethodPost, "/v1/discussions", kgds); status != http.StatusServiceUnavailable || hdr.Get("Retry-After") == "" {
		t.Errorf("broker down: %d, want 503 with Retry-After", status)
	}
}

// The reads: the list newest first with titles, one discussion with its
// newest item (null before), 404 for an unknown id and another tenant's,
// the JSON Feed newest first with ?limit=.
func TestDiscussionReadsAndFeed(t *testing.T) {
	ctx := context.Background()
	f := newDiscussionFixture(t)
	var d7, d8 schemas.Discussion
	if err := json.Unmarshal([]byte(kgds), &d7); err != nil {
		t.Fatal(err)
	}
	d8 = d7
	d8.ID = "8"
	if _, err := f.store.Put(ctx, f.tenant, d7); err != nil {
		t.Fatal(err)
	}
	f.tick()
	if _, err := f.store.Put(ctx, f.tenant, d8); err != nil {
		t.Fatal(err)
	}
	status, _, body := f.do(t, http.MethodGet, "/v1/discussions/7", "")
	if status != http.StatusOK || !strings.Contains(body, `"item":null`) || !strings.Contains(body, `"SBK"`) {
		t.Fatalf("discussion 7 before its summary: %d %s", status, body)
	}
	now := time.Now()
	if _, err := f.store.PutItem(ctx, f.tenant, summaryItem("7", 1, now)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.PutItem(ctx, f.tenant, summaryItem("8", 2, now.Add(time.Second))); err != nil {
		t.Fatal(err)
	}
	status, _, body = f.do(t, http.MethodGet, "/v1/discussions/7", "")
	var one struct {
		Discussion schemas.Discussion
		Title      string
		Item       *schemas.FeedItem
	}
	if status != http.StatusOK || json.Unmarshal([]byte(body), &one) != nil || one.Item == nil || one.Item.Version != 1 ||
		len(one.Discussion.Turns) != 2 || one.Title != "Simona Halep won the French Open on Saturday." {
		t.Fatalf("discussion 7: %d %s", status, body)
	}
	if status, _, _ := f.do(t, http.MethodGet, "/v1/discussions/9", ""); status != http.StatusNotFound {
		t.Errorf("unknown discussion: %d, want 404", status)
	}
	req, _ := http.NewRequest(http.MethodGet, f.srv.URL+"/v1/discussions/7", nil)
	req.Header.Set("X-Annalist-Tenant", "someone-else")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("another tenant's discussion: %v %v, want 404", resp.StatusCode, err)
	} else {
		resp.Body.Close()
	}
	status, _, body = f.do(t, http.MethodGet, "/v1/discussions", "")
	var list struct {
		Discussions []struct {
			ID, Title string
			Version   int
		}
	}
	if status != http.StatusOK || json.Unmarshal([]byte(body), &list) != nil || len(list.Discussions) != 2 ||
		list.Discussions[0].ID != "8" || list.Discussions[0].Version != 2 || list.Discussions[1].Title == "" {
		t.Fatalf("list: %d %s; want 8 then 7", status, body)
	}

	status, hdr, body := f.do(t, http.MethodGet, "/v1/feed", "")
	var feed struct {
		Version     string `json:"version"`
		Title       string `json:"title"`
		HomePageURL string `json:"home_page_url"`
		FeedURL     string `json:"feed_url"`
		Items       []struct {
			ID            string `json:"id"`
			URL           string `json:"url"`
			Title         string `json:"title"`
			ContentText   string `json:"content_text"`
			DatePublished string `json:"date_published"`
			Annalist      struct {
				Version int                       `json:"version"`
				Summary schemas.DiscussionSummary `json:"summary"`
			} `json:"_annalist"`
		} `json:"items"`
	}
	if status != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "application/feed+json") ||
		json.Unmarshal([]byte(body), &feed) != nil {
		t.Fatalf("feed: %d %s %s", status, hdr.Get("Content-Type"), body)
	}
	if feed.Version != "https://jsonfeed.org/version/1.1" || feed.Title == "" || feed.FeedURL != f.srv.URL+"/v1/feed" ||
		feed.HomePageURL != f.srv.URL+"/" || len(feed.Items) != 2 {
		t.Fatalf("feed = %+v", feed)
	}
	it := feed.Items[0]
	if it.ID != "8" || it.URL != f.srv.URL+"/v1/discussions/8" || it.Annalist.Version != 2 || it.Annalist.Summary.ID != "8" ||
		it.Title == "" || it.DatePublished == "" {
		t.Errorf("first item = %+v, want discussion 8 (newest)", it)
	}
	for _, want := range []string{"Background", "Simona Halep won the French Open. [¶1]", "Person1", "- Person1 thinks that Simona Halep deserved it. [turn 0]"} {
		if !strings.Contains(it.ContentText, want) {
			t.Errorf("content_text %q lacks %q", it.ContentText, want)
		}
	}
	if _, _, body := f.do(t, http.MethodGet, "/v1/feed?limit=1", ""); strings.Count(body, `"date_published"`) != 1 {
		t.Errorf("limit=1: %s", body)
	}
	for _, bad := range []string{"0", "x", "1001"} {
		if status, _, _ := f.do(t, http.MethodGet, "/v1/feed?limit="+bad, ""); status != http.StatusBadRequest {
			t.Errorf("limit=%s: %d, want 400", bad, status)
		}
	}
}

// The event stream sends each summary published after it opened as a
// "summary" event with the item, and ends when the client goes away.
func TestFeedEvents(t *testing.T) {
	f := newDiscussionFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	streamCtx, closeStream := context.WithCancel(ctx)
	req, _ := http.NewRequestWithContext(streamCtx, http.MethodGet, f.srv.URL+"/v1/feed/events?tenant="+f.tenant, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	// The subscription is confirmed before the headers are sent, so an
	// item stored now is delivered.
	if _, err := f.store.PutItem(ctx, f.tenant, summaryItem("7", 3, time.Now())); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.PutItem(ctx, "another-tenant", summaryItem("5", 1, time.Now())); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	var event, id, data string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "id: "):
			id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: "):
			data = strings.TrimPrefix(line, "data: ")
		}
		if line == "" && event != "" {
			break
		}
	}
	var it schemas.FeedItem
	if event != "summary" || id != "7:3" || json.Unmarshal([]byte(data), &it) != nil || it.ID != "7" || it.Version != 3 ||
		len(it.Summary.Opinions) != 1 {
		t.Fatalf("event %q id %q data %s; want the summary of 7 at version 3", event, id, data)
	}
	closeStream()
	for sc.Scan() {
	}
}
