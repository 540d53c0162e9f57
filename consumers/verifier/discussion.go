package verifier

import (
	"context"
	"fmt"
	"hash/maphash"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/en/discourse"
	"github.com/annalist-dev/annalist/internal/lang/en/support"
	"github.com/annalist-dev/annalist/schemas"
)

// DefaultDiscussionGraphs is how many discussions' graphs WithDiscussions
// keeps: the verifier sees one discussion for every sentence of its
// summary.
const DefaultDiscussionGraphs = 64

// WithDiscussions wraps a checker (the offline checker or the LLM judge)
// for the discussion_summary kind. A reference set with a Discussion is
// checked by the sentence's citations (schemas.ParseDiscussionRef):
//
//   - turns only: the sentence is an opinion, checked against the turn
//     with discourse.VerifyOpinion (the discussion's graph built once and
//     cached). VerifyOpinion lets a background name stand where the turn
//     has a reference expression without asking which entity it denotes;
//     so a sentence it supports must also name only entities the turn
//     names or its references were resolved to by the discussion's
//     resolver (as discourse.Summarize runs it), else it fails as an entity
//     error — unless the resolver left a reference of that turn as
//     written, where what the reference denotes is not known. The verdict
//     keeps VerifyOpinion's status; a not_supported one (attribution,
//     entity, polarity, value or other) has the error type
//     schemas.ErrorOther, so the router sends it to the regenerate solver
//     (no solver of the table mends a discussion's names or values: the
//     alias solver would put the subject's name, the discussion id, in
//     place of a person's). The fact verdict's message names
//     VerifyOpinion's type, its reason and the turn, its evidence is the
//     turn, and its value the word of the sentence VerifyOpinion rejected
//     when the reason names one, which a rewrite must not keep. A draft
//     without Entities (a solver's rewrite) is given the background
//     entities its text names.
//   - paragraphs only: supported when the sentence is one or several
//     consecutive sentences of one cited paragraph, word for word; else
//     the wrapped checker decides, on a reference set of the cited
//     paragraphs alone, as it checks any sentence in the set's language,
//     and with a claim-support judge (JudgeBackground) a sentence it
//     supports is supported only if the judge, reading the cited
//     paragraphs alone, finds it complete: partial is not_supported with
//     the error type schemas.ErrorOther (the regenerate solver rewrites
//     it or drops it), missing not_included.
//   - no citation, a turn and a paragraph together, or a citation that is
//     not a paragraph or turn of the set: not_included.
//
// Every other reference set goes to inner unchanged. Safe for concurrent
// use when inner and the options' judges are.
func WithDiscussions(inner Checker, opts ...DiscussionOption) Checker {
	c := &discussions{inner: inner, seed: maphash.MakeSeed(), readings: map[uint64]*reading{}}
	for _, o := range opts {
		o(c)
	}
	return c
}

// DiscussionOption configures WithDiscussions.
type DiscussionOption func(*discussions)

// JudgeBackground gives the claim-support judge j a second opinion on a
// background sentence the wrapped checker supports and that is not a
// paragraph's sentence word for word; see WithDiscussions. The judge
// confirms or refuses, never accepts alone: on KGDS dev (TestKGDSSupport)
// the shipped offline judge finds complete most gold atomic facts cited
// to their own paragraph, but also most of the same facts with a number
// changed, a name swapped or a fact added, which the wrapped checker
// refuses; where it says missing or partial it is reliable. Opinions stay
// VerifyOpinion's alone: it refuses every opinion cited to another turn
// of its participant, and the judge would refuse about one in nine of the
// opinions it accepts.
func JudgeBackground(j ClaimJudge) DiscussionOption {
	return func(c *discussions) { c.judge = j }
}

type discussions struct {
	inner Checker
	judge ClaimJudge

	seed     maphash.Seed
	mu       sync.Mutex
	readings map[uint64]*reading
	order    []uint64
}

// reading is what the verifier keeps of one discussion: its graph and how
// the discussion's resolver reads each turn's references.
type reading struct {
	g *discourse.Graph
	// resolved[t] are the entities turn t's references were resolved to
	// (a group's members included); open[t] says a reference of turn t
	// was left as written.
	resolved map[int][]*discourse.Entity
	open     map[int]bool
}

