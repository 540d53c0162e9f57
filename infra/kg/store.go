package kg

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// DefaultScriptBatch is the number of triplets one script call writes when
// Config.ScriptBatch is zero. A call costs one round trip and blocks the
// Redis server while it runs (a few milliseconds per hundred triplets): 256
// amortises the round trip and keeps the pause short for readers.
const DefaultScriptBatch = 256

// MaxScriptBatch bounds Config.ScriptBatch: the script unpacks two values
// per triplet into one command, and Lua limits an unpack to about 8,000.
const MaxScriptBatch = 2000

// DefaultNeighbourhoodLimit is the most edges one Neighbourhood call
// collects when Config.NeighbourhoodLimit is zero.
const DefaultNeighbourhoodLimit = 2000

// Config configures a Store. The zero value is usable.
type Config struct {
	// ScriptBatch is the most triplets written per script call; 0 means
	// DefaultScriptBatch, at most MaxScriptBatch. Apply splits larger
	// inputs.
	ScriptBatch int
	// NeighbourhoodLimit caps the edges a Neighbourhood walk collects; 0
	// means DefaultNeighbourhoodLimit.
	NeighbourhoodLimit int
	// Now is the clock stamped as first_seen on new nodes; nil means
	// time.Now.
	Now func() time.Time
}

// Validate reports a configuration the store cannot run with.
func (c Config) Validate() error {
	if c.ScriptBatch < 0 || c.ScriptBatch > MaxScriptBatch {
		return fmt.Errorf("kg config: script batch %d outside [0, %d]", c.ScriptBatch, MaxScriptBatch)
	}
	if c.NeighbourhoodLimit < 0 {
		return fmt.Errorf("kg config: neighbourhood limit %d is negative", c.NeighbourhoodLimit)
	}
	return nil
}

// Store is the knowledge graph of every tenant in one Redis. It is safe for
// concurrent use.
type Store struct {
	c     redisdb.Client
	cfg   Config
	apply *goredis.Script
}

//go:embed apply.lua
var applySource string

