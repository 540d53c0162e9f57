package api

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// AuthConfig holds the bearer tokens (see the package doc). The zero value
// leaves every endpoint open.
type AuthConfig struct {
	// APIToken guards the write endpoints and also opens the read ones
	// (ANNALIST_API_TOKEN).
	APIToken string
	// ReadToken guards the /v1 read endpoints (ANNALIST_READ_TOKEN).
	ReadToken string
}

// guard returns the middleware that checks a route's access.
func (c AuthConfig) guard() func(access, http.Handler) http.Handler {
	return func(a access, h http.Handler) http.Handler {
		var accepted []string
		switch a {
		case accessWrite:
			if c.APIToken != "" {
				accepted = []string{c.APIToken}
			} else if c.ReadToken != "" {
				accepted = []string{c.ReadToken}
			}
		case accessRead:
			if c.ReadToken != "" {
				accepted = []string{c.ReadToken}
				if c.APIToken != "" {
					accepted = append(accepted, c.APIToken)
				}
			}
		}
		if len(accepted) == 0 {
			return h
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			token, ok := bearer(r)
			if !ok {
				w.Header().Set("WWW-Authenticate", `Bearer realm="annalist"`)
				writeError(w, http.StatusUnauthorized, "a bearer token is required (Authorization: Bearer …)")
				return
			}
			for _, want := range accepted {
				if sameToken(token, want) {
					h.ServeHTTP(w, r)
					return
				}
			}
			writeError(w, http.StatusForbidden, "the token does not grant this endpoint")
		})
	}
}

// bearer returns the request's token: the Authorization bearer token, or,
// for GET requests, the access_token query parameter. ok is false when
// there is none.
func bearer(r *http.Request) (string, bool) {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, token, found := strings.Cut(h, " ")
		if !found || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
			return "", false
		}
		return strings.TrimSpace(token), true
	}
	if r.Method == http.MethodGet {
		if t := r.URL.Query().Get("access_token"); t != "" {
			return t, true
		}
	}
	return "", false
}

// sameToken compares in constant time (hashes first, so the length of
// the expected token does not leak either).
func sameToken(got, want string) bool {
	a, b := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}
