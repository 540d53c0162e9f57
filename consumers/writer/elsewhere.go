package writer

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/zh/compose"
)

// Counters of a plan (Offline.PlanStats), carried into the page's stats.
const (
	// StatLifeBudget is how many notable acts the entry's length allows.
	StatLifeBudget = "plan_life_budget"
	// StatOtherBudget is how many sentences the evidence of other
	// documents allows.
	StatOtherBudget = "plan_other_budget"
	// StatOtherPassages counts the distinct sentences of other documents
	// that name the subject.
	StatOtherPassages = "other_passages"
	// StatOtherDevoted counts, of those taken, the sentences of texts
	// about the subject (each is on the page).
	StatOtherDevoted = "other_devoted"
	// StatOtherDated and StatOtherUndated count the sentences of other
	// documents on the page: placed in time order among the life's
	// sentences by the date their text gives, or in the part for evidence
	// from other documents.
	StatOtherDated   = "other_dated"
	StatOtherUndated = "other_undated"
	// StatLeftOut counts what the plan left out, all reasons; each reason
	// has its own counter, StatLeftOut+"_"+reason.
	StatLeftOut = "left_out"
)

// Reasons a passage is left out of a plan (StatLeftOut_<reason>).
const (
	// LeftOutLifeBudget: a sentence of the entry worth a notable act,
	// beyond the life's budget.
	LeftOutLifeBudget = "life_budget"
	// LeftOutBudget: a sentence of another document about the subject,
	// beyond the budget of the evidence from other documents.
	LeftOutBudget = "budget"
	// LeftOutInPassing: a sentence of another document that names the
	// subject only in passing (not the topic of one of its clauses, in a
	// text not about him).
	LeftOutInPassing = "in_passing"
	// LeftOutTooLong: no part of the sentence that names the subject fits
	// the bound of a copied sentence.
	LeftOutTooLong = "too_long"
	// LeftOutSaid: the page says it already (another document, or the
	// entry, words it the same).
	LeftOutSaid = "said"
	// LeftOutOverruled: it states a value an expert decision ruled out.
	LeftOutOverruled = "overruled"
)

// budget is how many sentences of a page n sentences of evidence are
// worth: ⌈√(n/3)⌉, so that a page grows with its sources but summarises
// them, the more the longer they are (an entry of 3 sentences gives one
// notable act, of 12 two, of 27 three, of 75 five, of 300 ten). The scale
// keeps the pages of the History of Ming biographies as long, on average,
// as the fixed bounds they were written with before (6 to 12 sentences, at
// most 5 notable acts) while the longest entries get more.
func budget(n int) int {
	if n <= 0 {
		return 0
	}
	return int(math.Ceil(math.Sqrt(float64(n) / 3)))
}

func (p *planner) leaveOut(reason string, n int) {
	if n <= 0 {
		return
	}
	p.stats[StatLeftOut] += int64(n)
	p.stats[StatLeftOut+"_"+reason] += int64(n)
}

// aside is a sentence of another document that names the subject.
type aside struct {
	ps      passage // what the page copies: the sentence, or its part about him
	devoted bool    // its text is about the subject
	topical bool    // the subject is the topic of one of its clauses
	year    int     // the Gregorian year its text gives it (0: none)
	score   int
	order   int
	text    []passage // the sentences of its text, and its own is text[at]
	at      int
}

// fromElsewhere chooses the sentences of other documents the page gives:
// every sentence that names the subject in a text about him — one that
// names him, sentence for sentence, at least as often as his own entry
// does (an archive note about him, however it is worded) — and, of the
// sentences of other texts that make him the topic of a clause, as many
// as the budget of their number allows, those with facts the page has
// not stated first. Sentences that name him only in passing are left
// out. Each is copied verbatim, cut to the clauses from his name on when
// it is longer than MaxCopy (extract), and dated by its own words
// (dateOf).
func (p *planner) fromElsewhere() []aside {
	share := p.entryShare()
	var cands []aside
	seen := map[string]bool{}
	for _, r := range p.elsewhere {
		if p.refs.Name == "" || !strings.Contains(r.Text, p.refs.Name) {
			continue // it never names him (namedIn)
		}
		ss := split(r)
		names := p.namedIn(ss)
		named := 0
		for _, ok := range names {
			if ok {
				named++
			}
		}
		if named == 0 {
			continue
		}
		devoted := float64(named)/float64(len(ss)) >= share
		for j, ps := range ss {
			if !names[j] || p.used[key(ps)] {
				continue
			}
			ex, ok := p.extract(ps)
			switch {
			case !ok:
				p.leaveOut(LeftOutTooLong, 1)
				continue
			case seen[ex.text]:
				continue // the same words in another chunk: one passage
			}
			seen[ex.text] = true
			p.stats[StatOtherPassages]++
			switch {
			case p.onPage[passageKey(ex.text)]:
				p.leaveOut(LeftOutSaid, 1)
				continue
			case p.overruled(ex.text):
				p.leaveOut(LeftOutOverruled, 1)
				continue
			}
			a := aside{ps: ex, devoted: devoted, order: len(cands), text: ss, at: j}
			a.topical = devoted || p.topical(ex.text)
			for _, f := range p.factsIn(ps) {
				if p.saidFact(f) {
					a.score -= 2
				} else {
					a.score += 2
				}
			}
			cands = append(cands, a)
		}
	}
	var take, rest []aside
	topical := 0
	for _, a := range cands {
		switch {
		case a.devoted:
			take = append(take, a)
			p.stats[StatOtherDevoted]++
		case a.topical:
			rest = append(rest, a)
			topical++
		default:
			p.leaveOut(LeftOutInPassing, 1)
		}
	}
	room := budget(topical)
	p.stats[StatOtherBudget] = int64(len(take) + room)
	slices.SortStableFunc(rest, func(a, b aside) int { return cmp.Compare(b.score, a.score) })
	if len(rest) > room {
		p.leaveOut(LeftOutBudget, len(rest)-room)
		rest = rest[:room]
	}
	take = append(take, rest...)
	slices.SortFunc(take, func(a, b aside) int { return cmp.Compare(a.order, b.order) })
	for i, a := range take {
		p.used[key(a.ps)] = true
		take[i].year = p.dateOf(a.text, a.at)
	}
	return take
}

