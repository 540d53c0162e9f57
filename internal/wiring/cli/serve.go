package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/internal/wiring/api"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/internal/wiring/web"
)

// DefaultAddr is where serve and demo listen.
const DefaultAddr = "127.0.0.1:8080"

// cmdServe runs the HTTP API against the services; in the embedded mode it
// also runs every stage, so requests it accepts are written.
func cmdServe(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("serve", io.Stderr)
	var s service
	s.register(fs)
	addr := fs.String("addr", DefaultAddr, "host:port of the HTTP API")
	stages := fs.Bool("stages", true, "embedded mode: also run every pipeline stage in this process (ignored with --brokers or when another process owns --data-dir)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	reg := app.DefaultStages()
	s.app.Stages = reg
	need := app.Needs{Broker: true, Redis: true}
	if s.embedded() && *stages {
		need = reg.Needs(reg.Names())
	}
	// The owner of the embedded index serves it to the commands that join
	// this process, whether or not it runs the stages.
	if s.embedded() && (s.app.VectorStore == app.VectorEmbedded || s.app.VectorStore == "") {
		need.Vectors = true
	}
	a, log, err := s.open(ctx, io, need)
	if err != nil {
		return err
	}
	defer a.Close()
	// Listen before any stage starts: a busy port is one clear error, not
	// that error followed by every stage's cancellation.
	l, err := listenHTTP(*addr)
	if err != nil {
		return err
	}
	if !s.embedded() || a.Joined || !*stages {
		return serveHTTP(ctx, l, a, log, nil, nil)
	}
	stageCtx, stopStages := context.WithCancel(ctx)
	stageErr := make(chan error, 1)
	go func() { stageErr <- a.RunStages(stageCtx, reg.Names(), nil) }()
	err = serveHTTP(stageCtx, l, a, log, reg.Names(), nil)
	stopStages()
	return errors.Join(err, <-stageErr)
}

// The HTTP server's timeouts. A client gets readHeaderTimeout for its
// request line and headers and readTimeout for the whole request, body
// included (a maximal document of 8 MiB needs about 3 MB/s), so slow or
// stalled uploads cannot hold connections; the API lifts the read
// deadline of requests without a body once they are read, so long
// responses (event streams) are not cut. An idle keep-alive connection is
// closed after idleTimeout.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	idleTimeout       = 120 * time.Second
)

// listenHTTP opens the API's listener on addr.
func listenHTTP(addr string) (net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w (choose another with --addr)", addr, err)
	}
	return l, nil
}

// serveHTTP serves the API on l until ctx is cancelled, then shuts down
// gracefully; it closes l. Once serving has begun it records the API and
// the stages this process runs (stages) for the commands that join it
// (App.Serving), then calls ready, when set, with the listener's address.
func serveHTTP(ctx context.Context, l net.Listener, a *app.App, log zerolog.Logger, stages []string, ready func(string)) error {
	srv := newServer(ctx, a.Metrics().InstrumentHTTP(api.New(apiDeps(a))))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	url := "http://" + l.Addr().String()
	log.Info().Str("url", url).Msg("HTTP API listening")
	if err := a.Serving(joinURL(l.Addr()), stages); err != nil {
		_ = srv.Close()
		<-done
		return fmt.Errorf("publish the API for joining commands: %w", err)
	}
	if ready != nil {
		ready(url)
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return fmt.Errorf("shut down HTTP: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// joinURL is the URL a command on this machine reaches the API at: a
// listener on every interface (0.0.0.0, ::) is reached on loopback.
func joinURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip.To4() == nil {
			host = "::1"
		}
	}
	return "http://" + net.JoinHostPort(host, port)
}

// newServer is the HTTP server of serve and demo for h, with its timeouts.
func newServer(ctx context.Context, h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		IdleTimeout:       idleTimeout,
		// WriteTimeout stays unset: it would cut the Server-Sent Events
		// streams, which write for as long as a request is generated.
		// Requests (event streams included) see ctx end, so a shutdown
		// does not wait on open streams.
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
}

// apiDeps are the API's dependencies on the app's services. Tokens come
// from ANNALIST_API_TOKEN (writes) and ANNALIST_READ_TOKEN (reads).
func apiDeps(a *app.App) api.Deps {
	d := api.Deps{Sink: a, Graph: a.KG, Chunks: a.Chunks, Pages: a.Pages, Requester: a,
		Memory: a.Requests, Ready: a.Ready, Admit: a.WriteReady, Metrics: a.Metrics().Handler(), Pipeline: a.Pipeline,
		DeadLetters: kafka.DeadLetters{Config: a.Config.Kafka, Marks: kafka.NewRedisReplayMarks(a.Redis)},
		UI:          web.Handler(), Vectors: a.Vectors,
		Auth: api.AuthConfig{APIToken: os.Getenv("ANNALIST_API_TOKEN"), ReadToken: os.Getenv("ANNALIST_READ_TOKEN")}}
	// Set only when open: a nil *discussions.Store in the interface would
	// route the endpoints to a store that is not there.
	if a.Discussions != nil {
		d.Discussions = a.Discussions
	}
	return d
}
