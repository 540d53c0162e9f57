package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/broker"
	"github.com/annalist-dev/annalist/internal/wiring/app"
)

// cmdConsume runs stages of the application's registry, each as a member
// of its consumer group, until SIGINT/SIGTERM, then drains: the in-flight
// batch is finished, produced and committed, and the member leaves the
// group.
func cmdConsume(ctx context.Context, io IO, args []string) error {
	return consume(ctx, io, args, app.DefaultStages())
}

// consume is `annalist consume` on the stages of reg: STAGE arguments name
// stages of reg or its groups (ingest, generate, all).
func consume(ctx context.Context, io IO, args []string, reg app.Registry) error {
	fs := newFlagSet("consume", io.Stderr)
	var s service
	s.register(fs)
	s.app.Stages = reg
	metricsAddr := fs.String("metrics-addr", "", "serve Prometheus metrics (/metrics) and /healthz, /readyz on host:port (default: off)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fmt.Errorf("%w: want STAGE... (a stage name, or ingest, generate, all)", errUsage)
	}
	stages, err := reg.Resolve(pos)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	a, log, err := s.open(ctx, io, reg.Needs(stages))
	if err != nil {
		return err
	}
	defer a.Close()
	log.Info().Strs("stages", stages).Str("services", a.Describe()).Msg("consuming")
	if *metricsAddr != "" {
		srvErr := make(chan error, 1)
		runCtx, stop := context.WithCancel(ctx)
		defer stop()
		go func() { srvErr <- serveOps(runCtx, *metricsAddr, a, log) }()
		defer func() { stop(); <-srvErr }()
		ctx = runCtx
	}
	err = a.RunStages(ctx, stages, nil)
	log.Info().Strs("stages", stages).Msg("stopped")
	return err
}

// cmdBroker runs a standalone embedded broker for multi-process runs.
func cmdBroker(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("broker", io.Stderr)
	var c common
	c.register(fs)
	var cfg broker.Config
	cfg.RegisterFlags(fs)
	if _, err := parse(fs, args); err != nil {
		return err
	}
	log, err := c.logger(io.Stderr)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	cfg.DataDir = c.dataDir + "/kafka"
	cfg.Logger = log
	return broker.Serve(ctx, cfg)
}

// serveOps serves /metrics, /healthz and /readyz of a stage process until
// ctx ends.
func serveOps(ctx context.Context, addr string, a *app.App, log zerolog.Logger) error {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", a.Metrics().Handler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := a.Ready(r.Context()); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	l, err := net.Listen("tcp", addr)
	if err != nil {
		log.Error().Err(err).Str("addr", addr).Msg("metrics listener")
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	log.Info().Str("url", "http://"+l.Addr().String()+"/metrics").Msg("metrics listening")
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
