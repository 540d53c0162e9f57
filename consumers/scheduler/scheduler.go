// Package scheduler is the stage that keeps pages living: it reads
// kg-updates, finds the pages that rest on what changed, and asks for
// them again.
//
// Two halves share one state in Redis (infra/pages.Schedule):
//
//   - The handler maps each update to its dependent pages, through the
//     dependency index the assembler writes (the update's entity → the
//     pages about it; each chunk the update added or removed → the pages
//     citing it), and records a trigger on each: the highest-ranked reason
//     seen (retracted > superseded > new evidence), the union of the
//     documents behind it, and a due time one window from now (trailing
//     debounce: another change pushes it back, up to MaxDelay after the
//     first). The page is marked stale in the same step. An update with no
//     change, or whose pages are none, records nothing, so a page none of
//     whose dependencies changed is never asked for again; the same update
//     announced again changes nothing (Trigger.Key).
//   - The emitter (Emitter, the stage's Background) claims the pages that
//     fall due, retractions first, leases them, publishes one regeneration
//     request per page at a bounded rate, then acknowledges. The request id
//     is derived from the page and the trigger's generation, so a request
//     published again after a crash between publishing and acknowledging
//     is the same request and is deduplicated downstream; an expired lease
//     is claimed again, so an emitter killed at any point loses nothing.
//     Any number of replicas run it; the claim is one Lua script, so two
//     never publish the same page's trigger at once. The regeneration of
//     an answer written from given documents carries them again, read
//     from its current page (Emitter.WithPages), so it is not answered
//     from a retrieval instead.
//
// Interfaces live here, over this package's own types; the wiring adapts
// the Redis store to them.
package scheduler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// Defaults of Config.
const (
	DefaultWindow = 300 * time.Millisecond
	// DefaultMaxDelayFactor times the window bounds how long a steady
	// stream of changes may put a page off.
	DefaultMaxDelayFactor = 10
)

// Page names a page: its kind and subject.
type Page struct {
	Kind    string
	Subject string
}

// Trigger is one change under some pages.
type Trigger struct {
	// Reason is schemas.ReasonNewEvidence, ReasonSuperseded or
	// ReasonRetracted.
	Reason string
	// DocIDs are the documents that made the change.
	DocIDs []string
	// Key is the same for the same change announced again.
	Key string
}

// Query asks for the pages about one of the entities or citing one of the
// chunks.
type Query struct {
	Entities, Chunks []string
}

// Recorder is the scheduler's store as the handler uses it.
type Recorder interface {
	// Dependents answers each query of a batch: the pages, of every kind,
	// about one of its entities or citing one of its chunks.
	Dependents(ctx context.Context, tenant string, qs []Query) ([][]Page, error)
	// Record records tr on pages (due at now + window, no later than the
	// first trigger + maxDelay) and marks them stale; it returns how many
	// it recorded, 0 when tr.Key was recorded before.
	Record(ctx context.Context, tenant string, tr Trigger, pages []Page, now time.Time, window, maxDelay time.Duration) (int, error)
}