func (c *discussions) Check(ctx context.Context, refs *schemas.ReferenceSet, d schemas.Draft) (schemas.Verdict, error) {
	if refs == nil || refs.Discussion == nil {
		return c.inner.Check(ctx, refs, d)
	}
	if err := ctx.Err(); err != nil {
		return schemas.Verdict{}, err
	}
	disc := refs.Discussion
	var turns, paras []int
	for _, id := range d.Citations {
		_, inSet := refs.Reference(id)
		did, turn, n, ok := schemas.ParseDiscussionRef(id)
		switch {
		case !inSet || !ok || did != disc.ID:
			return notIncluded(d, fmt.Sprintf("citation %q is not a paragraph or turn of discussion %s", id, disc.ID)), nil
		case turn:
			turns = append(turns, n)
		default:
			paras = append(paras, n)
		}
	}
	switch {
	case len(turns) == 0 && len(paras) == 0:
		return notIncluded(d, "the sentence cites no paragraph or turn"), nil
	case len(turns) > 0 && len(paras) > 0:
		return notIncluded(d, "the sentence cites a turn and a paragraph together: an opinion cites its turn, a background sentence its paragraphs"), nil
	case len(turns) > 0:
		return c.opinion(d, disc, turns), nil
	}
	return c.background(ctx, refs, d, paras)
}

