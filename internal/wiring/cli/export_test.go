package cli

import (
	"context"
	"net/http"

	"github.com/annalist-dev/annalist/internal/wiring/api"
	"github.com/annalist-dev/annalist/internal/wiring/app"
)

// Consume is `annalist consume` on the stages of reg, as cmdConsume runs
// it on the application's registry.
func Consume(ctx context.Context, io IO, args []string, reg app.Registry) error {
	return consume(ctx, io, args, reg)
}

// Topology is `annalist topology` on the stages of reg.
func Topology(ctx context.Context, io IO, args []string, reg app.Registry) error {
	return topologyCommand(ctx, io, args, reg)
}

// API is the HTTP API `annalist serve` serves for a.
func API(a *app.App) http.Handler { return api.New(apiDeps(a)) }

// LivingVolume is livingVolume: a biographical volume of n entries and
// their names.
func LivingVolume(n int) (string, []string) { return livingVolume(n) }

// UpdateText is the update document `bench regenerate` publishes about
// subject.
func UpdateText(ctx context.Context, a *app.App, tenant, subject string, round int) (string, error) {
	date, place, _, err := noteContext(ctx, a, tenant, subject)
	return updateText(subject, date, place, round), err
}

// BenchSubjects is benchSubjects: n persons with a biography entry, drawn
// with seed.
func BenchSubjects(ctx context.Context, a *app.App, tenant string, n int, seed uint64) ([]string, error) {
	return benchSubjects(ctx, a, tenant, n, seed)
}

// PlainNote is the k-th phrasing of a plain note about name, as `bench
// regenerate` writes them by default: his name and a statement, nothing a
// reader could tell him by.
func PlainNote(name string, k int) string { return plainNote(name, k) }