// Config tunes the handler.
type Config struct {
	// Window is the debounce window (default DefaultWindow).
	Window time.Duration
	// MaxDelay bounds how long after its first change a page falls due
	// (default DefaultMaxDelayFactor × Window).
	MaxDelay time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

func (c Config) withDefaults() Config {
	if c.Window <= 0 {
		c.Window = DefaultWindow
	}
	if c.MaxDelay <= 0 {
		c.MaxDelay = DefaultMaxDelayFactor * c.Window
	}
	if c.MaxDelay < c.Window {
		c.MaxDelay = c.Window
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Handler returns the stage's handler: kg-updates in, triggers recorded,
// nothing produced (the emitter publishes). The pages of a batch's
// updates are read in one Dependents call per tenant, and each update's
// trigger is recorded on its pages in the batch's order. A Redis failure
// is returned as it is (transient); an update with a reason the
// scheduler does not know is permanent (the runtime then runs the batch
// one update at a time, so that it fails alone).
func Handler(rec Recorder, cfg Config) pipeline.BatchHandler {
	cfg = cfg.withDefaults()
	return func(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
		type pending struct {
			tr *Trigger
			q  Query
		}
		var tenants []string
		work := map[string][]pending{}
		for _, in := range ins {
			u, ok := pipeline.As[schemas.KGUpdate](in.Msg)
			if !ok {
				return nil, pipeline.Permanentf("scheduler: unexpected message %T on %s", in.Msg, in.Topic)
			}
			tr, entities, chunks, err := triggerOf(u)
			if err != nil {
				return nil, err
			}
			if tr == nil {
				continue
			}
			t := in.Tenant()
			if _, ok := work[t]; !ok {
				tenants = append(tenants, t)
			}
			work[t] = append(work[t], pending{tr: tr, q: Query{Entities: entities, Chunks: chunks}})
		}
		for _, t := range tenants {
			ps := work[t]
			qs := make([]Query, len(ps))
			for i, p := range ps {
				qs[i] = p.q
			}
			pages, err := rec.Dependents(ctx, t, qs)
			if err != nil {
				return nil, err
			}
			for i, p := range ps {
				if len(pages[i]) == 0 {
					continue
				}
				if _, err := rec.Record(ctx, t, *p.tr, pages[i], cfg.Now(), cfg.Window, cfg.MaxDelay); err != nil {
					return nil, err
				}
			}
		}
		return make([][]pipeline.Output, len(ins)), nil
	}
}

// triggerOf reads an update: the trigger it makes, and the entities and
// chunks whose pages it concerns. An update that changes nothing makes no
// trigger. A document's retraction (Type schemas.EntityDocument) concerns
// the pages citing its chunks, not an entity.
func triggerOf(u schemas.KGUpdate) (*Trigger, []string, []string, error) {
	reason := u.Reason
	if reason == "" {
		reason = schemas.ReasonNewEvidence
	}
	if reason == schemas.ReasonRequested || schemas.ReasonRank(reason) == 0 {
		return nil, nil, nil, pipeline.Permanentf("scheduler: update of %s: unknown reason %q", u.EntityID, u.Reason)
	}
	doc := u.Type == schemas.EntityDocument
	if !doc && !u.Created && len(u.Edges)+len(u.Chunks)+len(u.Aliases)+len(u.RemovedEdges)+
		len(u.RemovedChunks)+len(u.RemovedAliases) == 0 {
		return nil, nil, nil, nil
	}
	var entities []string
	if !doc {
		entities = []string{u.EntityID}
	}
	chunks := sorted(append(slices.Clone(u.RemovedChunks), u.Chunks...))
	docs := sorted(slices.Clone(u.DocIDs))
	if doc && len(docs) == 0 {
		if id, ok := strings.CutPrefix(u.EntityID, schemas.DocumentEntity("")); ok && id != "" {
			docs = []string{id}
		}
	}
	return &Trigger{Reason: reason, DocIDs: docs, Key: updateKey(u, reason)}, entities, chunks, nil
}

// updateKey fingerprints what an update says, whatever order its lists
// are in: the same change announced again has the same key.
func updateKey(u schemas.KGUpdate, reason string) string {
	b, _ := json.Marshal(struct {
		Entity, Type, Reason                        string
		Created                                     bool
		Edges, Chunks, Aliases, Docs                []string
		RemovedEdges, RemovedChunks, RemovedAliases []string
	}{u.EntityID, u.Type, reason, u.Created,
		sorted(slices.Clone(u.Edges)), sorted(slices.Clone(u.Chunks)), sorted(slices.Clone(u.Aliases)),
		sorted(slices.Clone(u.DocIDs)), sorted(slices.Clone(u.RemovedEdges)),
		sorted(slices.Clone(u.RemovedChunks)), sorted(slices.Clone(u.RemovedAliases))})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:16])
}

func sorted(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}
