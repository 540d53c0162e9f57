package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// InstrumentHTTP counts and times the requests h serves, labelled by the
// route (the http.ServeMux pattern that matched, "unmatched" when none
// did) and the status code. h is typically the API's ServeMux, whose
// pattern is read after it served the request. Streaming responses keep
// working: the writer passed on implements http.Flusher and Unwrap.
func (r *Registry) InstrumentHTTP(h http.Handler) http.Handler {
	r.mu.Lock()
	if r.httpRequests == nil {
		r.httpRequests = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "http_requests_total",
			Help: "HTTP requests served, by route pattern and status code."}, []string{"route", "code"})
		r.httpSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "http_request_seconds",
			Help:    "HTTP request duration by route pattern (event streams last as long as the client listens).",
			Buckets: latencyBuckets}, []string{"route"})
		r.reg.MustRegister(r.httpRequests, r.httpSeconds)
	}
	requests, seconds := r.httpRequests, r.httpSeconds
	r.mu.Unlock()
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, req)
		route := req.Pattern
		if route == "" {
			route = "unmatched"
		}
		code := sw.code
		if code == 0 {
			code = http.StatusOK
		}
		requests.WithLabelValues(route, strconv.Itoa(code)).Inc()
		seconds.WithLabelValues(route).Observe(time.Since(start).Seconds())
	})
}

// statusWriter remembers the status code written.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush passes a flush on, so event streams are not buffered.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
