package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/annalist-dev/annalist/consumers/feed"
	"github.com/annalist-dev/annalist/infra/discussionstore"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// DiscussionStore reads the discussions received and the summaries feed;
// *infra/discussionstore.Store implements it.
type DiscussionStore interface {
	Discussion(ctx context.Context, tenant, id string) (d schemas.Discussion, found bool, err error)
	IDs(ctx context.Context, tenant string, limit int) ([]string, error)
	// Item is a discussion's newest feed item; an error wrapping
	// discussionstore.ErrNotFound when it has none.
	Item(ctx context.Context, tenant, id string) (schemas.FeedItem, error)
	Items(ctx context.Context, tenant string, limit int) ([]schemas.FeedItem, error)
	// Subscribe delivers the items published after it returns until ctx
	// ends.
	Subscribe(ctx context.Context, tenant string) (<-chan schemas.FeedItem, error)
}

// maxDiscussionBody bounds POST /v1/discussions bodies: the KGDS
// development set (60 discussions) is under 1 MiB.
const maxDiscussionBody = 16 << 20

// Feed limits: the default and largest ?limit= of GET /v1/feed and GET
// /v1/discussions.
const (
	defaultFeedLimit = 50
	maxFeedLimit     = 1000
)

// jsonFeedVersion is the JSON Feed version GET /v1/feed speaks.
const jsonFeedVersion = "https://jsonfeed.org/version/1.1"

// discussionRoutes are the discussion and feed endpoints: POST when the
// sink publishes discussions (producers.DiscussionSink), the reads when
// Deps.Discussions is set.
func discussionRoutes(d Deps) []route {
	var rs []route
	if sink, ok := d.Sink.(producers.DiscussionSink); ok {
		rs = append(rs, route{"POST /v1/discussions", accessWrite, discussionsPost(sink)})
	}
	if d.Discussions == nil {
		return rs
	}
	return append(rs,
		route{"GET /v1/discussions", accessRead, discussionList(d.Discussions)},
		route{"GET /v1/discussions/{id}", accessRead, discussionGet(d.Discussions)},
		route{"GET /v1/feed", accessRead, feedGet(d.Discussions)},
		route{"GET /v1/feed/events", accessRead, feedEvents(d.Discussions)},
	)
}

// discussionsPost serves POST /v1/discussions: one KGDS-style object, an
// array of them, or JSON lines; every discussion is checked before any is
// published (producers.ReadDiscussions), and a body with one bad record
// publishes nothing (400 naming the record). 202 with the ids in input
// order (a discussion without id gets its content id).
func discussionsPost(sink producers.DiscussionSink) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		ds, err := producers.ReadDiscussions(http.MaxBytesReader(w, r.Body, maxDiscussionBody))
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body over %d bytes", tooBig.Limit))
			return
		case errors.Is(err, producers.ErrDiscussionInput):
			writeError(w, http.StatusBadRequest, err.Error())
			return
		case err != nil:
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		ctx := r.Context()
		if t := traceOf(r); t != "" {
			ctx = pipeline.WithTraceID(ctx, t)
			w.Header().Set("X-Trace-Id", t)
		}
		ids, err := producers.PublishDiscussions(ctx, sink, tenant, ds)
		if err != nil {
			unavailable(w, err)
			return
		}
		writeJSON(w, http.StatusAccepted, map[string][]string{"ids": ids})
	}
}

// discussionRef is one discussion of GET /v1/discussions.
type discussionRef struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Version is the page version of its newest feed item, 0 while it
	// has none.
	Version int `json:"version"`
}

// discussionList serves GET /v1/discussions: the stored discussions,
// newest first, with their titles, at most ?limit=.
func discussionList(s DiscussionStore) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		limit, ok := feedLimit(w, r)
		if !ok {
			return
		}
		ctx := r.Context()
		ids, err := s.IDs(ctx, tenant, limit)
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		out := make([]discussionRef, 0, len(ids))
		for _, id := range ids {
			d, found, err := s.Discussion(ctx, tenant, id)
			if err != nil {
				writeError(w, http.StatusInternalServerError, err.Error())
				return
			}
			if !found {
				continue
			}
			ref := discussionRef{ID: id, Title: feed.Title(d)}
			it, err := s.Item(ctx, tenant, id)
			switch {
			case err == nil:
				ref.Version = it.Version
			case !errors.Is(err, discussionstore.ErrNotFound):
				writeError(w, http.StatusInternalServerError, err.Error())
				return
			}
			out = append(out, ref)
		}
		writeJSON(w, http.StatusOK, map[string]any{"discussions": out})
	}
}

// discussionAnswer is GET /v1/discussions/{id}: the stored discussion and
// its newest feed item (null while its summary is not published).
type discussionAnswer struct {
	Discussion schemas.Discussion `json:"discussion"`
	Title      string             `json:"title"`
	Item       *schemas.FeedItem  `json:"item"`
}

