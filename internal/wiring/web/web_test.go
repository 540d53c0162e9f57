package web_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/wiring/web"
)

func get(t *testing.T, h http.Handler, method, path string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	res := rec.Result()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(body)
}

func TestHandlerServesPageAndAssets(t *testing.T) {
	h := web.Handler()
	for _, tc := range []struct {
		path, ctype, contains string
	}{
		{"/", "text/html", `<script type="module" src="/ui/app.js">`},
		{"/ui/", "text/html", `<main id="main"`},
		{"/ui/index.html", "text/html", `<main id="main"`},
		{"/", "text/html", `<a href="#/discussions" data-nav="discussions">Discussions</a>`},
		{"/ui/app.js", "javascript", "function route()"},
		{"/ui/style.css", "text/css", ".citepop"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			res, body := get(t, h, http.MethodGet, tc.path)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %d %s", tc.path, res.StatusCode, body)
			}
			if ct := res.Header.Get("Content-Type"); !strings.Contains(ct, tc.ctype) {
				t.Errorf("GET %s: Content-Type %q, want %s", tc.path, ct, tc.ctype)
			}
			if !strings.Contains(body, tc.contains) {
				t.Errorf("GET %s: body lacks %q", tc.path, tc.contains)
			}
			csp := res.Header.Get("Content-Security-Policy")
			if !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "script-src 'self'") {
				t.Errorf("GET %s: Content-Security-Policy %q does not restrict to this origin", tc.path, csp)
			}
		})
	}
}

func TestHandlerRejectsOthers(t *testing.T) {
	h := web.Handler()
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, "/v1/unknown", http.StatusNotFound},
		{http.MethodGet, "/favicon.ico", http.StatusNotFound},
		{http.MethodGet, "/ui/missing.js", http.StatusNotFound},
		{http.MethodPost, "/", http.StatusMethodNotAllowed},
		{http.MethodDelete, "/ui/app.js", http.StatusMethodNotAllowed},
	} {
		res, _ := get(t, h, tc.method, tc.path)
		if res.StatusCode != tc.want {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, res.StatusCode, tc.want)
		}
	}
	res, _ := get(t, h, http.MethodHead, "/")
	if res.StatusCode != http.StatusOK {
		t.Errorf("HEAD /: %d", res.StatusCode)
	}
}

// TestNoExternalResources: the UI loads nothing from another origin (no
// CDN); every URL in the page and its assets is relative to the server.
func TestNoExternalResources(t *testing.T) {
	h := web.Handler()
	external := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:)?//|url\(\s*["']?(https?:)?//|import\s+[^;]*from\s+["']https?:`)
	for _, p := range []string{"/", "/ui/app.js", "/ui/style.css"} {
		_, body := get(t, h, http.MethodGet, p)
		if m := external.FindString(body); m != "" {
			t.Errorf("%s refers to another origin: %q", p, m)
		}
		if strings.Contains(body, "fetch('http") || strings.Contains(body, `fetch("http`) {
			t.Errorf("%s fetches from an absolute URL", p)
		}
	}
}