// namedIn reports which sentences of a text of another document name the
// subject (compose.NamedIn).
func (p *planner) namedIn(ss []passage) []bool {
	return compose.NamedIn(textsOf(ss), p.refs.Name, p.names)
}

// textsOf are the words of passages.
func textsOf(ss []passage) []string {
	out := make([]string, len(ss))
	for i, ps := range ss {
		out[i] = ps.text
	}
	return out
}

// entryShare is how often the subject's own entry names him, sentence
// for sentence (smoothed: (named+1)/(sentences+2)): a text of another
// document that names him at least as often is about him.
func (p *planner) entryShare() float64 {
	named := 0
	for _, ps := range p.body {
		if p.mentions(ps.text) {
			named++
		}
	}
	return float64(named+1) / float64(len(p.body)+2)
}

// passageKey is how the plan remembers a sentence's words: without its
// end mark.
func passageKey(s string) string { return "\x00" + strings.TrimRight(s, "。.！？!?") }

// topical reports whether a name of the subject opens a clause of s
// (compose.Reader.Topical).
func (p *planner) topical(s string) bool { return p.rd.Topical(s, p.names) }

// extract is the part of a sentence of another document that a page
// copies (compose.Reader.Extract): the whole sentence when it fits
// MaxCopy, else the clauses from the one that first names the subject.
// ok is false when that clause alone is too long.
func (p *planner) extract(ps passage) (passage, bool) {
	c, ok := p.rd.Extract(ps.text, p.names, p.maxCopy())
	if !ok {
		return passage{}, false
	}
	return passage{chunk: ps.chunk, start: ps.start + c.Start, end: ps.start + c.End, text: c.Text,
		lineStart: ps.lineStart && c.First}, true
}

// dateOf is the year sentence j of a text of another document is dated
// to (compose.Reader.DateOf): its own date, or a year it counts from the
// sentence right before it when that one names its date.
func (p *planner) dateOf(ss []passage, j int) int {
	before := ""
	if j > 0 {
		before = ss[j-1].text
	}
	return p.rd.DateOf(before, ss[j].text)
}

// placeElsewhere puts the chosen sentences of other documents on the
// page: a dated one in the life after the last item its year does not
// precede (the life's items dated as their sources read, the death and
// what follows it last unless they are dated), an undated one in the part
// for other documents, after the life, in reference order. The page is
// sectioned (life, other documents) when that part is not empty.
func (p *planner) placeElsewhere(life []PlanItem, tailFrom int, chosen []aside) []PlanItem {
	var dated, undated []PlanItem
	for _, a := range chosen {
		it := p.copyItem(ItemElsewhere, a.ps)
		it.year = a.year
		if a.year != 0 {
			dated = append(dated, it)
		} else {
			undated = append(undated, it)
		}
	}
	p.stats[StatOtherDated] = int64(len(dated))
	p.stats[StatOtherUndated] = int64(len(undated))
	slices.SortStableFunc(dated, func(a, b PlanItem) int { return cmp.Compare(a.year, b.year) })
	out := make([]PlanItem, 0, len(life)+len(dated)+len(undated))
	cur := 0 // the year the life has reached
	for i, it := range life {
		eff := it.year
		switch {
		case i >= tailFrom && eff == 0:
			eff = math.MaxInt // an undated death ends the life
		case eff < cur:
			eff = cur
		}
		for i > 0 && len(dated) > 0 && dated[0].year < eff {
			out = append(out, dated[0])
			dated = dated[1:]
		}
		cur = eff
		out = append(out, it)
	}
	out = append(out, dated...)
	if len(undated) > 0 {
		life, other := compose.SectionTitles(p.prof.Language)
		for i := range out {
			out[i].Section = life
		}
		for _, it := range undated {
			it.Section = other
			out = append(out, it)
		}
	}
	return out
}

// dateLife gives each item of the life the year its source dates it to:
// a sentence of the entry before the death the year the entry has reached
// there (the text is in time order, so a sentence that gives no date of
// its own is of the last year read), any other item — the death and what
// follows it from tailFrom on among them — the first date its own words
// give.
func (p *planner) dateLife(life []PlanItem, tailFrom int) {
	years := p.rd.Dates(textsOf(p.body))
	at := map[string]int{}
	for i, ps := range p.body {
		at[passageKey(ps.text)] = years[i]
	}
	for i := range life {
		if y, ok := at[passageKey(life[i].Text)]; ok && i < tailFrom {
			life[i].year = y
			continue
		}
		var c compose.Clock
		life[i].year, _ = p.rd.Read(life[i].Text, &c)
	}
}
