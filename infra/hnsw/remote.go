package hnsw

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/annalist-dev/annalist/internal/ports/vectors"

	"github.com/annalist-dev/annalist/pipeline"
)

// The vector endpoints of the HTTP API that Remote calls (internal/wiring/api
// serves them with these types). They are read-only: the process that
// owns an embedded index is the only one that writes it.
const (
	SearchPath = "/v1/vectors/search"
	CountPath  = "/v1/vectors/count"
	// TenantHeader carries the tenant of a call, as on every /v1 route.
	TenantHeader = "X-Annalist-Tenant"
	// CodeDimension is the code of the 400 answer to a query vector whose
	// length is not that of the tenant's vectors.
	CodeDimension = "vector_dimension"
)

// SearchRequest is the body of POST /v1/vectors/search.
type SearchRequest struct {
	Vector []float32 `json:"vector"`
	K      int       `json:"k"`
}

// SearchHit is one hit of a SearchResponse.
type SearchHit struct {
	ChunkID string  `json:"chunk_id"`
	Score   float32 `json:"score"`
}

// SearchResponse is the answer of POST /v1/vectors/search: at most k hits,
// best first.
type SearchResponse struct {
	Hits []SearchHit `json:"hits"`
}

// CountResponse is the answer of GET /v1/vectors/count.
type CountResponse struct {
	Count int `json:"count"`
}

// ErrorResponse is the body of an error answer; Code is set for the errors
// a client tells apart (CodeDimension).
type ErrorResponse struct {
	Error string `json:"error"`
	Code  string `json:"code,omitempty"`
}

// ErrReadOnly is what Remote's writes return. The embedded index belongs
// to the process that owns the data directory and is written by that
// process's embedder stage alone (its log and snapshot are one writer's),
// and a process that joins it never runs the embedder: its vectors would
// come from another embedder configuration than the index's. A stage that
// needs vectors therefore runs in the owner, not in a joined process.
var ErrReadOnly = errors.New("the vector index belongs to the process that owns the data directory; a joined process searches and counts it over that process's API but never writes it")

// RemoteConfig says where the owner's API is.
type RemoteConfig struct {
	// BaseURL is the API's root, e.g. http://127.0.0.1:8080.
	BaseURL string
	// Token, when set, is sent as the bearer token (the owner's read or
	// API token).
	Token string
	// Timeout bounds one call (0: 30s); the caller's context bounds it
	// too.
	Timeout time.Duration
	// Client is the HTTP client (nil: a client of its own).
	Client *http.Client
}

// Remote is a vectors.Store over the HTTP API of the process that owns an
// embedded index: Search and Count are calls to that process, Upsert and
// Delete fail with ErrReadOnly. Safe for concurrent use.
type Remote struct {
	base    string
	token   string
	timeout time.Duration
	client  *http.Client
}

var _ vectors.Store = (*Remote)(nil)

// NewRemote returns the store for the API at cfg.BaseURL.
func NewRemote(cfg RemoteConfig) (*Remote, error) {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return nil, fmt.Errorf("remote vector store: base URL %q is not http(s)", cfg.BaseURL)
	}
	r := &Remote{base: base, token: cfg.Token, timeout: cfg.Timeout, client: cfg.Client}
	if r.timeout <= 0 {
		r.timeout = 30 * time.Second
	}
	if r.client == nil {
		r.client = &http.Client{}
	}
	return r, nil
}

// BaseURL is the API the store calls.
func (r *Remote) BaseURL() string { return r.base }

// Upsert fails with ErrReadOnly (see there why).
func (r *Remote) Upsert(context.Context, string, []vectors.Item) error {
	return fmt.Errorf("upsert into %s: %w", r.base, ErrReadOnly)
}

// Delete fails with ErrReadOnly (see there why).
func (r *Remote) Delete(context.Context, string, []string) error {
	return fmt.Errorf("delete from %s: %w", r.base, ErrReadOnly)
}

// Search asks the owner for the k nearest chunks of vec. A vector of the
// wrong length is a permanent error wrapping vectors.ErrDimension, as in
// the owner's own store; so is one with a NaN or infinite component, which
// JSON cannot carry.
func (r *Remote) Search(ctx context.Context, tenant string, vec []float32, k int) ([]vectors.Hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if k <= 0 {
		return nil, nil
	}
	body, err := json.Marshal(SearchRequest{Vector: vec, K: k})
	if err != nil {
		return nil, pipeline.Permanent(fmt.Errorf("search %s: query vector: %w", r.base, err))
	}
	var resp SearchResponse
	if err := r.call(ctx, http.MethodPost, SearchPath, tenant, body, &resp); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	hits := make([]vectors.Hit, len(resp.Hits))
	for i, h := range resp.Hits {
		hits[i] = vectors.Hit{ChunkID: h.ChunkID, Score: h.Score}
	}
	return hits, nil
}

// Count asks the owner how many chunks the tenant has vectors for.
func (r *Remote) Count(ctx context.Context, tenant string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var resp CountResponse
	if err := r.call(ctx, http.MethodGet, CountPath, tenant, nil, &resp); err != nil {
		return 0, fmt.Errorf("count: %w", err)
	}
	return resp.Count, nil
}

// maxAnswer bounds an answer's body: a search of k hits is some 60 bytes a
// hit.
const maxAnswer = 16 << 20

// call does one request and decodes a 200 answer into out. A refusal the
// same request would get again (4xx but 408 and 429) is permanent; the
// owner unreachable, busy or failing is returned as is, transient.
func (r *Remote) call(ctx context.Context, method, path, tenant string, body []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.base+path, rd)
	if err != nil {
		return pipeline.Permanent(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set(TenantHeader, tenant)
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return fmt.Errorf("ask the owner of the vector index at %s: %w", r.base, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return fmt.Errorf("read the answer of %s%s: %w", r.base, path, err)
	}
	if len(data) > maxAnswer {
		return pipeline.Permanent(fmt.Errorf("the answer of %s%s is over %d bytes", r.base, path, maxAnswer))
	}
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(data, out); err != nil {
			return pipeline.Permanent(fmt.Errorf("the answer of %s%s is not its JSON: %w", r.base, path, err))
		}
		return nil
	}
	var e ErrorResponse
	if json.Unmarshal(data, &e) != nil || e.Error == "" {
		e.Error = strings.TrimSpace(string(data))
	}
	err = fmt.Errorf("%s %s%s: %s: %s", method, r.base, path, resp.Status, e.Error)
	switch {
	case e.Code == CodeDimension:
		return pipeline.Permanent(fmt.Errorf("%w: %w", vectors.ErrDimension, err))
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return pipeline.Permanent(fmt.Errorf("%w (set ANNALIST_READ_TOKEN to the owner's read token)", err))
	case resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode == http.StatusTooManyRequests:
		return err
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return pipeline.Permanent(err)
	}
	return err
}
