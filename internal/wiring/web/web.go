// Package web is annalist's browser interface: plain HTML, CSS and ES
// modules embedded in the binary, with no build step and nothing fetched
// from outside the server. The pages (search, which offers people and
// topics apart; entity and biography with citations; topic page with its
// table of contents, citations and links from every person named to his
// biography; discussions, the feed of discussion summaries updated live,
// each summary with its background and participants' opinions, entity
// names marked and citations to paragraphs and turns; generation; ingest;
// review queue; pipeline dashboard) are rendered in the browser from the
// JSON API under /v1; this package only serves the files.
package web

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed static
var static embed.FS

// contentSecurityPolicy allows nothing but this origin: no CDN, no inline
// script, no third-party connections.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

// Handler serves the UI: the application page at / and /ui/, its assets
// under /ui/. Any other path is not found, so the API's own 404s stay
// meaningful when this handler is mounted as the catch-all.
func Handler() http.Handler {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		// The directory is embedded at build time; Sub fails only on an
		// invalid name, which is a programming error.
		panic(err)
	}
	index, err := fs.ReadFile(sub, "index.html")
	if err != nil {
		panic(err)
	}
	assets := http.StripPrefix("/ui/", http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		// The assets change with the binary; revalidate rather than cache
		// a stale UI against a newer API.
		h.Set("Cache-Control", "no-cache")
		switch r.URL.Path {
		case "/", "/ui", "/ui/", "/ui/index.html":
			h.Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write(index)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/ui/") {
			assets.ServeHTTP(w, r)
			return
		}
		http.NotFound(w, r)
	})
}
