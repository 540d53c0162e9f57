package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/annalist-dev/annalist/infra/hnsw"
	"github.com/annalist-dev/annalist/internal/ports/vectors"
	"github.com/annalist-dev/annalist/pipeline"
)

// maxSearchK bounds the hits one search returns: retrieval asks for tens,
// and an unbounded k would let one call walk a whole index.
const maxSearchK = 1000

// maxVectorBody bounds a search's body: a query vector of 4096 components
// written in full precision is some 60 KiB of JSON.
const maxVectorBody = 1 << 20

// vectorRoutes serve the process's vector store to the commands that join
// it (infra/hnsw.Remote): search and count, with read access. Writes
// are not offered: the owner's embedder stage is the index's only writer.
func vectorRoutes(d Deps) []route {
	if d.Vectors == nil {
		return nil
	}
	return []route{
		{"POST " + hnsw.SearchPath, accessRead, vectorSearch(d.Vectors)},
		{"GET " + hnsw.CountPath, accessRead, vectorCount(d.Vectors)},
	}
}

// vectorSearch serves POST /v1/vectors/search: {"vector", "k"} → the k
// nearest chunks, best first. A vector of another length than the
// tenant's is 400 with code vector_dimension, so the caller can tell its
// embedder differs from the index's.
func vectorSearch(st vectors.Store) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		var req hnsw.SearchRequest
		dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxVectorBody))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body over %d bytes", tooBig.Limit))
				return
			}
			writeError(w, http.StatusBadRequest, "malformed JSON: "+err.Error())
			return
		}
		if req.K > maxSearchK {
			req.K = maxSearchK
		}
		resp := hnsw.SearchResponse{Hits: []hnsw.SearchHit{}}
		if req.K <= 0 {
			writeJSON(w, http.StatusOK, resp)
			return
		}
		hits, err := st.Search(r.Context(), tenant, req.Vector, req.K)
		switch {
		case errors.Is(err, vectors.ErrDimension):
			writeJSON(w, http.StatusBadRequest, hnsw.ErrorResponse{Error: err.Error(), Code: hnsw.CodeDimension})
			return
		case pipeline.IsPermanent(err):
			writeError(w, http.StatusBadRequest, err.Error())
			return
		case err != nil:
			unavailable(w, err)
			return
		}
		for _, h := range hits {
			resp.Hits = append(resp.Hits, hnsw.SearchHit{ChunkID: h.ChunkID, Score: h.Score})
		}
		writeJSON(w, http.StatusOK, resp)
	}
}

// vectorCount serves GET /v1/vectors/count: how many chunks of the tenant
// have a vector.
func vectorCount(st vectors.Store) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		n, err := st.Count(r.Context(), tenant)
		if err != nil {
			unavailable(w, err)
			return
		}
		writeJSON(w, http.StatusOK, hnsw.CountResponse{Count: n})
	}
}
