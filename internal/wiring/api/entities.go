package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/ports/graph"

	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/internal/kit/kgview"
)

// EntitySearcher finds entities by a part of any of their names;
// *kg.Store implements it.
type EntitySearcher interface {
	Search(ctx context.Context, tenant, q string, limit int) ([]kg.Match, error)
}

// NeighbourhoodReader reads the entities and edges around an entity;
// *kg.Store implements it.
type NeighbourhoodReader interface {
	Neighbourhood(ctx context.Context, tenant, id string, hops int) (graph.Subgraph, error)
}

// maxHops bounds the neighbourhood a request may ask for: two hops from a
// person already reach every person of the same place or year.
const maxHops = 2

// maxQuery bounds a search query: no name or alias is longer.
const maxQuery = 200

// entitySearch serves GET /v1/entities?q=TEXT&limit=N.
func entitySearch(d Deps) http.HandlerFunc {
	s := d.Graph.(EntitySearcher)
	return func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		q := r.URL.Query().Get("q")
		if kg.Surface(q) == "" {
			writeError(w, http.StatusBadRequest, "q is required: a name, alias or part of one")
			return
		}
		if utf8.RuneCountInString(q) > maxQuery {
			writeError(w, http.StatusBadRequest, "q is longer than "+strconv.Itoa(maxQuery)+" characters")
			return
		}
		limit, ok := intParam(w, r, "limit", kg.DefaultSearchLimit, 1, kg.MaxSearchLimit)
		if !ok {
			return
		}
		ms, err := s.Search(r.Context(), tenant, q, limit)
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		if ms == nil {
			ms = []kg.Match{}
		}
		writeJSON(w, http.StatusOK, map[string]any{"entities": ms})
	}
}

// entityNeighbourhood serves GET /v1/entities/{name}/neighbourhood?hops=N:
// the entity the name denotes (the best candidate, as GET
// /v1/entities/{name} shows it) and what lies within N hops (default 1).
func entityNeighbourhood(d Deps) http.HandlerFunc {
	nb := d.Graph.(NeighbourhoodReader)
	return func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		hops, ok := intParam(w, r, "hops", 1, 1, maxHops)
		if !ok {
			return
		}
		v, err := kgview.Show(r.Context(), d.Graph, nil, tenant, r.PathValue("name"), false)
		if err == nil {
			var g graph.Subgraph
			g, err = nb.Neighbourhood(r.Context(), tenant, v.ID, hops)
			if err == nil {
				if g.Edges == nil {
					g.Edges = []graph.Edge{}
				}
				writeJSON(w, http.StatusOK, g)
				return
			}
		}
		if errors.Is(err, graph.ErrNotFound) {
			writeError(w, http.StatusNotFound, err.Error())
			return
		}
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}

// intParam reads an optional integer query parameter in [lo, hi]; absent
// gives def. A malformed or out-of-range value is answered with 400.
func intParam(w http.ResponseWriter, r *http.Request, name string, def, lo, hi int) (int, bool) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		writeError(w, http.StatusBadRequest, name+" must be an integer from "+strconv.Itoa(lo)+" to "+strconv.Itoa(hi))
		return 0, false
	}
	return n, true
}
