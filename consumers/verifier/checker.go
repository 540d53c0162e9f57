package verifier

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"sync"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/claims"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/schemas"
)

// Checker decides whether a draft sentence is supported by a reference set.
// Implementations are safe for concurrent use. An error means the check
// could not be made (a model that failed); the verdict itself carries
// every outcome of a check that was made.
type Checker interface {
	Check(ctx context.Context, refs *schemas.ReferenceSet, d schemas.Draft) (schemas.Verdict, error)
}

// Defaults of Config.
const (
	DefaultMinJaccard    = 0.04
	DefaultTopReferences = 6
	DefaultTopPassages   = 12
	DefaultMinContext    = 3
	DefaultMaxValueRunes = 8
	DefaultCacheSize     = 256
	DefaultDocCacheSize  = 4096
)

// Config tunes the offline checker. The zero value means the defaults
// documented on each field.
type Config struct {
	// MinJaccard is the token Jaccard (Han characters and bigrams, English
	// words) that one passage (sentence) of a reference must reach with
	// the fact or with the whole sentence for the reference to be kept for
	// that fact. Default 0.04: a passage of 60 characters that holds a
	// four-character fact verbatim scores about 0.06, so the threshold
	// drops only references that share nothing but stray characters.
	MinJaccard float64
	// TopReferences is how many references, best first, are kept per fact
	// (default 6). References the draft cites are kept as well.
	TopReferences int
	// TopPassages is how many passages of the kept references, best first
	// by Jaccard, are aligned with the sentence to find the passage that
	// states it or contradicts it (default 12).
	TopPassages int
	// MinContext is how many runes around a differing segment must align
	// with the passage (at least one on each side) for the segment to be a
	// contradiction of the passage rather than text it lacks (default 3).
	MinContext int
	// MaxValueRunes bounds the differing segment of a contradiction on
	// each side: a longer difference is other text, not another value
	// (default 8).
	MaxValueRunes int
	// CacheSize is how many reference sets keep their index (normalized
	// text, passages, token sets, dates) between checks; the verifier sees
	// one set for every sentence of a page, so the cache holds at least
	// the pages in flight: a page evicted between two of its sentences
	// is indexed again (default 256).
	CacheSize int
	// DocCacheSize is how many reference texts keep their preparation
	// (runes, normalized text, dates, passages and their token sets)
	// between reference sets: the sets of different pages share most of
	// their chunks (a topic page's set holds hundreds), so a set is built
	// from the texts already prepared (default 4096).
	DocCacheSize int
	// Era is the era table (default era.Default()).
	Era *era.Table
	// Profiles are the corpus profiles a reference set names (default
	// profile.Default()): the set's profile, in its language, decides how
	// a sentence is split and gives the examination terms, offices and
	// kinship words it is read with.
	Profiles *profile.Set
}

func (c Config) withDefaults() Config {
	if c.MinJaccard <= 0 {
		c.MinJaccard = DefaultMinJaccard
	}
	if c.TopReferences <= 0 {
		c.TopReferences = DefaultTopReferences
	}
	if c.TopPassages <= 0 {
		c.TopPassages = DefaultTopPassages
	}
	if c.MinContext <= 0 {
		c.MinContext = DefaultMinContext
	}
	if c.MaxValueRunes <= 0 {
		c.MaxValueRunes = DefaultMaxValueRunes
	}
	if c.CacheSize <= 0 {
		c.CacheSize = DefaultCacheSize
	}
	if c.DocCacheSize <= 0 {
		c.DocCacheSize = DefaultDocCacheSize
	}
	if c.Era == nil {
		c.Era = era.Default()
	}
	if c.Profiles == nil {
		c.Profiles = profile.Default()
	}
	return c
}

// Validate reports settings that cannot work.
func (c Config) Validate() error {
	var errs []error
	if c.MinJaccard < 0 || c.MinJaccard > 1 {
		errs = append(errs, fmt.Errorf("verifier: min jaccard %v outside [0,1]", c.MinJaccard))
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"top references", c.TopReferences}, {"top passages", c.TopPassages}, {"min context", c.MinContext},
		{"max value runes", c.MaxValueRunes}, {"cache size", c.CacheSize},
		{"doc cache size", c.DocCacheSize}} {
		if f.v < 0 {
			errs = append(errs, fmt.Errorf("verifier: %s is %d, want ≥ 0 (0 = default)", f.name, f.v))
		}
	}
	return errors.Join(errs...)
}

// Offline is the lexical and structural checker: deterministic, no model.
// It is safe for concurrent use.
type Offline struct {
	cfg Config

	seed maphash.Seed
	// sets are the indexed reference sets, by fingerprint; docs the
	// prepared reference texts, by chunk id and text.
	sets *fifo[*claims.Index]
	docs *fifo[*claims.Prepared]
	// lexicons are the lexicons by profile (*profile.Profile →
	// *claims.Lexicon).
	lexicons sync.Map
	// opts are the settings the claims are checked with.
	opts claims.Options
}

