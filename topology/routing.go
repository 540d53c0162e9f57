package topology

import (
	"slices"

	"github.com/annalist-dev/annalist/schemas"
)

// Solver names, as carried in schemas.Repair.Solver and
// schemas.Correction.Solver. A solver stage is named "solver-" + its
// solver's name.
const (
	SolverEra         = "era"
	SolverAlias       = "alias"
	SolverRefConflict = "refconflict"
	SolverKnowledge   = "knowledge"
	SolverRegenerate  = "regenerate"
)

// Route is one row of the routing table: verdicts of Status (and, for
// not_supported, of ErrorType) go to Topic, where the solver named Solver
// repairs them.
type Route struct {
	Status    string
	ErrorType string
	Topic     string
	Solver    string
}

// Routes is the routing table (Alstorian §2.3.2 "Router"), one row per
// error type, plus a fallback row per status (empty ErrorType): the one for
// not_supported takes verdicts of any type no row names, so a verifier that
// learns a new type never strands a sentence. Adding a solver is a row here
// (with its repairs topic in Topics) and a solver stage in the stage
// registry; the router writes every topic the table names, and a test of
// the registry checks that every solver named here has exactly one stage,
// reading its topics, and that no solver stage is missing from the table.
// Rows are listed solver by solver, so Solvers keeps the table's order.
func Routes() []Route {
	return []Route{
		{schemas.StatusNotSupported, schemas.ErrorEra, RepairEra, SolverEra},
		{schemas.StatusNotSupported, schemas.ErrorAlias, RepairAlias, SolverAlias},
		{schemas.StatusNotSupported, schemas.ErrorRefConflict, RepairRefConfl, SolverRefConflict},
		{schemas.StatusNotSupported, schemas.ErrorKnowledge, RepairKnowledge, SolverKnowledge},
		{schemas.StatusNotIncluded, "", RepairRegenerate, SolverRegenerate},
		{schemas.StatusNotSupported, "", RepairOther, SolverRegenerate},
	}
}

// Solvers names every solver the routing table routes to, once each, in
// table order.
func Solvers() []string {
	var out []string
	for _, r := range Routes() {
		if !slices.Contains(out, r.Solver) {
			out = append(out, r.Solver)
		}
	}
	return out
}

// RepairTopics lists the repairs topics the routing table sends to solver,
// once each, in table order; an empty solver lists the topics of all (the
// topics the router writes).
func RepairTopics(solver string) []string {
	var out []string
	for _, r := range Routes() {
		if (solver == "" || r.Solver == solver) && !slices.Contains(out, r.Topic) {
			out = append(out, r.Topic)
		}
	}
	return out
}

// RouteVerdict returns the repairs topic and the solver for a verdict; both
// are empty for a supported verdict. A not_supported verdict without an
// error type takes the type of its first not_supported fact.
func RouteVerdict(v schemas.Verdict) (topic, solver string) {
	if v.Status == schemas.StatusSupported {
		return "", ""
	}
	typ := ""
	if v.Status == schemas.StatusNotSupported {
		typ = verdictErrorType(v)
	}
	var fallback *Route
	for _, r := range Routes() {
		if r.Status != v.Status {
			continue
		}
		if r.ErrorType == typ && typ != "" {
			return r.Topic, r.Solver
		}
		if r.ErrorType == "" && fallback == nil {
			fallback = &r
		}
	}
	if fallback != nil {
		return fallback.Topic, fallback.Solver
	}
	return RepairOther, SolverRegenerate
}

// verdictErrorType is the verdict's error type, or that of its first
// not_supported fact when the verdict names none.
func verdictErrorType(v schemas.Verdict) string {
	if v.ErrorType != "" {
		return v.ErrorType
	}
	for _, f := range v.Facts {
		if f.Status == schemas.StatusNotSupported {
			return f.ErrorType
		}
	}
	return ""
}
