// Package regexmem is the port of the extractor's demonstration memory:
// validated regexes (Pattern) per tenant and corpus profile, ranked by how
// often they served a chunk without a model call. infra/memory keeps them
// in Redis; the extractor stage reads and writes them through Memory.
package regexmem

import (
	"context"
	"encoding/json"
	"sort"
	"time"

	"github.com/annalist-dev/annalist/pipeline"
)

// Pattern is a regex for one relation together with the roles of its
// capture groups. Validated synthesised patterns are kept in agent memory
// and serve both as regexes to try before asking the model and as
// demonstrations in its prompt.
type Pattern struct {
	// ID is derived from relation, source and groups (ID), so saving
	// the same regex twice stores it once.
	ID       string `json:"id"`
	Relation string `json:"relation"`
	// Source is the regex in Go RE2 syntax.
	Source string `json:"source"`
	// Groups maps a role to a capture group index (1-based): "tail" is
	// required; the other roles are qualifiers allowed for the relation
	// (the extractor's RoleNames).
	Groups map[string]int `json:"groups"`
	// Example is the text the pattern matched when it was validated.
	Example string `json:"example,omitempty"`
	// Prompt is the prompt template version that produced the pattern.
	Prompt  string    `json:"prompt,omitempty"`
	Created time.Time `json:"created,omitzero"`
	// Hits counts the chunks the pattern served from memory.
	Hits int64 `json:"hits,omitempty"`
}

// ID is the stable id of a regex with its group roles.
func ID(relation, source string, groups map[string]int) string {
	roles := make([]string, 0, len(groups))
	for r := range groups {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	parts := []string{relation, source}
	for _, r := range roles {
		b, _ := json.Marshal(groups[r])
		parts = append(parts, r, string(b))
	}
	return pipeline.ContentID(parts...)
}

// Memory stores validated regexes per tenant and profile (the agent's
// demonstration memory, ARCHITECTURE.md §9). Implementations must make Save
// idempotent: saving a pattern that exists keeps its hits and creation time.
type Memory interface {
	// Patterns returns at most n patterns of the profile, the most used
	// first.
	Patterns(ctx context.Context, tenant, profile string, n int) ([]Pattern, error)
	// Save stores a validated pattern.
	Save(ctx context.Context, tenant, profile string, p Pattern) error
	// Hit records that pattern id served a chunk.
	Hit(ctx context.Context, tenant, profile, id string) error
}

// Outcome is how often the model was asked one kind of question and how
// often its answer gave a fact.
type Outcome struct {
	Asked int64 `json:"asked"`
	Found int64 `json:"found"`
}

// Outcomes remembers, per tenant and profile, what asking the model
// yielded, by question key (the extractor's keys are a relation and the
// shape of the chunk asked about). A Memory that also implements Outcomes
// keeps them with the patterns; implementations must be safe for
// concurrent use.
type Outcomes interface {
	// Outcomes returns every key's tally of the profile.
	Outcomes(ctx context.Context, tenant, profile string) (map[string]Outcome, error)
	// RecordOutcome adds one question of key to the tally, found or not.
	RecordOutcome(ctx context.Context, tenant, profile, key string, found bool) error
}
