package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/annalist-dev/annalist/internal/ports/genmem"

	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/schemas"
)

// How often the event stream looks at the request memory and status, and
// how often it sends a comment on an idle stream so proxies keep it open.
const (
	eventPoll      = 100 * time.Millisecond
	eventHeartbeat = 15 * time.Second
)

// sentenceEvent is the data of an "event: sentence".
type sentenceEvent struct {
	Index     int                `json:"index"`
	Text      string             `json:"text"`
	Status    string             `json:"status"`
	Citations []schemas.Citation `json:"citations"`
	Note      string             `json:"note,omitempty"`
	// Section is the sentence's section on a page of several (a topic
	// page); empty on a biography.
	Section string `json:"section,omitempty"`
}

// droppedEvent is the data of an "event: dropped".
type droppedEvent struct {
	Index  int    `json:"index"`
	Reason string `json:"reason"`
}

// requestEvents serves GET /v1/requests/{id}/events, a Server-Sent Events
// stream: "sentence" for each sentence the loop accepted (citations with
// their chunk text), "dropped" for each it gave up on, both with the
// sentence index as event id, then "done" with the request status
// (published or failed), after which the stream ends. A client that
// reconnects with Last-Event-ID gets the sentences after that index. The
// request memory and the status are polled every eventPoll; the stream
// stops when the client goes away. A request whose memory has expired
// streams its published page's sentences before "done".
func requestEvents(d Deps) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		id := r.PathValue("id")
		ctx := r.Context()
		st, err := d.Pages.Request(ctx, tenant, id)
		if err != nil {
			respond(w, nil, err)
			return
		}
		next := 0
		if last := r.Header.Get("Last-Event-ID"); last != "" {
			if n, err := strconv.Atoi(last); err == nil && n >= 0 {
				next = n + 1
			}
		}
		es, ok := openEventStream(w)
		if !ok {
			return
		}
		poll := time.NewTicker(eventPoll)
		defer poll.Stop()
		heartbeat := time.NewTicker(eventHeartbeat)
		defer heartbeat.Stop()
		sent := false
		for {
			var finals []genmem.Final
			if d.Memory != nil {
				finals, err = d.Memory.Sentences(ctx, tenant, id)
				if err != nil {
					es.send("error", "", map[string]string{"error": err.Error()})
					return
				}
			}
			for _, f := range finals {
				if f.Index < next {
					continue
				}
				if !es.sendFinal(ctx, d, tenant, f) {
					return
				}
				next, sent = f.Index+1, true
			}
			if st.Finished() {
				if !sent && next == 0 && st.State == pages.RequestPublished {
					if !es.sendPage(ctx, d, tenant, st) {
						return
					}
				}
				es.send("done", "", st)
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-heartbeat.C:
				if !es.comment("heartbeat") {
					return
				}
				continue
			case <-poll.C:
			}
			// Read the status before the sentences of the next round, so
			// every sentence written before the request finished is sent
			// before "done".
			st, err = d.Pages.Request(ctx, tenant, id)
			if err != nil {
				es.send("error", "", map[string]string{"error": err.Error()})
				return
			}
		}
	}
}

// eventStream writes Server-Sent Events and flushes each one.
// openEventStream answers 200 with the Server-Sent Events headers and
// flushes them; ok is false when the client is already gone. The
// server's write timeout, if any, is for ordinary answers, so the stream
// has none.
func openEventStream(w http.ResponseWriter) (es *eventStream, ok bool) {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if err := rc.Flush(); err != nil {
		return nil, false
	}
	return &eventStream{w: w, rc: rc}, true
}

type eventStream struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf bytes.Buffer
}

// send writes one event; false when the client is gone.
func (es *eventStream) send(event, id string, data any) bool {
	b, err := json.Marshal(data)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	es.buf.Reset()
	if id != "" {
		fmt.Fprintf(&es.buf, "id: %s\n", id)
	}
	fmt.Fprintf(&es.buf, "event: %s\ndata: %s\n\n", event, b)
	if _, err := es.w.Write(es.buf.Bytes()); err != nil {
		return false
	}
	return es.rc.Flush() == nil
}

func (es *eventStream) comment(text string) bool {
	if _, err := fmt.Fprintf(es.w, ": %s\n\n", text); err != nil {
		return false
	}
	return es.rc.Flush() == nil
}

func (es *eventStream) sendFinal(ctx context.Context, d Deps, tenant string, f genmem.Final) bool {
	id := strconv.Itoa(f.Index)
	if f.Dropped != "" {
		return es.send("dropped", id, droppedEvent{Index: f.Index, Reason: f.Dropped})
	}
	return es.send("sentence", id, sentenceEvent{Index: f.Index, Text: f.Sentence.Text, Status: f.Sentence.Status,
		Citations: citationTexts(ctx, d, tenant, f.Sentence.Citations), Note: f.Sentence.Note,
		Section: f.Sentence.Section})
}

// sendPage streams the sentences of the page a request published.
func (es *eventStream) sendPage(ctx context.Context, d Deps, tenant string, st pages.RequestStatus) bool {
	if st.Page == "" || st.Version == 0 {
		return true
	}
	p, err := d.Pages.Published(ctx, tenant, st)
	if err != nil {
		return true // the done event still says where the page is
	}
	for i, s := range p.Sentences {
		if !es.send("sentence", strconv.Itoa(i), sentenceEvent{Index: i, Text: s.Text, Status: s.Status,
			Citations: citationTexts(ctx, d, tenant, s.Citations), Note: s.Note, Section: s.Section}) {
			return false
		}
	}
	return true
}

// citationTexts fills in the text of citations that carry only a chunk id,
// from the chunk store; citations whose chunk is missing keep no text.
func citationTexts(ctx context.Context, d Deps, tenant string, cs []schemas.Citation) []schemas.Citation {
	out := make([]schemas.Citation, len(cs))
	copy(out, cs)
	var ids []string
	for _, c := range out {
		if c.Text == "" {
			ids = append(ids, c.ChunkID)
		}
	}
	if len(ids) == 0 || d.Chunks == nil {
		return out
	}
	chunks, err := d.Chunks.Get(ctx, tenant, ids)
	if err != nil {
		return out
	}
	text := make(map[string]string, len(chunks))
	for _, c := range chunks {
		text[c.ChunkID] = c.Text
	}
	for i := range out {
		if out[i].Text == "" {
			out[i].Text = text[out[i].ChunkID]
		}
	}
	return out
}
