package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/annalist-dev/annalist/infra/kafka"
)

// DeadLetterStore reads and replays the dead-letter topics; kafka.DeadLetters
// implements it.
type DeadLetterStore interface {
	List(ctx context.Context, q kafka.DLTQuery) ([]kafka.DeadLetter, error)
	Replay(ctx context.Context, q kafka.DLTQuery) (kafka.ReplayResult, error)
	Counts(ctx context.Context, topics []string) (map[string]int64, error)
}

// Bounds of GET /v1/dead-letters?limit=.
const (
	defaultDeadLetterLimit = 100
	maxDeadLetterLimit     = 1000
)

// DeadLettersList is the JSON of GET /v1/dead-letters.
type DeadLettersList struct {
	// DeadLetters are the request tenant's dead letters of the selected
	// topics, oldest first per topic, at most limit.
	DeadLetters []kafka.DeadLetter `json:"dead_letters"`
	// Counts are the records in each selected topic's DLT, every tenant's
	// and replayed ones included (the numbers of the pipeline view).
	Counts map[string]int64 `json:"counts"`
}

// deadLetterRoutes are GET /v1/dead-letters and POST
// /v1/dead-letters/replay. The dead letters of another tenant are not
// listed nor replayed.
func deadLetterRoutes(d Deps) []route {
	if d.DeadLetters == nil {
		return nil
	}
	list := func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		qs := r.URL.Query()
		topics, ok := deadLetterTopics(w, qs.Get("topic"))
		if !ok {
			return
		}
		since, err := kafka.ParseSince(qs.Get("since"), time.Now())
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		limit := defaultDeadLetterLimit
		if v := qs.Get("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > maxDeadLetterLimit {
				writeError(w, http.StatusBadRequest, "limit: want an integer from 0 (counts only) to "+strconv.Itoa(maxDeadLetterLimit))
				return
			}
			limit = n
		}
		out := DeadLettersList{DeadLetters: []kafka.DeadLetter{}}
		if out.Counts, err = d.DeadLetters.Counts(r.Context(), topics); err != nil {
			unavailable(w, err)
			return
		}
		if limit > 0 {
			dls, err := d.DeadLetters.List(r.Context(), kafka.DLTQuery{Topics: topics, Since: since, Tenant: tenant, Limit: limit})
			if err != nil {
				unavailable(w, err)
				return
			}
			if dls != nil {
				out.DeadLetters = dls
			}
		}
		writeJSON(w, http.StatusOK, out)
	}
	replay := func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		var body struct {
			Topic   string   `json:"topic"`
			Since   string   `json:"since"`
			Offsets []string `json:"offsets"`
		}
		if !decodeBody(w, r, &body) {
			return
		}
		if body.Topic == "" {
			writeError(w, http.StatusBadRequest, "topic is required (an original topic name, or all)")
			return
		}
		topics, ok := deadLetterTopics(w, body.Topic)
		if !ok {
			return
		}
		since, err := kafka.ParseSince(body.Since, time.Now())
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		q := kafka.DLTQuery{Topics: topics, Since: since, Tenant: tenant}
		for _, o := range body.Offsets {
			p, err := kafka.ParseDLTPosition(o)
			if err != nil {
				writeError(w, http.StatusBadRequest, "offsets: "+err.Error())
				return
			}
			q.Positions = append(q.Positions, p)
		}
		if len(q.Positions) > 0 && len(topics) != 1 {
			writeError(w, http.StatusBadRequest, "offsets name positions in one topic's DLT: give that topic, not all")
			return
		}
		res, err := d.DeadLetters.Replay(r.Context(), q)
		if err != nil {
			unavailable(w, err)
			return
		}
		writeJSON(w, http.StatusOK, res)
	}
	return []route{
		{"GET /v1/dead-letters", accessRead, list},
		{"POST /v1/dead-letters/replay", accessWrite, replay},
	}
}

// deadLetterTopics resolves the topic parameter (empty: all); an unknown
// topic is 404.
func deadLetterTopics(w http.ResponseWriter, topic string) ([]string, bool) {
	if topic == "" {
		topic = "all"
	}
	topics, err := kafka.DLTTopics(topic)
	if errors.Is(err, kafka.ErrUnknownTopic) {
		writeError(w, http.StatusNotFound, err.Error())
		return nil, false
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return nil, false
	}
	return topics, true
}
