package eval_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/redisdb/redistest"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/evaluation/inject"
	"github.com/annalist-dev/annalist/internal/lang/zh/glossary"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/internal/wiring/appsystem"
	"github.com/annalist-dev/annalist/producers"
)

// TestInjectionOnLiezhuan is `annalist eval injection --n 120` on the
// History of Ming biographies: the volumes and the glossary go through the
// embedded ingestion pipeline (offline engine), then offline biographies,
// injected errors and untouched sentences go through the verifier, router
// and solvers. It logs the figures and the failing cases, and holds the
// run to the project's thresholds (docs/numbers.md, measured at --n 1000):
// detection recall ≥ 0.95 for era, gregorian, place, courtesy and
// fabricated, precision ≥ 0.95, routing ≥ 0.90, correction ≥ 0.90 for era,
// gregorian and courtesy, residual error rate ≤ 2 %.
func TestInjectionOnLiezhuan(t *testing.T) {
	dir := datasettest.Require(t, "mingshi-liezhuan")
	if testing.Short() {
		t.Skip("ingests 147 volumes")
	}
	redistest.Require(t)
	ctx := context.Background()
	const tenant = "default"
	cfg := app.Config{DataDir: t.TempDir(), Kafka: kafka.Config{SessionTimeout: 6 * time.Second, RebalanceTimeout: 6 * time.Second}}
	a, err := app.Open(ctx, cfg, zerolog.Nop(), app.NeedsFor(app.IngestStages()))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Ingest(ctx, tenant, true, true, func(ctx context.Context, sink producers.Sink) (producers.Summary, error) {
		sum, err := producers.IngestFiles(ctx, []string{dir}, producers.Options{}, tenant, sink, nil)
		if err != nil {
			return sum, err
		}
		g, err := producers.NewItem(glossary.Document())
		if err != nil {
			return sum, err
		}
		return sum, sink.Send(ctx, tenant, []producers.Item{g})
	}); err != nil {
		t.Fatal(err)
	}
	rep, err := eval.Injection(ctx, &appsystem.Injection{App: a, Tenant: tenant}, eval.InjectionConfig{N: 120, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	d := rep.Drafts
	t.Logf("drafts: %d sentences of %d biographies (%d failed), %d supported (%.3f)",
		d.Sentences, d.Subjects, d.Failed, d.Supported, d.SupportedRate)
	for _, typ := range inject.Types() {
		ts := rep.Types[typ]
		t.Logf("%-10s n %3d (of %4d) detection %.3f routing %.3f correction %.3f dropped %d residual %d %v",
			typ, ts.N, ts.Available, ts.DetectionRecall, ts.RoutingAccuracy, ts.CorrectionAccuracy, ts.Dropped, ts.Residual, ts.ErrorTypes)
	}
	t.Logf("precision %.3f, false positives %.3f (%d/%d), published %d, residual %d (%.4f), dropped %d (%d injected, %d untouched)",
		rep.DetectionPrecision, rep.FalsePositiveRate, rep.Untouched.Flagged, rep.Untouched.N, rep.Published,
		rep.Residual, rep.ResidualErrorRate, rep.Dropped, rep.DroppedInjected, rep.DroppedUntouched)
	for _, f := range append(d.NotSupported, rep.Failures...) {
		b, _ := json.Marshal(f)
		t.Logf("%s", b)
	}
	if d.Supported == 0 || rep.Untouched.N != 120 {
		t.Fatalf("no cases: %+v", d)
	}
	for _, typ := range inject.Types() {
		ts := rep.Types[typ]
		if ts.N == 0 {
			t.Errorf("no %s case: the biographies have no slot for it", typ)
			continue
		}
		if typ != inject.Rank && ts.DetectionRecall < 0.95 {
			t.Errorf("%s: detection recall %.3f < 0.95", typ, ts.DetectionRecall)
		}
		if ts.RoutingAccuracy < 0.90 {
			t.Errorf("%s: routing accuracy %.3f < 0.90", typ, ts.RoutingAccuracy)
		}
		if (typ == inject.Era || typ == inject.Gregorian || typ == inject.Courtesy) && ts.CorrectionAccuracy < 0.90 {
			t.Errorf("%s: correction accuracy %.3f < 0.90", typ, ts.CorrectionAccuracy)
		}
	}
	if rep.DetectionPrecision < 0.95 {
		t.Errorf("detection precision %.3f < 0.95", rep.DetectionPrecision)
	}
	if rep.ResidualErrorRate > 0.02 {
		t.Errorf("residual error rate %.4f > 0.02", rep.ResidualErrorRate)
	}
}
