package topic

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/schemas"
)

// Review thresholds.
const (
	// NearDuplicate is the token Jaccard (internal/lang/text) from which two
	// sentences say the same thing.
	NearDuplicate = 0.8
	// LongSection is the least number of sentences of a section too long
	// beside the others: it must also exceed LongFactor times the median
	// of the dated sections.
	LongSection = 12
	LongFactor  = 3
	// MinSections is how many dated sections a page needs before a
	// one-sentence section is merged into its neighbour: with fewer, a
	// single section is the page's shape, not an imbalance.
	MinSections = 3
)

// Reviewer is the offline critical reviewer: deterministic rules over the
// page and the curation (see the package doc). It is safe for concurrent
// use.
type Reviewer struct{}

// Editor is the offline editor: it answers each finding with drops, moves
// and sentences copied from the references. It is safe for concurrent use.
type Editor struct{}

var (
	_ kind.Reviewer = Reviewer{}
	_ kind.Editor   = Editor{}
)

// pos is where a sentence stands on the page.
func pos(p kind.Placed) float64 {
	if p.Position != 0 {
		return p.Position
	}
	return float64(p.Index)
}

// located is an outline item with its section's place in the outline.
type located struct {
	schemas.OutlineItem
	section string
	rank    int
}

// itemOf is the outline item a page sentence was written from: an item of
// a chunk the sentence cites whose person the sentence names (or about the
// topic itself), in the sentence's own section first.
func itemOf(refs *schemas.ReferenceSet, p kind.Placed) (located, bool) {
	if refs.Curation == nil {
		return located{}, false
	}
	var best located
	found := false
	for r, sec := range refs.Curation.Outline {
		for _, it := range sec.Items {
			if !cites(p.PageSentence, it.Chunk) || (it.Name != "" && !strings.Contains(p.Text, it.Name)) {
				continue
			}
			l := located{OutlineItem: it, section: sec.Title, rank: r}
			if sec.Title == p.Section {
				return l, true
			}
			if !found {
				best, found = l, true
			}
		}
	}
	return best, found
}

func cites(s schemas.PageSentence, chunk string) bool {
	return slices.ContainsFunc(s.Citations, func(c schemas.Citation) bool { return c.ChunkID == chunk })
}

func periodOfSentence(refs *schemas.ReferenceSet, p kind.Placed) int {
	if it, ok := itemOf(refs, p); ok {
		return it.Period
	}
	return 0
}

// pageSections are the page's sections in first-appearance order with their
// sentences.
func pageSections(page []kind.Placed) ([]string, map[string][]kind.Placed) {
	var order []string
	by := map[string][]kind.Placed{}
	for _, p := range page {
		if _, ok := by[p.Section]; !ok {
			order = append(order, p.Section)
		}
		by[p.Section] = append(by[p.Section], p)
	}
	return order, by
}

func quote(s string) string { return "«" + text.Clip(s, 40) + "»" }

// Review checks coverage, redundancy, order and balance; the findings come
// in that order.
func (Reviewer) Review(_ context.Context, refs *schemas.ReferenceSet, page []kind.Placed, _ int) ([]schemas.Finding, error) {
	if refs == nil || refs.Curation == nil {
		return nil, nil
	}
	var out []schemas.Finding
	out = append(out, coverage(refs, page)...)
	red := redundancy(page)
	out = append(out, red...)
	// A repeated sentence is dropped for its repetition; where it stands
	// is not a second finding.
	skip := map[int]bool{}
	for _, f := range red {
		skip[f.Index] = true
	}
	out = append(out, order(refs, page, skip)...)
	out = append(out, balance(refs, page)...)
	return out, nil
}

// coverage: a key entity no sentence names.
func coverage(refs *schemas.ReferenceSet, page []kind.Placed) []schemas.Finding {
	var out []schemas.Finding
	for _, e := range refs.Curation.Entities {
		if !e.Key || e.Name == "" {
			continue
		}
		if slices.ContainsFunc(page, func(p kind.Placed) bool { return strings.Contains(p.Text, e.Name) }) {
			continue
		}
		sec := ""
		if it, ok := outlineItem(refs, e.ID); ok {
			sec = it.section
		}
		out = append(out, schemas.Finding{Type: schemas.FindingCoverage, Section: sec, Index: -1, Entity: e.ID,
			Detail: fmt.Sprintf("%s, a key entity of the topic, is not named on the page", e.Name)})
	}
	return out
}

