package chunker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cloudwego/eino/components/model"
	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/internal/kit/logging"
	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/quotes"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/segment"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// Methods recorded on chunks.
const (
	MethodPattern = "pattern" // liezhuan entries found by the offline engine
	MethodWindow  = "window"  // generic sentence-aware windows
	MethodLLM     = "llm"     // liezhuan entries found by the model
)

// Config tunes the chunker. The zero value means the defaults documented on
// each field.
type Config struct {
	// MaxEntryChars bounds a liezhuan chunk: a longer entry is split at
	// paragraph, then sentence ends into continuation chunks. Default 1000.
	MaxEntryChars int
	// TargetChars is the size of generic windows. Default: the profile's
	// window size in the document's language (600 for Chinese text, 1500
	// for English: a Chinese character carries about as much as an English
	// word and a half), else DefaultTargetOther.
	TargetChars int
	// HardMaxChars is the size past which a single sentence is cut inside.
	// Default twice the piece size (MaxEntryChars or TargetChars).
	HardMaxChars int
	// WindowChars is how much text one LLM call sees. Default 4000.
	WindowChars int
	// LLMAttempts is how many answers the model may give for one window
	// before the chunker falls back to the offline engine; each retry
	// tells the model what was wrong. Default 2.
	LLMAttempts int
	// Profiles are the profiles a document may name (default
	// profile.Default()): each says how its documents are chunked and
	// holds the entry patterns and demonstrations.
	Profiles *profile.Set
}

// Defaults. The generic window size of a language is its profile's
// (window_chars); DefaultTargetOther serves text whose language no
// profile gives.
const (
	DefaultMaxEntryChars = 1000
	DefaultTargetOther   = 1500
	DefaultWindowChars   = 4000
	DefaultLLMAttempts   = 2
)

// withDefaults fills zero (and, for a config that skipped Validate,
// negative) fields with their defaults.
func (c Config) withDefaults() Config {
	if c.MaxEntryChars <= 0 {
		c.MaxEntryChars = DefaultMaxEntryChars
	}
	if c.TargetChars < 0 {
		c.TargetChars = 0
	}
	if c.HardMaxChars < 0 {
		c.HardMaxChars = 0
	}
	if c.WindowChars <= 0 {
		c.WindowChars = DefaultWindowChars
	}
	if c.LLMAttempts <= 0 {
		c.LLMAttempts = DefaultLLMAttempts
	}
	if c.Profiles == nil {
		c.Profiles = profile.Default()
	}
	return c
}

// Validate reports settings that cannot work.
func (c Config) Validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		v    int
	}{{"max entry chars", c.MaxEntryChars}, {"target chars", c.TargetChars}, {"hard max chars", c.HardMaxChars},
		{"window chars", c.WindowChars}, {"llm attempts", c.LLMAttempts}} {
		if f.v < 0 {
			errs = append(errs, fmt.Errorf("chunker: %s is %d, want ≥ 0 (0 = default)", f.name, f.v))
		}
	}
	d := c.withDefaults()
	if c.HardMaxChars > 0 && (c.HardMaxChars < d.MaxEntryChars || c.TargetChars > 0 && c.HardMaxChars < c.TargetChars) {
		errs = append(errs, fmt.Errorf("chunker: hard max chars %d is below the piece size", c.HardMaxChars))
	}
	if d.WindowChars > 0 && d.WindowChars < 200 {
		errs = append(errs, fmt.Errorf("chunker: window chars %d is too small for a prompt window (want ≥ 200)", d.WindowChars))
	}
	return errors.Join(errs...)
}

// Option configures a Chunker.
type Option func(*Chunker)

// WithModel enables the LLM engine for documents chunked by entries
// (liezhuan): the model finds the entry boundaries from the profile's
// pattern and demonstrations; its answer is validated and, when invalid,
// the offline engine is used.
func WithModel(m model.BaseChatModel) Option { return func(c *Chunker) { c.model = m } }

// WithLogger sets the logger for fallbacks and other notable events.
func WithLogger(l zerolog.Logger) Option { return func(c *Chunker) { c.log = l } }

// Chunker splits documents into chunks that tile them. It is safe for
// concurrent use.
type Chunker struct {
	cfg        Config
	model      model.BaseChatModel
	log        zerolog.Logger
	promptOnce sync.Once
	prompts    *prompts
	promptErr  error
	stats      struct {
		documents, chunks, llmCalls, llmFallbacks atomic.Int64
	}
	// rules caches the entry rules by profile (*profile.Profile →
	// *entryRules).
	rules sync.Map
}

