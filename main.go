// Command annalist turns a stream of archive documents into a knowledge
// graph and writes attributed, verified prose from it. One binary; the
// subcommand chooses what runs (see `annalist help`).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/annalist-dev/annalist/internal/wiring/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