// outlineItem is the first outline item about entity.
func outlineItem(refs *schemas.ReferenceSet, entity string) (located, bool) {
	for r, sec := range refs.Curation.Outline {
		for _, it := range sec.Items {
			if it.Entity == entity {
				return located{OutlineItem: it, section: sec.Title, rank: r}, true
			}
		}
	}
	return located{}, false
}

// redundancy: a sentence equal or nearly equal to an earlier one.
func redundancy(page []kind.Placed) []schemas.Finding {
	var out []schemas.Finding
	toks := make([]text.TokenSet, len(page))
	for i, p := range page {
		toks[i] = text.NewTokenSet(p.Text)
	}
	for j := range page {
		for i := 0; i < j; i++ {
			a, b := strings.TrimSpace(page[i].Text), strings.TrimSpace(page[j].Text)
			if a != b && toks[i].Jaccard(toks[j]) < NearDuplicate {
				continue
			}
			out = append(out, schemas.Finding{Type: schemas.FindingRedundancy, Section: page[j].Section,
				Index: page[j].Index, Other: page[i].Index,
				Detail: fmt.Sprintf("%s repeats %s", quote(b), quote(a))})
			break
		}
	}
	return out
}

// order: a sentence whose period comes before the period of a sentence
// above it in its section.
func order(refs *schemas.ReferenceSet, page []kind.Placed, skip map[int]bool) []schemas.Finding {
	var out []schemas.Finding
	secs, by := pageSections(page)
	for _, s := range secs {
		top, topText := 0, ""
		for _, p := range by[s] {
			g := periodOfSentence(refs, p)
			if g == 0 || skip[p.Index] {
				continue
			}
			if g < top {
				out = append(out, schemas.Finding{Type: schemas.FindingOrder, Section: s, Index: p.Index,
					Detail: fmt.Sprintf("%s (%d) comes after %s (%d)", quote(p.Text), g, quote(topText), top)})
				continue
			}
			top, topText = g, p.Text
		}
	}
	return out
}

// balance: among the dated sections (those whose sentences carry periods),
// one much longer than the others, or a one-sentence section.
func balance(refs *schemas.ReferenceSet, page []kind.Placed) []schemas.Finding {
	secs, by := pageSections(page)
	var dated []string
	for _, s := range secs {
		if slices.ContainsFunc(by[s], func(p kind.Placed) bool { return periodOfSentence(refs, p) != 0 }) {
			dated = append(dated, s)
		}
	}
	if len(dated) < 2 {
		return nil
	}
	ns := make([]int, len(dated))
	for i, s := range dated {
		ns[i] = len(by[s])
	}
	sorted := slices.Clone(ns)
	slices.Sort(sorted)
	median := sorted[len(sorted)/2]
	var out []schemas.Finding
	for i, s := range dated {
		switch {
		case ns[i] >= LongSection && ns[i] > LongFactor*median:
			out = append(out, schemas.Finding{Type: schemas.FindingBalance, Section: s, Index: -1,
				Detail: fmt.Sprintf("section %s has %d sentences, the dated sections a median of %d", s, ns[i], median)})
		case ns[i] == 1 && len(dated) >= MinSections:
			p := by[s][0]
			out = append(out, schemas.Finding{Type: schemas.FindingBalance, Section: s, Index: p.Index,
				Detail: fmt.Sprintf("section %s has one sentence, %s", s, quote(p.Text))})
		}
	}
	return out
}

// Edit answers the findings: a coverage finding with a sentence of the
// key entity's chunk that names it, a redundant sentence with its drop,
// a sentence out of order with a move after the last sentence of its
// section that precedes it in time, a long section with moves splitting
// it at its median period, a one-sentence section with a move into the
// neighbouring section. At most one edit per sentence.
func (Editor) Edit(_ context.Context, refs *schemas.ReferenceSet, page []kind.Placed, findings []schemas.Finding) ([]schemas.Edit, error) {
	if refs == nil || refs.Curation == nil {
		return nil, nil
	}
	var out []schemas.Edit
	touched := map[int]bool{}
	add := func(e schemas.Edit) {
		if e.Op != schemas.EditAdd {
			if touched[e.Index] {
				return
			}
			touched[e.Index] = true
		}
		out = append(out, e)
	}
	secs, by := pageSections(page)
	lang := refs.Lang
	singles, long := map[string]schemas.Finding{}, map[string]bool{}
	for _, f := range findings {
		if f.Type == schemas.FindingBalance && f.Index >= 0 {
			singles[f.Section] = f
		}
		if f.Type == schemas.FindingBalance && f.Index < 0 {
			long[f.Section] = true
		}
	}
	for _, e := range mergeEdits(secs, by, singles, long, lang) {
		add(e)
	}
	for _, f := range findings {
		switch f.Type {
		case schemas.FindingCoverage:
			if e, ok := coverEdit(refs, page, f); ok {
				add(e)
			}
		case schemas.FindingRedundancy:
			if slices.ContainsFunc(page, func(p kind.Placed) bool { return p.Index == f.Index }) {
				add(schemas.Edit{Op: schemas.EditDrop, Index: f.Index, Reason: f.Detail})
			}
		case schemas.FindingOrder:
			if e, ok := orderEdit(refs, by[f.Section], f); ok {
				add(e)
			}
		case schemas.FindingBalance:
			if f.Index >= 0 {
				continue // merged above
			}
			for _, e := range balanceEdits(refs, f, by, lang) {
				add(e)
			}
		}
	}
	return out, nil
}

