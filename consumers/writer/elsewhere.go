package writer

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
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

// sectionTitles are the titles of a biography's sections by the sources'
// language: the life, and the part for evidence from other documents the
// plan has when such evidence is not dated.
var sectionTitles = map[string][2]string{
	profile.LangChinese: {"生平", "其他文献"},
	profile.LangEnglish: {"Life", "From other documents"},
}

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
// subject: by his name, or by an alias or his given name once the text
// has named him (a classical text writes 申时行 once, then 时行; a courtesy
// name or a given name the text has not introduced may be anyone's, or
// no name at all: 延之入 is "invited him in").
func (p *planner) namedIn(ss []passage) []bool {
	out := make([]bool, len(ss))
	introduced := false
	for i, ps := range ss {
		if p.refs.Name != "" && strings.Contains(ps.text, p.refs.Name) {
			introduced = true
		}
		out[i] = introduced && p.mentions(ps.text)
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

// topical reports whether a name of the subject opens a clause of s,
// alone or after an office title (大学士申时行等言): he is that clause's
// topic, not a name in a list (徐阶、张居正、申时行…) or an object.
func (p *planner) topical(s string) bool {
	for _, n := range p.names {
		for off := 0; ; {
			i := strings.Index(s[off:], n)
			if i < 0 {
				break
			}
			i += off
			off = i + len(n)
			lead := s[:i]
			if b := strings.LastIndexAny(lead, clauseEnds); b >= 0 {
				_, w := utf8.DecodeRuneInString(lead[b:])
				lead = lead[b+w:]
			}
			if lead = strings.TrimSpace(lead); lead == "" || p.title(lead) {
				return true
			}
		}
	}
	return false
}

// clauseEnds are the marks that end a clause (a list's 、 does not).
const clauseEnds = "，。；：！？,;:!?\n"

// title reports whether s reads as an office title before a name: it
// ends with an office term of the profile's lexicon (大学士, 巡抚都御史,
// 南京吏部尚书), is no longer than the longest titles the lexicon's terms
// head (太子太保礼部尚书), and gives no date (十三年七月与副将 is a clause of
// its own that names him as a companion).
func (p *planner) title(s string) bool {
	if utf8.RuneCountInString(s) > maxTitleRunes || !p.prof.Offices.Recognised(s, 2) {
		return false
	}
	var c clock
	if y, _ := p.read(s, &c); y != 0 {
		return false
	}
	return p.w.NotableYears == nil || !p.w.NotableYears.MatchString(s)
}

// maxTitleRunes bounds the office title a clause may open with before the
// subject's name.
const maxTitleRunes = 8

// extract is the part of a sentence of another document that a page
// copies: the whole sentence when it fits MaxCopy, else the clause in
// which the subject is first named, with the clause before it when that
// one dates it, and as many clauses after it as the bound allows (what
// he did follows his name; the clauses before it are another's), closed
// with the sentence's end mark. ok is false when that clause alone is too
// long.
func (p *planner) extract(ps passage) (passage, bool) {
	rs := []rune(ps.text)
	limit := p.maxCopy()
	if len(rs) <= limit {
		return ps, true
	}
	at := -1
	for _, n := range p.names {
		if i := strings.Index(ps.text, n); i >= 0 && (at < 0 || utf8.RuneCountInString(ps.text[:i]) < at) {
			at = utf8.RuneCountInString(ps.text[:i])
		}
	}
	if at < 0 {
		return passage{}, false
	}
	// Clause spans [start, end), each with its closing mark.
	var spans [][2]int
	start := 0
	for i, r := range rs {
		if strings.ContainsRune(clauseEnds, r) {
			spans = append(spans, [2]int{start, i + 1})
			start = i + 1
		}
	}
	if start < len(rs) {
		spans = append(spans, [2]int{start, len(rs)})
	}
	k := slices.IndexFunc(spans, func(s [2]int) bool { return s[0] <= at && at < s[1] })
	lo, hi := k, k
	fits := func(lo, hi int) bool { return spans[hi][1]-spans[lo][0] < limit } // room for the end mark
	if k < 0 || !fits(lo, hi) {
		return passage{}, false
	}
	if lo > 0 && fits(lo-1, hi) {
		var c clock
		if y, _ := p.read(string(rs[spans[lo-1][0]:spans[lo-1][1]]), &c); y != 0 {
			lo--
		}
	}
	for hi+1 < len(spans) && fits(lo, hi+1) {
		hi++
	}
	s, e := spans[lo][0], spans[hi][1]
	body := strings.TrimRightFunc(string(rs[s:e]), func(r rune) bool {
		return strings.ContainsRune(clauseEnds+"、 ", r)
	})
	end := "。"
	if last, _ := utf8.DecodeLastRuneInString(ps.text); endsSentence(string(last)) {
		end = string(last)
	} else if p.prof.Language != "" && p.prof.Language != profile.LangChinese {
		end = "."
	}
	return passage{chunk: ps.chunk, start: ps.start + s, end: ps.start + s + utf8.RuneCountInString(body),
		text: body + end, lineStart: ps.lineStart && lo == 0}, true
}

// clock is what a reader knows of the time while reading a text: the era
// of the last era date read and the year last read.
type clock struct {
	era  era.Era
	year int
}

// datesOf reads the sentences of the subject's entry, a text in time
// order, and returns the Gregorian year each is dated to: the first date
// it gives — an era date (one written with an approximate time, 万历中, at
// that part of the era), a Gregorian year, or, at the start of a clause, a
// year the text counts in the era it last named (四十年, 明年, 是年) — or,
// when it gives none, the year last read (0 before any).
func (p *planner) datesOf(ss []passage) []int {
	out := make([]int, len(ss))
	var c clock
	for i, ps := range ss {
		if out[i], _ = p.read(ps.text, &c); out[i] == 0 {
			out[i] = c.year
		}
	}
	return out
}

// dateOf is the year sentence j of a text of another document is dated
// to (0: none): its own date, or a year it counts (是年, 明年, 四十年) from
// the sentence right before it when that one names its date (嘉靖三十二年，
// …。是年，…). A count goes no further back: such a text may be about other
// men at other times, and an era named paragraphs before, or in passing
// (自万历末至是), is no longer the one it counts in.
func (p *planner) dateOf(ss []passage, j int) int {
	var c clock
	if j > 0 {
		if _, named := p.read(ss[j-1].text, &c); !named {
			c = clock{}
		}
	}
	y, _ := p.read(ss[j].text, &c)
	return y
}

// timeMark is a date read in a text, by its rune offset.
type timeMark struct {
	at, end int
	year    int
	era     *era.Era
	count   string // a year counted in the era last named, as written
}

// read returns the first year s gives (0: none), moving c on to the
// last, and whether s names a date of its own (an era date or a
// Gregorian year, not only a counted one).
func (p *planner) read(s string, c *clock) (int, bool) {
	var marks []timeMark
	for _, d := range p.cfg.Era.Find(s) {
		e, ok := p.cfg.Era.Resolve(d.Era, d.Year)
		switch {
		case !ok:
		case d.Gregorian != 0:
			marks = append(marks, timeMark{at: d.Start, end: d.End, year: d.Gregorian, era: &e})
		case d.Approx != "":
			marks = append(marks, timeMark{at: d.Start, end: d.End, year: approxYear(e, d.Approx), era: &e})
		}
	}
	for _, y := range era.FindGregorian(s) {
		if !slices.ContainsFunc(marks, func(m timeMark) bool { return y.Start < m.end && m.at < y.End }) {
			marks = append(marks, timeMark{at: y.Start, end: y.End, year: y.Value})
		}
	}
	if re := p.w.NotableYears; re != nil {
		marks = append(marks, countedYears(re, s, marks)...)
	}
	slices.SortFunc(marks, func(a, b timeMark) int { return cmp.Compare(a.at, b.at) })
	first, named := 0, false
	for _, m := range marks {
		y := m.year
		switch {
		case m.era != nil:
			c.era = *m.era
		case m.count != "":
			y = counted(m.count, c)
		}
		if y == 0 {
			continue
		}
		named = named || m.count == ""
		c.year = y
		if first == 0 {
			first = y
		}
	}
	return first, named
}

// countedYears are the years s counts at the start of a clause (the
// profile's year words: 四十年夏，…; 明年，…), outside the dates already
// read.
func countedYears(re *regexp.Regexp, s string, marks []timeMark) []timeMark {
	var out []timeMark
	for _, loc := range re.FindAllStringIndex(s, -1) {
		lead := s[:loc[0]]
		if lead != "" {
			r, _ := utf8.DecodeLastRuneInString(lead)
			if !strings.ContainsRune(clauseEnds, r) && r != ' ' {
				continue
			}
		}
		at := utf8.RuneCountInString(lead)
		end := at + utf8.RuneCountInString(s[loc[0]:loc[1]])
		if slices.ContainsFunc(marks, func(m timeMark) bool { return at < m.end && m.at < end }) {
			continue
		}
		out = append(out, timeMark{at: at, end: end, count: s[loc[0]:loc[1]]})
	}
	return out
}

// counted is the Gregorian year of a counted year: a numeral in the era
// last named (四十年), the year after the one last read (明年), or that
// year itself (是年, 其年); 0 when the reader knows no era or year to
// count from. A numeral that counts back from the year last read in that
// era is of a reign the text did not name (神宗即位 … 十一年 after 嘉靖
// 四十一年): the reader no longer knows the era, and c forgets it.
func counted(w string, c *clock) int {
	n := strings.TrimSuffix(w, "年")
	if v, ok := era.ParseNumeral(n); ok {
		if c.era.Name == "" {
			return 0
		}
		g, ok := c.era.Gregorian(v)
		if !ok || c.year != 0 && g < c.year && c.year <= c.era.End+1 {
			c.era = era.Era{}
			return 0
		}
		return g
	}
	if c.year == 0 {
		return 0
	}
	if strings.HasPrefix(n, "明") {
		return c.year + 1
	}
	return c.year
}

// approxYear places an approximate era date (internal/lang/zh/era's Approx) in its
// era: its first year for 初, its last for 末, its middle otherwise (中, 间).
func approxYear(e era.Era, approx string) int {
	switch approx {
	case "初":
		return e.Start
	case "末":
		return e.End
	}
	return e.Start + (e.End-e.Start)/2
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
		titles, ok := sectionTitles[p.prof.Language]
		if !ok {
			titles = sectionTitles[profile.LangEnglish]
		}
		for i := range out {
			out[i].Section = titles[0]
		}
		for _, it := range undated {
			it.Section = titles[1]
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
	years := p.datesOf(p.body)
	at := map[string]int{}
	for i, ps := range p.body {
		at[passageKey(ps.text)] = years[i]
	}
	for i := range life {
		if y, ok := at[passageKey(life[i].Text)]; ok && i < tailFrom {
			life[i].year = y
			continue
		}
		var c clock
		life[i].year, _ = p.read(life[i].Text, &c)
	}
}