// opinion checks a turn-cited sentence with discourse.VerifyOpinion.
func (c *discussions) opinion(d schemas.Draft, disc *schemas.Discussion, turns []int) schemas.Verdict {
	rd := c.reading(disc)
	g := rd.g
	if d.Entities == nil {
		d.Entities = []string{}
		for _, e := range g.EntitiesIn(d.Text) {
			d.Entities = append(d.Entities, e.Name)
		}
	}
	s := schemas.OpinionSentence{Text: d.Text, Entities: d.Entities}
	for _, t := range turns {
		s.Citations = append(s.Citations, schemas.TurnCitation{Turn: t})
	}
	ov := discourse.VerifyOpinion(*disc, g, s)
	t := turns[0]
	if ov.Status == schemas.StatusSupported {
		if e, found := rd.unresolved(disc, t, d.Text); e != nil {
			ov = discourse.OpinionVerdict{Status: schemas.StatusNotSupported, ErrorType: discourse.OpinionErrorEntity,
				Reason: fmt.Sprintf("%q stands for no reference of turn %d (its references are %s)", e.Name, t, orNone(found))}
		}
	}
	ref := schemas.TurnRef(disc.ID, t)
	fv := schemas.FactVerdict{Fact: schemas.Fact{Text: d.Text, ChunkID: ref}, Status: ov.Status}
	if t >= 0 && t < len(disc.Turns) {
		u := disc.Turns[t].Utterance
		fv.Evidence = []schemas.Evidence{{ChunkID: ref, Span: schemas.Span{Start: 0, End: utf8.RuneCountInString(u)}, Text: u}}
		fv.Message = fmt.Sprintf("%s (turn %d, %s)", ov.Reason, t, disc.Turns[t].Participant)
	} else {
		fv.Message = ov.Reason
	}
	v := schemas.Verdict{RequestID: d.RequestID, Kind: d.Kind, Subject: d.Subject, Index: d.Index,
		Attempt: d.Attempt, Draft: d, Status: ov.Status}
	if ov.Status == schemas.StatusNotSupported {
		v.ErrorType, fv.ErrorType = schemas.ErrorOther, schemas.ErrorOther
		fv.Message = ov.ErrorType + ": " + fv.Message
		if m := rejectedWord.FindStringSubmatch(ov.Reason); m != nil {
			fv.Fact.Value = m[1]
		}
	}
	v.Facts = []schemas.FactVerdict{fv}
	return v
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// rejectedWord is the word of the sentence a VerifyOpinion reason opens
// with, quoted ("\"never\" negates what turn 3 states", "\"three\" is
// not a value turn 0 states"): what a rewrite must not keep. A reason
// that opens otherwise ("turn 2 says \"not\" …, the sentence drops it")
// quotes the turn, not the sentence.
var rejectedWord = regexp.MustCompile(`^"([^"]+)"`)

// background checks a paragraph-cited sentence: a verbatim sentence (or
// run of sentences) of a cited paragraph is supported; any other is the
// wrapped checker's, on the cited paragraphs alone.
func (c *discussions) background(ctx context.Context, refs *schemas.ReferenceSet, d schemas.Draft, paras []int) (schemas.Verdict, error) {
	disc := refs.Discussion
	for _, n := range paras {
		p, ok := disc.Paragraph(n)
		if !ok {
			return notIncluded(d, fmt.Sprintf("paragraph %d is not a paragraph of discussion %s", n, disc.ID)), nil
		}
		if start, end, ok := verbatim(p.Text, d.Text); ok {
			ref := schemas.ParagraphRef(disc.ID, n)
			v := schemas.Verdict{RequestID: d.RequestID, Kind: d.Kind, Subject: d.Subject, Index: d.Index,
				Attempt: d.Attempt, Draft: d, Status: schemas.StatusSupported}
			v.Facts = []schemas.FactVerdict{{Fact: schemas.Fact{Text: d.Text, ChunkID: ref}, Status: schemas.StatusSupported,
				Message: "a sentence of paragraph " + strconv.Itoa(n) + ", word for word",
				Evidence: []schemas.Evidence{{ChunkID: ref, Span: schemas.Span{Start: start, End: end},
					Text: string([]rune(p.Text)[start:end])}}}}
			return v, nil
		}
	}
	cited := *refs
	cited.Discussion, cited.Curation = nil, nil
	cited.References = nil
	for _, id := range d.Citations {
		if r, ok := refs.Reference(id); ok {
			cited.References = append(cited.References, r)
		}
	}
	v, err := c.inner.Check(ctx, &cited, d)
	if err != nil || c.judge == nil || v.Status != schemas.StatusSupported {
		return v, err
	}
	return c.secondOpinion(ctx, &cited, d, v)
}

// secondOpinion is the claim-support judge's word on a background
// sentence the wrapped checker supports (v), on the cited paragraphs
// alone: complete keeps v, with the judge's score in each fact's message;
// partial makes it not_supported (schemas.ErrorOther), the evidence the
// paragraph sentences that carry the part the judge found; missing
// not_included.
func (c *discussions) secondOpinion(ctx context.Context, cited *schemas.ReferenceSet, d schemas.Draft, v schemas.Verdict) (schemas.Verdict, error) {
	passages := make([]string, len(cited.References))
	for i, r := range cited.References {
		passages[i] = r.Text
	}
	res, err := c.judge.JudgeClaim(ctx, d.Text, passages)
	if err != nil {
		return schemas.Verdict{}, fmt.Errorf("judge draft %s/%d: %w", d.RequestID, d.Index, err)
	}
	ids := strings.Join(d.Citations, ", ")
	switch res.Label {
	case support.Complete:
		for i := range v.Facts {
			v.Facts[i].Message = strings.TrimSpace(fmt.Sprintf("%s (the claim-support judge: complete, score %.2f)", v.Facts[i].Message, res.Score))
		}
		return v, nil
	case support.Partial:
		f := schemas.FactVerdict{Fact: schemas.Fact{Text: d.Text, ChunkID: d.Citations[0]},
			Status: schemas.StatusNotSupported, ErrorType: schemas.ErrorOther,
			Message: fmt.Sprintf("the cited paragraphs (%s) support only part of it (the claim-support judge, score %.2f)", ids, res.Score)}
		for _, sp := range res.Spans {
			if sp.Passage >= 0 && sp.Passage < len(cited.References) {
				f.Evidence = append(f.Evidence, schemas.Evidence{ChunkID: cited.References[sp.Passage].ChunkID,
					Span: schemas.Span{Start: sp.Start, End: sp.End}, Text: sp.Text})
			}
		}
		out := schemas.Verdict{RequestID: d.RequestID, Kind: d.Kind, Subject: d.Subject, Index: d.Index,
			Attempt: d.Attempt, Draft: d, Status: schemas.StatusNotSupported, ErrorType: schemas.ErrorOther,
			Facts: []schemas.FactVerdict{f}}
		return out, nil
	}
	return notIncluded(d, fmt.Sprintf("the cited paragraphs (%s) do not state it (the claim-support judge: %s, score %.2f)", ids, res.Label, res.Score)), nil
}

// verbatim reports whether s is, white space aside, one sentence of
// paragraph or a run of consecutive ones (discourse.SplitSentences), and where
// in paragraph it stands (rune offsets).
func verbatim(paragraph, s string) (start, end int, ok bool) {
	want := strings.Join(strings.Fields(s), " ")
	if want == "" {
		return 0, 0, false
	}
	sents := discourse.SplitSentences(paragraph)
	// at[i] is the byte offset of sentence i in the paragraph, -1 when the
	// splitter's sentence is not found as written
	at := make([]int, len(sents))
	cursor := 0
	for i, x := range sents {
		at[i] = -1
		if k := strings.Index(paragraph[cursor:], x); k >= 0 {
			at[i] = cursor + k
			cursor += k + len(x)
		}
	}
	for i := range sents {
		run := ""
		for j := i; j < len(sents) && len(run) < len(want); j++ {
			run = strings.TrimSpace(run + " " + strings.Join(strings.Fields(sents[j]), " "))
			if run != want {
				continue
			}
			if at[i] < 0 || at[j] < 0 {
				return 0, utf8.RuneCountInString(paragraph), true
			}
			return utf8.RuneCountInString(paragraph[:at[i]]), utf8.RuneCountInString(paragraph[:at[j]+len(sents[j])]), true
		}
	}
	return 0, 0, false
}

// notIncluded is the verdict on a sentence the set cannot support as
// cited, with the reason.
func notIncluded(d schemas.Draft, reason string) schemas.Verdict {
	return schemas.Verdict{RequestID: d.RequestID, Kind: d.Kind, Subject: d.Subject, Index: d.Index,
		Attempt: d.Attempt, Draft: d, Status: schemas.StatusNotIncluded,
		Facts: []schemas.FactVerdict{{Fact: schemas.Fact{Text: d.Text}, Status: schemas.StatusNotIncluded, Message: reason}}}
}

// reading is the discussion's reading, made once and kept for the most
// recent DefaultDiscussionGraphs discussions (by content).
func (c *discussions) reading(d *schemas.Discussion) *reading {
	key := discussionKey(c.seed, d)
	c.mu.Lock()
	rd, ok := c.readings[key]
	c.mu.Unlock()
	if ok {
		return rd
	}
	rd = read(*d)
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.readings[key]; ok {
		return prev
	}
	if len(c.order) >= DefaultDiscussionGraphs {
		delete(c.readings, c.order[0])
		c.order = c.order[1:]
	}
	c.readings[key] = rd
	c.order = append(c.order, key)
	return rd
}

// read builds d's graph and runs its resolver over the turns as the
// offline summary does (discourse.Summarize: the background selection as the
// focus), keeping each turn's resolutions.
func read(d schemas.Discussion) *reading {
	g := discourse.BuildGraph(d)
	rd := &reading{g: g, resolved: map[int][]*discourse.Entity{}, open: map[int]bool{}}
	r := discourse.NewResolver(g)
	r.Focus(discourse.SelectBackground(d, g))
	discourse.Opinions(d, g, r)
	for _, res := range r.Resolutions {
		if res.Entity == nil {
			rd.open[res.Turn] = true
			continue
		}
		rd.resolved[res.Turn] = append(rd.resolved[res.Turn], res.Entity)
		rd.resolved[res.Turn] = append(rd.resolved[res.Turn], res.Members...)
	}
	return rd
}

// unresolved is the first background entity s names that turn t neither
// names nor, as the discussion's resolver reads it, refers to, with the
// entities the resolver found there. Nothing is reported for a turn with
// a reference the resolver left as written: what it stands for is not
// known. An organisation where a resolved entity holds a role
// ("the president" → "FIFA president Gianni Infantino") counts as
// referred to.
func (rd *reading) unresolved(disc *schemas.Discussion, t int, s string) (*discourse.Entity, []string) {
	if t < 0 || t >= len(disc.Turns) || rd.open[t] {
		return nil, nil
	}
	named := rd.g.EntitiesIn(disc.Turns[t].Utterance)
	ok := func(e *discourse.Entity) bool {
		if slices.Contains(named, e) || slices.Contains(rd.resolved[t], e) {
			return true
		}
		for _, x := range rd.resolved[t] {
			for _, org := range x.RoleOf {
				if rd.g.Lookup(org) == e {
					return true
				}
			}
		}
		return false
	}
	for _, e := range rd.g.EntitiesIn(s) {
		if !ok(e) {
			var found []string
			for _, x := range rd.resolved[t] {
				if !slices.Contains(found, x.Name) {
					found = append(found, x.Name)
				}
			}
			return e, found
		}
	}
	return nil, nil
}

// discussionKey identifies a discussion by its content within the process.
func discussionKey(seed maphash.Seed, d *schemas.Discussion) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteString(d.ID)
	h.WriteByte(0)
	for _, p := range d.Background {
		h.WriteString(strconv.Itoa(p.Index))
		h.WriteByte(0)
		h.WriteString(p.Text)
		h.WriteByte(0)
	}
	h.WriteByte(1)
	for _, t := range d.Turns {
		h.WriteString(t.Participant)
		h.WriteByte(0)
		h.WriteString(t.Utterance)
		h.WriteByte(0)
	}
	return h.Sum64()
}
