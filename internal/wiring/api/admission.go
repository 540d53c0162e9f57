package api

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// admitTTL is how long one answer of the admission check is reused. A
// flood of writes during an outage then costs one check per interval, not
// one per request (a paused Redis makes each check wait for its timeout);
// a write admitted in the interval after a dependency failed still meets
// the failure in its own store or broker call and is answered 503.
const admitTTL = 500 * time.Millisecond

// admitTimeout bounds one admission check.
const admitTimeout = 2 * time.Second

// gate runs the write path's dependency check at most once per admitTTL;
// concurrent callers share one check.
type gate struct {
	check func(context.Context) error

	mu      sync.Mutex
	at      time.Time
	err     error
	pending chan struct{}
}

// admit returns nil when writes may be accepted, else the reason.
func (g *gate) admit(ctx context.Context) error {
	if g == nil || g.check == nil {
		return nil
	}
	g.mu.Lock()
	if !g.at.IsZero() && time.Since(g.at) < admitTTL {
		err := g.err
		g.mu.Unlock()
		return err
	}
	if p := g.pending; p != nil {
		g.mu.Unlock()
		select {
		case <-p:
		case <-ctx.Done():
			return ctx.Err()
		}
		g.mu.Lock()
		err := g.err
		g.mu.Unlock()
		return err
	}
	p := make(chan struct{})
	g.pending = p
	g.mu.Unlock()

	// The check outlives a caller that gives up, so its answer serves the
	// callers waiting on it.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), admitTimeout)
	err := g.check(cctx)
	cancel()

	g.mu.Lock()
	g.at, g.err, g.pending = time.Now(), err, nil
	g.mu.Unlock()
	close(p)
	return err
}

// admitted wraps a write handler: while the write path's dependencies are
// down it answers 503 with Retry-After and never calls h, so nothing is
// acknowledged that could not be stored.
func admitted(g *gate, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := g.admit(r.Context()); err != nil {
			unavailable(w, fmt.Errorf("not accepting writes: %w", err))
			return
		}
		h(w, r)
	}
}

// unavailable answers 503 with Retry-After: a dependency is down and the
// same request may succeed later.
func unavailable(w http.ResponseWriter, err error) {
	w.Header().Set("Retry-After", producers.RetryAfterSeconds)
	writeError(w, http.StatusServiceUnavailable, err.Error())
}

// DocumentClaimer binds a document id to the hash of its text before the
// document is published; *redis.Chunks implements it. Deps.Chunks
// implementing it makes POST /v1/documents refuse (409) a document whose
// id is bound to another text.
type DocumentClaimer interface {
	ClaimDocument(ctx context.Context, tenant, docID, textHash string) (bound string, created bool, err error)
	ReleaseDocument(ctx context.Context, tenant, docID, textHash string) error
}

// claimingSink claims every document's id before it passes the documents
// on: an id already bound to another text is a conflict (nothing of the
// request is published), the same text again is accepted (publishing it
// again is idempotent downstream). Claims it made are released when the
// request publishes nothing.
type claimingSink struct {
	producers.Sink
	claims DocumentClaimer
}

func (s claimingSink) Send(ctx context.Context, tenant string, items []producers.Item) (err error) {
	type claim struct{ id, hash string }
	var made []claim
	defer func() {
		if err == nil {
			return
		}
		// Best effort: a claim left behind only makes a later post of
		// another text under the id a 409, which is what a client that
		// meant this text wants.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		for _, c := range made {
			_ = s.claims.ReleaseDocument(rctx, tenant, c.id, c.hash)
		}
	}()
	hashes := map[string]string{}
	for _, it := range items {
		id, h := it.Doc.DocID, schemas.TextHash(it.Doc.Text)
		if prev, ok := hashes[id]; ok {
			if prev != h {
				return fmt.Errorf("%w: doc_id %q is given twice with different texts", producers.ErrConflict, id)
			}
			continue
		}
		hashes[id] = h
		bound, created, err := s.claims.ClaimDocument(ctx, tenant, id, h)
		if err != nil {
			return err
		}
		if created {
			made = append(made, claim{id, h})
		}
		if bound != h {
			return fmt.Errorf("%w: doc_id %q already holds another text (a document is not overwritten; post the new text under another id)",
				producers.ErrConflict, id)
		}
	}
	return s.Sink.Send(ctx, tenant, items)
}

// withoutReadDeadline lifts the server's read deadline (ReadTimeout) from a
// request without a body once its handler starts: there is nothing left to
// read, and the deadline would otherwise end long responses such as the
// Server-Sent Events streams (net/http cancels a request's context when its
// connection's read deadline passes). Requests with a body keep it, which
// is what bounds a client that sends its body slowly.
func withoutReadDeadline(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
		}
		h.ServeHTTP(w, r)
	})
}

// jsonErrors answers what the mux itself refuses under /v1/ (no route:
// 404; a route without that method: 405 with Allow) with a JSON error like
// every handler's, instead of the mux's plain text.
func jsonErrors(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern != "" || !isAPIPath(r.URL.Path) {
			mux.ServeHTTP(w, r)
			return
		}
		rec := &recorder{header: http.Header{}, status: http.StatusOK}
		mux.ServeHTTP(rec, r)
		if allow := rec.header.Get("Allow"); allow != "" {
			w.Header().Set("Allow", allow)
		}
		msg := "no such endpoint: " + r.Method + " " + r.URL.Path
		if rec.status == http.StatusMethodNotAllowed {
			msg = "method " + r.Method + " not allowed on " + r.URL.Path
		}
		writeError(w, rec.status, msg)
	})
}

func isAPIPath(p string) bool {
	return p == "/v1" || len(p) >= 4 && p[:4] == "/v1/"
}

// validID answers 400 and returns false when id is not of the project's id
// grammar: no such document or chunk can exist.
func validID(w http.ResponseWriter, what, id string) bool {
	if err := schemas.ValidID(what, id); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return false
	}
	return true
}