func discussionGet(s DiscussionStore) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		id := r.PathValue("id")
		if err := schemas.ValidID("discussion id", id); err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		ctx := r.Context()
		d, found, err := s.Discussion(ctx, tenant, id)
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		if !found {
			writeError(w, http.StatusNotFound, "discussion "+id+" not found")
			return
		}
		ans := discussionAnswer{Discussion: d, Title: feed.Title(d)}
		it, err := s.Item(ctx, tenant, id)
		switch {
		case err == nil:
			ans.Item = &it
		case !errors.Is(err, discussionstore.ErrNotFound):
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		writeJSON(w, http.StatusOK, ans)
	}
}

// jsonFeed is a JSON Feed 1.1 document (https://jsonfeed.org/version/1.1).
type jsonFeed struct {
	Version     string         `json:"version"`
	Title       string         `json:"title"`
	HomePageURL string         `json:"home_page_url"`
	FeedURL     string         `json:"feed_url"`
	Description string         `json:"description,omitempty"`
	Items       []jsonFeedItem `json:"items"`
}

// jsonFeedItem is one item: the discussion's id (an updated summary keeps
// it, as JSON Feed asks), the summary as readable text, and the summary
// itself in the _annalist extension.
type jsonFeedItem struct {
	ID            string            `json:"id"`
	URL           string            `json:"url"`
	Title         string            `json:"title,omitempty"`
	ContentText   string            `json:"content_text"`
	DatePublished string            `json:"date_published"`
	Annalist      feedItemExtension `json:"_annalist"`
}

// feedItemExtension is the _annalist object of a feed item.
type feedItemExtension struct {
	Version   int                       `json:"version"`
	RequestID string                    `json:"request_id,omitempty"`
	Summary   schemas.DiscussionSummary `json:"summary"`
}

// feedGet serves GET /v1/feed: the newest summaries first, at most
// ?limit= (default 50).
func feedGet(s DiscussionStore) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		limit, ok := feedLimit(w, r)
		if !ok {
			return
		}
		items, err := s.Items(r.Context(), tenant, limit)
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		base := baseURL(r)
		f := jsonFeed{Version: jsonFeedVersion, Title: "annalist: discussion summaries",
			HomePageURL: base + "/", FeedURL: base + "/v1/feed",
			Description: "For each discussion, the background a reader needs and what each participant thinks, every sentence cited.",
			Items:       make([]jsonFeedItem, 0, len(items))}
		for _, it := range items {
			f.Items = append(f.Items, jsonFeedItem{ID: it.ID, URL: base + "/v1/discussions/" + it.ID, Title: it.Title,
				ContentText: SummaryText(it.Summary), DatePublished: it.Published,
				Annalist: feedItemExtension{Version: it.Version, RequestID: it.RequestID, Summary: it.Summary}})
		}
		w.Header().Set("Content-Type", "application/feed+json; charset=utf-8")
		writeJSONBody(w, http.StatusOK, f)
	}
}

// SummaryText is a summary as plain text for a reader: the background
// sentences with the paragraphs they cite, then each participant's
// opinions with the turns they come from.
func SummaryText(s schemas.DiscussionSummary) string {
	var b strings.Builder
	if len(s.Background.Sentences) > 0 {
		b.WriteString("Background\n")
		for _, st := range s.Background.Sentences {
			cites := make([]string, len(st.Citations))
			for i, c := range st.Citations {
				cites[i] = "¶" + strconv.Itoa(c.Paragraph)
			}
			fmt.Fprintf(&b, "%s [%s]\n", st.Text, strings.Join(cites, ", "))
		}
	}
	for _, o := range s.Opinions {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s\n", o.Participant)
		for _, st := range o.Sentences {
			cites := make([]string, len(st.Citations))
			for i, c := range st.Citations {
				cites[i] = "turn " + strconv.Itoa(c.Turn)
			}
			fmt.Fprintf(&b, "- %s [%s]\n", st.Text, strings.Join(cites, ", "))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// feedEvents serves GET /v1/feed/events, a Server-Sent Events stream of
// the summaries published from now on: "summary" with the FeedItem, its
// id "<discussion id>:<version>"; ": heartbeat" comments while idle. It
// ends when the client goes away or the server shuts down.
func feedEvents(s DiscussionStore) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		ctx := r.Context()
		items, err := s.Subscribe(ctx, tenant)
		if err != nil {
			unavailable(w, err)
			return
		}
		es, ok := openEventStream(w)
		if !ok {
			return
		}
		heartbeat := time.NewTicker(eventHeartbeat)
		defer heartbeat.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-heartbeat.C:
				if !es.comment("heartbeat") {
					return
				}
			case it, ok := <-items:
				if !ok {
					return
				}
				if !es.send("summary", it.ID+":"+strconv.Itoa(it.Version), it) {
					return
				}
			}
		}
	}
}

// feedLimit reads ?limit= (default defaultFeedLimit, at most
// maxFeedLimit); on a bad value it answers 400 and returns false.
func feedLimit(w http.ResponseWriter, r *http.Request) (int, bool) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return defaultFeedLimit, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 || n > maxFeedLimit {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("limit %q: want a number from 1 to %d", v, maxFeedLimit))
		return 0, false
	}
	return n, true
}

// baseURL is the URL the client reached the server at: the scheme (https
// behind TLS or a proxy saying so in X-Forwarded-Proto) and the host.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// writeJSONBody writes v as JSON under the Content-Type already set.
func writeJSONBody(w http.ResponseWriter, status int, v any) {
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