// New returns a store on c.
func New(c redisdb.Client, cfg Config) (*Store, error) {
	if c == nil {
		return nil, errors.New("new kg store: no redis client")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.ScriptBatch == 0 {
		cfg.ScriptBatch = DefaultScriptBatch
	}
	if cfg.NeighbourhoodLimit == 0 {
		cfg.NeighbourhoodLimit = DefaultNeighbourhoodLimit
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Store{c: c, cfg: cfg, apply: goredis.NewScript(applySource)}, nil
}

func prefix(t string) string { return "kg:{" + t + "}:" }

func checkTenant(action, t string) error {
	if !schemas.ValidTenant(t) {
		return fmt.Errorf("%s: %w: tenant %q", action, schemas.ErrInvalid, t)
	}
	return nil
}

// Surface normalises a surface form the way the store keys it: surrounding
// white space removed and inner runs of white space collapsed to one space.
func Surface(s string) string {
	if !strings.ContainsFunc(s, isSpace) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f' ||
		r == 0x85 || r == 0xA0 || r == 0x3000
}

// PersonID is the id of the person anchored to the biography entry that
// begins with chunk entryChunk.
func PersonID(name, entryChunk string) string {
	return "person:" + name + "@" + pipeline.ContentID(name, entryChunk)[:8]
}

// NodeID is the id of an unanchored entity of a type: "place:福清".
func NodeID(typ, name string) string { return typ + ":" + name }

// EdgeID is the id of the edge (and the idempotency key) of a triplet.
func EdgeID(t schemas.Triplet) string {
	return pipeline.ContentID("edge", Surface(t.Head), t.Relation, Surface(t.Tail), t.ChunkID,
		strconv.Itoa(t.Span.Start), strconv.Itoa(t.Span.End))
}

// tailType is the entity type of a triplet's tail: the declared type, or
// the one its relation implies; "" when the tail is not an entity.
func tailType(t schemas.Triplet) string {
	if schemas.AliasRelation(t.Relation) || t.Relation == schemas.RelMention {
		return ""
	}
	typ := strings.ToLower(t.TailType)
	if typ == "" {
		switch t.Relation {
		case schemas.RelRelative:
			typ = schemas.EntityPerson
		case schemas.RelNativePlace:
			typ = schemas.EntityPlace
		case schemas.RelOffice:
			typ = schemas.EntityOffice
		case schemas.RelJinshi, schemas.RelBirth, schemas.RelDeath:
			typ = schemas.EntityTime
		}
	}
	switch typ {
	case schemas.EntityPerson, schemas.EntityPlace, schemas.EntityOffice, schemas.EntityTime:
		return typ
	}
	return ""
}

// fieldsPerTriplet is NF of apply.lua.
const fieldsPerTriplet = 24

// tripletArgs appends the script fields of t (see apply.lua).
func tripletArgs(args []any, t schemas.Triplet, token string) ([]any, error) {
	if err := t.Validate(); err != nil {
		return args, err
	}
	head, tail := Surface(t.Head), Surface(t.Tail)
	if head == "" {
		return args, fmt.Errorf("%w: triplet: head is blank", schemas.ErrInvalid)
	}
	if tail == "" && t.Relation != schemas.RelMention {
		return args, fmt.Errorf("%w: triplet: relation %s needs a tail", schemas.ErrInvalid, t.Relation)
	}
	htype := strings.ToLower(t.HeadType)
	if htype == "" {
		htype = schemas.EntityPerson
	}
	// Persons inside a biography entry are the people the entry introduces
	// and are anchored to it; elsewhere they are resolved by surface.
	hmode, hid, entry := "n", NodeID(htype, head), ""
	if htype == schemas.EntityPerson {
		hmode, hid = "r", ""
		if t.EntryChunk != "" {
			hmode, hid, entry = "a", PersonID(head, t.EntryChunk), t.EntryChunk
		}
	}
	ttype := tailType(t)
	tmode, tid := "", ""
	switch {
	case ttype == "":
	case ttype == schemas.EntityPerson && t.EntryChunk != "":
		tmode, tid, entry = "a", PersonID(tail, t.EntryChunk), t.EntryChunk
	case ttype == schemas.EntityPerson:
		tmode = "r"
	default:
		tmode, tid = "n", NodeID(ttype, tail)
	}
	quals := ""
	if len(t.Qualifiers) > 0 {
		b, err := json.Marshal(t.Qualifiers)
		if err != nil {
			return args, fmt.Errorf("encode qualifiers: %w", err)
		}
		quals = string(b)
	}
	flag := func(b bool) string {
		if b {
			return "1"
		}
		return ""
	}
	return append(args,
		EdgeID(t), token, hmode,
		hid, head, htype,
		entry, t.Relation, tail,
		tmode, tid, ttype,
		t.ChunkID, t.DocID, strconv.Itoa(t.Span.Start),
		strconv.Itoa(t.Span.End), t.Evidence, t.Method,
		t.Pattern, strconv.FormatFloat(t.Confidence, 'g', -1, 64), quals,
		t.TripletID, flag(schemas.AliasRelation(t.Relation)), flag(t.Relation == schemas.RelMention),
	), nil
}

// Apply writes triplets into the tenant's graph and returns, for each
// triplet in order, the entities it changed: one KGUpdate per entity with
// Created set when the triplet created it, the new edges, the chunks newly
// linked to it and the surface forms newly naming it. A triplet applied
// before changes nothing and reports nothing, unless deliveries says it
// comes from the same delivery that applied it (see the package doc).
//
// deliveries is nil or holds, for each triplet, the id of the delivery that
// carries it (the input message's event id); "" never re-reports.
//
// Idempotent. A triplet that fails validation fails the whole call, before
// anything is written, with an error wrapping schemas.ErrInvalid.
func (s *Store) Apply(ctx context.Context, tenant string, ts []schemas.Triplet, deliveries []string) ([][]schemas.KGUpdate, error) {
	if err := checkTenant("apply triplets", tenant); err != nil {
		return nil, err
	}
	if deliveries != nil && len(deliveries) != len(ts) {
		return nil, fmt.Errorf("apply %d triplets: %d deliveries given", len(ts), len(deliveries))
	}
	args := make([]any, 0, 3+fieldsPerTriplet*len(ts))
	args = append(args, prefix(tenant), s.cfg.Now().UTC().Format(time.RFC3339), fieldsPerTriplet)
	for i, t := range ts {
		token := ""
		if deliveries != nil {
			token = deliveries[i]
		}
		var err error
		if args, err = tripletArgs(args, t, token); err != nil {
			return nil, fmt.Errorf("apply triplet %s: %w", t.TripletID, err)
		}
	}
	out := make([][]schemas.KGUpdate, len(ts))
	keys := []string{prefix(tenant) + "applied"}
	for lo := 0; lo < len(ts); lo += s.cfg.ScriptBatch {
		hi := min(lo+s.cfg.ScriptBatch, len(ts))
		call := make([]any, 0, 3+fieldsPerTriplet*(hi-lo))
		call = append(call, args[:3]...)
		call = append(call, args[3+fieldsPerTriplet*lo:3+fieldsPerTriplet*hi]...)
		res, err := s.apply.Run(ctx, s.c, keys, call...).Slice()
		if err != nil {
			return nil, fmt.Errorf("apply triplets %d-%d of %d for tenant %s: %w", lo, hi-1, len(ts), tenant, err)
		}
		if err := readChanges(res, out[lo:hi]); err != nil {
			return nil, fmt.Errorf("apply triplets %d-%d of %d for tenant %s: %w", lo, hi-1, len(ts), tenant, err)
		}
	}
	return out, nil
}

// readChanges turns the script's answer into per-triplet updates.
func readChanges(res []any, out [][]schemas.KGUpdate) error {
	if len(res) != 2 {
		return fmt.Errorf("script answered %d parts, want 2", len(res))
	}
	events, _ := res[0].(string)
	names, _ := res[1].(string)
	type nameType struct{ name, typ string }
	nt := make(map[string]nameType)
	for line := range strings.Lines(names) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(f) != 3 {
			return fmt.Errorf("script answered name line %q", line)
		}
		nt[f[0]] = nameType{f[1], f[2]}
	}
	for line := range strings.Lines(events) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(f) != 4 {
			return fmt.Errorf("script answered event line %q", line)
		}
		i, err := strconv.Atoi(f[0])
		if err != nil || i < 0 || i >= len(out) {
			return fmt.Errorf("script answered triplet index %q of %d", f[0], len(out))
		}
		kind, id, val := f[1], f[2], f[3]
		u := update(&out[i], id)
		if u.Name == "" {
			n := nt[id]
			u.Name, u.Type = n.name, n.typ
			if u.Name == "" {
				u.Name = id
			}
		}
		switch kind {
		case "created":
			u.Created = true
		case "edge":
			u.Edges = appendNew(u.Edges, val)
		case "chunk":
			u.Chunks = appendNew(u.Chunks, val)
		case "alias":
			u.Aliases = appendNew(u.Aliases, val)
		default:
			return fmt.Errorf("script answered unknown change %q", kind)
		}
	}
	return nil
}

func update(us *[]schemas.KGUpdate, id string) *schemas.KGUpdate {
	for i := range *us {
		if (*us)[i].EntityID == id {
			return &(*us)[i]
		}
	}
	*us = append(*us, schemas.KGUpdate{EntityID: id})
	return &(*us)[len(*us)-1]
}

func appendNew(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}
