package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/internal/wiring/app"
)

// service is the flag set of commands that reach the broker, Redis or the
// vector store.
type service struct {
	common
	app app.Config
}

func (s *service) register(fs *flag.FlagSet) {
	s.common.register(fs)
	s.app.RegisterFlags(fs)
	s.app.Command = strings.TrimPrefix(fs.Name(), "annalist ")
}

// open validates the flags, builds the logger and starts or joins the
// services in need.
func (s *service) open(ctx context.Context, stdio IO, need app.Needs) (*app.App, zerolog.Logger, error) {
	log, err := s.logger(stdio.Stderr)
	if err != nil {
		return nil, log, fmt.Errorf("%w: %v", errUsage, err)
	}
	s.app.DataDir = s.dataDir
	// A command that joins the owner of the data directory asks its API
	// with the tokens this user would give that API.
	s.app.JoinToken = os.Getenv("ANNALIST_READ_TOKEN")
	if s.app.JoinToken == "" {
		s.app.JoinToken = os.Getenv("ANNALIST_API_TOKEN")
	}
	a, err := app.Open(ctx, s.app, log, need)
	if err != nil {
		return nil, log, err
	}
	return a, log, nil
}

// embedded reports whether the command starts or joins the embedded
// broker (no --brokers given).
func (s *service) embedded() bool { return len(s.app.Kafka.Brokers) == 0 }
