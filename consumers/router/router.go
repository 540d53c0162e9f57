// Package router is the router stage (Alstorian §2.3.2 "Router"): it reads
// the verifier's verdicts and sends each failed one to exactly one solver,
// on the solver's own repairs topic, so each solver scales on its own.
//
// Routing follows the error type of the verdict, by the routing table
// declared in topology (topology.Routes):
//
//	not_included                       → repairs.regenerate  (regenerate)
//	not_supported, era                 → repairs.era         (era)
//	not_supported, alias               → repairs.alias       (alias)
//	not_supported, ref_conflict        → repairs.refconflict (refconflict)
//	not_supported, knowledge_lack      → repairs.knowledge   (knowledge)
//	not_supported, other or unknown    → repairs.other       (regenerate)
//
// A supported verdict produces nothing: the writer reads it directly.
// A not_supported verdict without an error type takes the type of its first
// not_supported fact; an unknown type goes to repairs.other, whose solver
// rewrites from the supporting references, so a verifier that learns a new
// type never strands a sentence.
package router

import (
	"context"
	"fmt"

	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// Handler is the router stage: a verdict in, one schemas.Repair out on the
// topic Route names; a supported verdict gives no output. It has no side
// effects, so redelivery is harmless. An input that is not a valid verdict
// is a permanent error.
func Handler() pipeline.Handler {
	return func(_ context.Context, in pipeline.Input) ([]pipeline.Output, error) {
		v, ok := pipeline.As[schemas.Verdict](in.Msg)
		if !ok {
			return nil, pipeline.Permanentf("route: input is %T, want a verdict", in.Msg)
		}
		if err := v.Validate(); err != nil {
			return nil, pipeline.Permanent(fmt.Errorf("route verdict of %s: %w", v.RequestID, err))
		}
		topic, solver := topology.RouteVerdict(v)
		if topic == "" {
			return nil, nil
		}
		return []pipeline.Output{{Topic: topic, Msg: schemas.Repair{RequestID: v.RequestID, Solver: solver, Verdict: v}}}, nil
	}
}