// coverEdit adds a sentence naming the missed entity: from its item's
// chunk, the first sentence naming it that is not its item's planned
// sentence (which was drafted and is not on the page), else that one.
func coverEdit(refs *schemas.ReferenceSet, page []kind.Placed, f schemas.Finding) (schemas.Edit, bool) {
	it, ok := outlineItem(refs, f.Entity)
	if !ok || it.Name == "" {
		return schemas.Edit{}, false
	}
	ref, ok := refs.Reference(it.Chunk)
	if !ok {
		return schemas.Edit{}, false
	}
	planned := sentenceFor(ref.Text, it.Span, []string{it.Name})
	var cands []string
	if s := opening(ref.Text, []string{it.Name}); s != "" {
		cands = append(cands, s)
	}
	for _, s := range text.SplitSentences(ref.Text) {
		if s = strings.TrimSpace(s); namesAny(s, []string{it.Name}) && !slices.Contains(cands, s) {
			cands = append(cands, s)
		}
	}
	onPage := func(s string) bool {
		return slices.ContainsFunc(page, func(p kind.Placed) bool { return strings.TrimSpace(p.Text) == s })
	}
	pick := ""
	for _, s := range cands {
		if s != planned && !onPage(s) {
			pick = s
			break
		}
	}
	if pick == "" && planned != "" && !onPage(planned) {
		pick = planned
	}
	if pick == "" {
		return schemas.Edit{}, false
	}
	return schemas.Edit{Op: schemas.EditAdd, Index: -1, Section: it.section, Position: placeFor(refs, page, it),
		Text: pick, Citations: []string{it.Chunk}, Reason: f.Detail}, true
}

// placeFor is the position an item takes on the page: after the last
// sentence that comes before it in the outline's order (its section's
// place, then its period), before the next.
func placeFor(refs *schemas.ReferenceSet, page []kind.Placed, it located) float64 {
	if len(page) == 0 {
		return 0.5
	}
	after := -1
	for i, p := range page {
		l, ok := itemOf(refs, p)
		if !ok {
			continue
		}
		if l.rank < it.rank || (l.rank == it.rank && l.Period <= it.Period) {
			after = i
		}
	}
	return between(page, after)
}

// between is a position after page[after] and before page[after+1]
// (after -1: before the first sentence).
func between(page []kind.Placed, after int) float64 {
	switch {
	case after < 0:
		return pos(page[0]) - 1
	case after >= len(page)-1:
		return pos(page[len(page)-1]) + 1
	}
	return (pos(page[after]) + pos(page[after+1])) / 2
}

// orderEdit moves the sentence after the last sentence of its section whose
// period is not later than its own, else before the section's first.
func orderEdit(refs *schemas.ReferenceSet, sec []kind.Placed, f schemas.Finding) (schemas.Edit, bool) {
	i := slices.IndexFunc(sec, func(p kind.Placed) bool { return p.Index == f.Index })
	if i < 0 {
		return schemas.Edit{}, false
	}
	g := periodOfSentence(refs, sec[i])
	rest := slices.Delete(slices.Clone(sec), i, i+1)
	after := -1
	for j, p := range rest {
		if q := periodOfSentence(refs, p); q != 0 && q <= g {
			after = j
		}
	}
	if len(rest) == 0 {
		return schemas.Edit{}, false
	}
	return schemas.Edit{Op: schemas.EditMove, Index: f.Index, Section: f.Section, Position: between(rest, after),
		Reason: f.Detail}, true
}

