package verifier_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/annalist-dev/annalist/internal/ports/genmem"

	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/pipeline/pipelinetest"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// memRefs is an in-process RefSource keyed by tenant and request.
type memRefs struct {
	sets map[string]*schemas.ReferenceSet
	err  error
}

func (m *memRefs) References(_ context.Context, tenant, id string) (*schemas.ReferenceSet, error) {
	if m.err != nil {
		return nil, m.err
	}
	rs, ok := m.sets[tenant+"/"+id]
	if !ok {
		return nil, fmt.Errorf("references of request %s: %w", id, genmem.ErrNoReferences)
	}
	return rs, nil
}

// failing is a checker that cannot check.
type failing struct{ err error }

func (f failing) Check(context.Context, *schemas.ReferenceSet, schemas.Draft) (schemas.Verdict, error) {
	return schemas.Verdict{}, f.err
}

// onDrafts places an input on the drafts topic.
var onDrafts = pipelinetest.Topic(topology.Drafts)

func TestHandler(t *testing.T) {
	refs := &memRefs{sets: map[string]*schemas.ReferenceSet{"t1/req-1": fixtureRefs(t)}}
	h := verifier.Handler(verifier.NewOffline(verifier.Config{}), refs)
	ctx := context.Background()
	d := schemas.Draft{RequestID: "req-1", Kind: schemas.KindBiography, Subject: fixtureName, Index: 2, Attempt: 1,
		Text: "万历十四年（1583年），林敬安举进士。", Origin: "writer", Engine: "offline"}

	for _, msg := range []schemas.Message{d, &d} {
		out, err := h(ctx, pipelinetest.Input(msg, onDrafts, pipelinetest.Tenant("t1")))
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != 1 || out[0].Topic != topology.Verdicts {
			t.Fatalf("outputs %+v, want one on %s", out, topology.Verdicts)
		}
		v, ok := pipeline.As[schemas.Verdict](out[0].Msg)
		if !ok {
			t.Fatalf("output is %T", out[0].Msg)
		}
		if v.RequestID != d.RequestID || v.Kind != d.Kind || v.Subject != d.Subject || v.Index != d.Index ||
			v.Attempt != d.Attempt || v.Draft.Text != d.Text || v.Draft.Origin != d.Origin {
			t.Errorf("verdict does not carry the draft: %+v", v)
		}
		if v.Status != schemas.StatusNotSupported || v.ErrorType != schemas.ErrorEra {
			t.Errorf("verdict %s/%s, want not_supported/era", v.Status, v.ErrorType)
		}
	}

	final := schemas.Draft{RequestID: "req-1", Subject: fixtureName, Index: 9, Final: true}
	if out, err := h(ctx, pipelinetest.Input(final, onDrafts, pipelinetest.Tenant("t1"))); err != nil || len(out) != 0 {
		t.Errorf("final draft → %v, %v; want nothing", out, err)
	}
}

func TestHandlerErrors(t *testing.T) {
	ctx := context.Background()
	good := schemas.Draft{RequestID: "req-1", Subject: fixtureName, Text: identity}
	transient := errors.New("redis: connection reset")
	tests := []struct {
		name      string
		checker   verifier.Checker
		refs      verifier.RefSource
		msg       schemas.Message
		permanent bool
	}{
		{"not a draft", verifier.NewOffline(verifier.Config{}), &memRefs{}, schemas.Request{RequestID: "x", Kind: "biography", Subject: "y"}, true},
		{"invalid draft", verifier.NewOffline(verifier.Config{}), &memRefs{}, schemas.Draft{Subject: fixtureName, Text: "x"}, true},
		{"no reference set", verifier.NewOffline(verifier.Config{}), &memRefs{}, good, true},
		{"memory unreachable", verifier.NewOffline(verifier.Config{}), &memRefs{err: transient}, good, false},
		{"checker fails", failing{transient}, &memRefs{sets: map[string]*schemas.ReferenceSet{"t1/req-1": fixtureRefs(t)}}, good, false},
		{"checker refused", failing{pipeline.Permanentf("model refused the request")},
			&memRefs{sets: map[string]*schemas.ReferenceSet{"t1/req-1": fixtureRefs(t)}}, good, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := verifier.Handler(tt.checker, tt.refs)(ctx, pipelinetest.Input(tt.msg, onDrafts, pipelinetest.Tenant("t1")))
			if err == nil {
				t.Fatal("want an error")
			}
			if pipeline.IsPermanent(err) != tt.permanent {
				t.Errorf("%v: permanent=%v, want %v", err, pipeline.IsPermanent(err), tt.permanent)
			}
		})
	}
}