// New returns a chunker. cfg should have passed Validate; a negative field
// is taken as its default.
func New(cfg Config, opts ...Option) *Chunker {
	c := &Chunker{cfg: cfg.withDefaults(), log: zerolog.Nop()}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Stats counts what a Chunker has done since it was made.
type Stats struct {
	Documents    int64 `json:"documents"`
	Chunks       int64 `json:"chunks"`
	LLMCalls     int64 `json:"llm_calls"`
	LLMFallbacks int64 `json:"llm_fallbacks"`
}

// Stats returns the counters.
func (c *Chunker) Stats() Stats {
	return Stats{Documents: c.stats.documents.Load(), Chunks: c.stats.chunks.Load(),
		LLMCalls: c.stats.llmCalls.Load(), LLMFallbacks: c.stats.llmFallbacks.Load()}
}

// Result is one document's chunks and how they were made.
type Result struct {
	Chunks []schemas.Chunk
	// Profile is the profile the document was read with: the one it
	// names, or the detected one.
	Profile string
	// Method is MethodPattern, MethodWindow or MethodLLM.
	Method string
	// LLMCalls is how many model calls the document took.
	LLMCalls int
	// Fallback says why the model's answer was not used; empty when it
	// was used or when no model is set.
	Fallback string
}

// ErrUnknownProfile is returned for a document naming a profile that does
// not exist; it is permanent.
var ErrUnknownProfile = errors.New("unknown chunker profile")

// Chunk splits doc into chunks that tile its text; see Segment.
func (c *Chunker) Chunk(ctx context.Context, doc schemas.Document) ([]schemas.Chunk, error) {
	r, err := c.Segment(ctx, doc)
	return r.Chunks, err
}

// Segment splits doc into chunks and says how. The chunks tile the text:
// concatenated they give doc.Text exactly, with rune offsets; chunk ids
// are <DocID>-<seq, 4 digits>, so the same document and boundaries give the
// same ids. The profile is doc.Profile, or detected when empty.
// Errors from bad input are permanent; an error from ctx is returned as
// is.
func (c *Chunker) Segment(ctx context.Context, doc schemas.Document) (Result, error) {
	if err := doc.Validate(); err != nil {
		return Result{}, pipeline.Permanent(fmt.Errorf("chunk document %s: %w", doc.DocID, err))
	}
	d := newDocText(doc.Text)
	lang := doc.Lang
	if lang == "" {
		lang = text.Lang(doc.Text)
	}
	name := doc.Profile
	if name == "" && isGlossary(doc) {
		name = ProfileGlossary
	}
	if name == "" {
		name = detectRunes(c.cfg.Profiles, d.rs, d.sentences, lang, &c.rules, d)
	}
	prof, ok := c.cfg.Profiles.Get(name)
	if !ok {
		return Result{}, pipeline.Permanent(fmt.Errorf("chunk document %s: %w: %q (profiles: %s)",
			doc.DocID, ErrUnknownProfile, name, strings.Join(c.cfg.Profiles.Names(), ", ")))
	}
	res := Result{Profile: name}
	if name == quotes.Profile {
		res.Method = MethodPattern
		var err error
		if res.Chunks, err = quoteChunks(doc, lang); err != nil {
			return Result{}, err
		}
		c.stats.documents.Add(1)
		c.stats.chunks.Add(1)
		return res, nil
	}
	var marks []segment.Mark
	var er *entryRules
	switch prof.Chunking {
	case profile.ChunkWindows:
		res.Method = MethodWindow
		marks = []segment.Mark{{Pos: 0, Kind: segment.MarkOutside}}
	case profile.ChunkEntries:
		res.Method = MethodPattern
		er = rulesOf(&c.rules, prof)
		if c.model != nil {
			m, calls, err := c.llmMarks(ctx, doc.DocID, d, er)
			res.LLMCalls = calls
			c.stats.llmCalls.Add(int64(calls))
			switch {
			case err == nil:
				res.Method, marks = MethodLLM, m
			case ctx.Err() != nil:
				return Result{}, fmt.Errorf("chunk document %s: %w", doc.DocID, ctx.Err())
			default:
				res.Fallback = err.Error()
				c.stats.llmFallbacks.Add(1)
				c.log.Warn().Str(logging.FieldDocID, doc.DocID).Str("prompt", PromptVersion).Int("llm_calls", calls).Err(err).
					Msg("chunker: model answer unusable, falling back to the pattern engine")
			}
		}
		if marks == nil {
			marks = er.Marks(d.seg)
		}
	case profile.ChunkGlossary:
		res.Method = MethodPattern
		marks = glossaryMarks(d)
	}
	max := c.cfg.MaxEntryChars
	if prof.Chunking == profile.ChunkWindows {
		max = c.cfg.TargetChars
		if max == 0 {
			max = c.cfg.Profiles.For(name, lang).WindowChars
		}
		if max == 0 {
			max = DefaultTargetOther
		}
	}
	hard := c.cfg.HardMaxChars
	if hard == 0 {
		hard = 2 * max
	}
	hard = maxInt(hard, max)
	var pieces []segment.Piece
	var listed []string
	if er != nil {
		pieces, listed = er.Read(d.seg, marks), er.Listed(d.seg)
	} else {
		pieces = segment.Pieces(marks, len(d.rs))
	}
	res.Chunks = build(doc, d, pieces, listed, name, res.Method, lang, max, hard)
	if err := checkTiling(doc.Text, res.Chunks); err != nil {
		return Result{}, pipeline.Permanent(fmt.Errorf("chunk document %s: %w", doc.DocID, err))
	}
	c.stats.documents.Add(1)
	c.stats.chunks.Add(int64(len(res.Chunks)))
	return res, nil
}

// build turns pieces into chunks, each piece cut further to at most max
// runes. listed are the listing's parenthesised groups, recorded on every
// chunk. A piece in an entry gives its chunks the entry (Main) and the
// chunk that opens it; an attached person's piece (MarkSub with a
// subject) keeps the main entry (one entry anchors the people it
// introduces in the knowledge graph) and names the person in SubEntry.
func build(doc schemas.Document, d *docText, pieces []segment.Piece, listed []string, profileName, method, lang string, max, hard int) []schemas.Chunk {
	idx := text.NewIndex(doc.Text)
	var chunks []schemas.Chunk
	mainChunk := ""
	for _, p := range pieces {
		switch p.Kind {
		case segment.MarkEntry:
			mainChunk = chunkID(doc.DocID, len(chunks))
		case segment.MarkOutside:
			mainChunk = ""
		}
		attached := ""
		if p.Kind == segment.MarkSub {
			attached = p.Subject
		}
		starts := append([]int{p.Start}, d.cut(p.Start, p.End, max, hard)...)
		for j, s := range starts {
			e := p.End
			if j+1 < len(starts) {
				e = starts[j+1]
			}
			ch := schemas.Chunk{
				ChunkID: chunkID(doc.DocID, len(chunks)), DocID: doc.DocID, Seq: len(chunks),
				Collection: doc.Collection, Profile: profileName, Method: method,
				Entry: p.Main, EntryChunk: mainChunk,
				Start: s, End: e, Text: idx.Slice(s, e), Lang: lang, Title: doc.Title,
				Listed: listed,
			}
			switch {
			case j == 0 && p.Kind == segment.MarkEntry:
				ch.Subject = p.Subject
			case attached != "" && j == 0:
				ch.Subject, ch.SubEntry, ch.Attached, ch.Main = attached, attached, true, p.Main
			case attached != "":
				ch.SubEntry, ch.Main = attached, p.Main
			}
			chunks = append(chunks, ch)
		}
	}
	for i := range chunks {
		chunks[i].Total = len(chunks)
	}
	return chunks
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

func chunkID(docID string, seq int) string { return fmt.Sprintf("%s-%04d", docID, seq) }

// checkTiling verifies the contract every chunking must meet: chunks are
// contiguous, non-empty, and concatenated give the text back.
func checkTiling(s string, chunks []schemas.Chunk) error {
	pos, b := 0, 0
	for i, c := range chunks {
		if c.Start != pos || c.End <= c.Start || c.Seq != i {
			return fmt.Errorf("chunk %d spans [%d,%d) after offset %d: chunks do not tile the text", i, c.Start, c.End, pos)
		}
		if !strings.HasPrefix(s[b:], c.Text) || text.RuneLen(c.Text) != c.End-c.Start {
			return fmt.Errorf("chunk %d text does not match the document at [%d,%d)", i, c.Start, c.End)
		}
		pos, b = c.End, b+len(c.Text)
	}
	if b != len(s) {
		return fmt.Errorf("chunks cover %d of %d bytes", b, len(s))
	}
	return nil
}