// mergeEdits merges the one-sentence sections of the findings: walking
// the sections in page order, a run of two or more of them becomes one
// section, and a lone one joins the section before it (the one after it
// when it is first, or when the one before is a long section being
// split), so no two merge into each other and one round settles them
// all. A group that took others in is retitled with its
// first and last titles ("洪武至正统", "1840s – 1850s"): a native of one
// reign is never filed under another's name. Sentences keep their
// places, so the order of periods stays.
func mergeEdits(secs []string, by map[string][]kind.Placed, singles map[string]schemas.Finding, long map[string]bool, lang string) []schemas.Edit {
	type group struct {
		titles  []string
		members []kind.Placed
		single  bool
		why     string
	}
	// Runs of consecutive one-sentence sections first: a run of two or
	// more is a section of its own.
	var runs []*group
	for _, s := range secs {
		f, single := singles[s]
		single = single && len(by[s]) == 1
		if n := len(runs); single && n > 0 && runs[n-1].single {
			runs[n-1].titles, runs[n-1].members = append(runs[n-1].titles, s), append(runs[n-1].members, by[s]...)
			continue
		}
		runs = append(runs, &group{titles: []string{s}, members: slices.Clone(by[s]), single: single, why: f.Detail})
	}
	// A lone one joins the section before it, or the one after it when it
	// is first or the one before is a long section being split.
	var groups []*group
	var lead *group
	for _, g := range runs {
		if g.single && len(g.titles) == 1 {
			if n := len(groups); n > 0 && !long[groups[n-1].titles[0]] {
				groups[n-1].titles = append(groups[n-1].titles, g.titles...)
				groups[n-1].members = append(groups[n-1].members, g.members...)
				groups[n-1].why = g.why
			} else {
				lead = g
			}
			continue
		}
		if lead != nil {
			g.titles, g.members, g.why = append(lead.titles, g.titles...), append(lead.members, g.members...), lead.why
			lead = nil
		}
		groups = append(groups, g)
	}
	if lead != nil {
		if n := len(groups); n > 0 {
			groups[n-1].titles = append(groups[n-1].titles, lead.titles...)
			groups[n-1].members = append(groups[n-1].members, lead.members...)
		} else {
			groups = append(groups, lead)
		}
	}
	var out []schemas.Edit
	for _, g := range groups {
		if len(g.titles) < 2 {
			continue
		}
		title := rangeTitle(g.titles[0], g.titles[len(g.titles)-1], lang)
		for _, p := range g.members {
			out = append(out, schemas.Edit{Op: schemas.EditMove, Index: p.Index, Section: title, Position: pos(p),
				Reason: g.why})
		}
	}
	return out
}

// rangeTitle names a section that runs from the period of title a to that
// of title b (either may already be a range).
func rangeTitle(a, b, lang string) string {
	sep := "至"
	if lang == "en" {
		sep = " – "
	}
	if i := strings.Index(a, sep); i >= 0 {
		a = a[:i]
	}
	if i := strings.LastIndex(b, sep); i >= 0 {
		b = b[i+len(sep):]
	}
	if a == b {
		return a
	}
	return a + sep + b
}

// balanceEdits splits a long section (the finding's) at its median
// period into two sections titled with their years.
func balanceEdits(refs *schemas.ReferenceSet, f schemas.Finding, by map[string][]kind.Placed, lang string) []schemas.Edit {
	sec := by[f.Section]
	type dated struct {
		p kind.Placed
		g int
	}
	ds := make([]dated, len(sec))
	for i, p := range sec {
		ds[i] = dated{p, periodOfSentence(refs, p)}
	}
	slices.SortStableFunc(ds, func(a, b dated) int { return cmp.Compare(a.g, b.g) })
	half := len(ds) / 2
	// Keep one year on one side.
	for half < len(ds) && half > 0 && ds[half].g == ds[half-1].g {
		half++
	}
	if half == 0 || half >= len(ds) {
		return nil
	}
	name := func(part []dated) string {
		lo, hi := part[0].g, part[len(part)-1].g
		if lang == "en" {
			return fmt.Sprintf("%s (%d–%d)", f.Section, lo, hi)
		}
		return fmt.Sprintf("%s（%d–%d）", f.Section, lo, hi)
	}
	var out []schemas.Edit
	for _, part := range [][]dated{ds[:half], ds[half:]} {
		title := name(part)
		for _, d := range part {
			out = append(out, schemas.Edit{Op: schemas.EditMove, Index: d.p.Index, Section: title, Position: pos(d.p),
				Reason: f.Detail})
		}
	}
	return out
}