var _ Checker = (*Offline)(nil)

// NewOffline returns the offline checker.
func NewOffline(cfg Config) *Offline {
	cfg = cfg.withDefaults()
	return &Offline{cfg: cfg, seed: maphash.MakeSeed(),
		sets: newFIFO[*claims.Index](cfg.CacheSize), docs: newFIFO[*claims.Prepared](cfg.DocCacheSize),
		opts: claims.Options{MinJaccard: cfg.MinJaccard, TopReferences: cfg.TopReferences, TopPassages: cfg.TopPassages,
			MinContext: cfg.MinContext, MaxValueRunes: cfg.MaxValueRunes, Era: cfg.Era}}
}

// ErrNoReferenceSet is returned by Check when it is given no reference set.
var ErrNoReferenceSet = errors.New("no reference set")

// Check decides the draft against refs. A Conflict draft has each of its
// Facts checked against the chunk it names alone; any other draft is
// read into atomic facts, each checked against the whole set (claims.Check).
func (o *Offline) Check(ctx context.Context, refs *schemas.ReferenceSet, d schemas.Draft) (schemas.Verdict, error) {
	if refs == nil {
		return schemas.Verdict{}, fmt.Errorf("check draft %s/%d: %w", d.RequestID, d.Index, ErrNoReferenceSet)
	}
	if err := ctx.Err(); err != nil {
		return schemas.Verdict{}, err
	}
	idx, lex := o.index(refs), o.lexiconOf(refs, d.Text)
	var fvs []schemas.FactVerdict
	if d.Conflict && len(d.Facts) > 0 {
		fvs = claims.CheckConflict(o.opts, lex, idx, refs, d)
	} else {
		fvs = claims.Check(o.opts, lex, idx, refs, d)
	}
	return verdict(d, fvs), nil
}

// lexiconOf is the lexicon a sentence about refs' subject is read with:
// the set's profile in the set's language, or in the sentence's language
// when the set does not say (a set made by hand).
func (o *Offline) lexiconOf(refs *schemas.ReferenceSet, sentence string) *claims.Lexicon {
	lang := refs.Lang
	if lang == "" {
		lang = text.Lang(sentence)
	}
	p := o.cfg.Profiles.For(refs.Profile, lang)
	if l, ok := o.lexicons.Load(p); ok {
		return l.(*claims.Lexicon)
	}
	l, _ := o.lexicons.LoadOrStore(p, claims.NewLexicon(p))
	return l.(*claims.Lexicon)
}

// verdict wraps fact verdicts into the draft's verdict with the overall
// status: supported iff every fact is; else not_supported when any fact is
// (with the first such fact's error type); else not_included. A sentence
// with no fact at all is not_included.
func verdict(d schemas.Draft, fvs []schemas.FactVerdict) schemas.Verdict {
	v := schemas.Verdict{
		RequestID: d.RequestID, Kind: d.Kind, Subject: d.Subject, Index: d.Index, Attempt: d.Attempt,
		Draft: d, Facts: fvs, Status: schemas.StatusSupported,
	}
	if len(fvs) == 0 {
		v.Status = schemas.StatusNotIncluded
		return v
	}
	for _, f := range fvs {
		if f.Status == schemas.StatusNotSupported {
			v.Status, v.ErrorType = schemas.StatusNotSupported, f.ErrorType
			return v
		}
	}
	for _, f := range fvs {
		if f.Status == schemas.StatusNotIncluded {
			v.Status = schemas.StatusNotIncluded
		}
	}
	return v
}

// index returns the prepared reference set, from the cache when the same
// set (same chunk ids and texts) was seen recently.
func (o *Offline) index(refs *schemas.ReferenceSet) *claims.Index {
	key := fingerprint(o.seed, refs)
	if x, ok := o.sets.get(key); ok {
		return x
	}
	return o.sets.add(key, claims.NewIndex(refs, o.prepared))
}

// fingerprint identifies a reference set's texts within one process (a
// 64-bit keyed hash: two different sets share a key with probability
// about 2⁻⁶⁴).
func fingerprint(seed maphash.Seed, refs *schemas.ReferenceSet) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	for _, r := range refs.References {
		h.WriteString(r.ChunkID)
		h.WriteByte(0)
		h.WriteString(r.Text)
		h.WriteByte(0)
	}
	return h.Sum64()
}

// prepared returns r's text prepared, from the cache when the same chunk
// text was prepared recently.
func (o *Offline) prepared(r schemas.Reference) *claims.Prepared {
	var h maphash.Hash
	h.SetSeed(o.seed)
	h.WriteString(r.ChunkID)
	h.WriteByte(0)
	h.WriteString(r.Text)
	key := h.Sum64()
	if p, ok := o.docs.get(key); ok {
		return p
	}
	return o.docs.add(key, claims.Prepare(o.cfg.Era, r.Text))
}
