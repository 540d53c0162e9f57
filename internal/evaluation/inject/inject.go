package inject

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/schemas"
)

// Error types, the names the evaluation reports under.
const (
	Era        = "era"
	Gregorian  = "gregorian"
	Place      = "place"
	Courtesy   = "courtesy"
	Rank       = "rank"
	Fabricated = "fabricated"
)

// Types lists the error types in a fixed order.
func Types() []string { return []string{Era, Gregorian, Place, Courtesy, Rank, Fabricated} }

// Injection is one error put into a sentence: the ground truth of an
// evaluation case.
type Injection struct {
	Type     string `json:"type"`
	Original string `json:"original"`
	Mutated  string `json:"mutated"`
	// Wrong is the value put in (for fabricated, the clause); it does not
	// occur in Original.
	Wrong string `json:"wrong"`
	// Right is the value Wrong replaced; "" for fabricated.
	Right string `json:"right,omitempty"`
}

// Residual reports whether s, a later wording of the sentence, still
// carries the injected error.
func (in Injection) Residual(s string) bool {
	return in.Wrong != "" && strings.Contains(s, in.Wrong)
}

// Pool holds the values a swap takes: other persons' native places and
// courtesy names, gathered from reference sets. The zero Pool is empty
// (place and courtesy injections then report ok=false). A Pool is
// read-only once built and safe for concurrent use.
type Pool struct {
	Places   []string
	Courtesy []string
	// exclude are values never injected: the subject's own names and
	// places, so that a swap is always an error.
	exclude map[string]bool
}

// Add gathers the subject's native places and courtesy names of refs,
// each value once.
func (p *Pool) Add(refs *schemas.ReferenceSet) {
	for _, f := range refs.Facts {
		switch f.Relation {
		case schemas.RelNativePlace:
			if poolValue(f.Value, 2, 8) && !slices.Contains(p.Places, f.Value) {
				p.Places = append(p.Places, f.Value)
			}
		case schemas.RelCourtesyName:
			if poolValue(f.Value, 1, 4) && !slices.Contains(p.Courtesy, f.Value) {
				p.Courtesy = append(p.Courtesy, f.Value)
			}
		}
	}
}

// poolValue keeps values of min to max Han characters.
func poolValue(v string, minLen, maxLen int) bool {
	n := 0
	for _, r := range v {
		if !text.IsHan(r) {
			return false
		}
		n++
	}
	return n >= minLen && n <= maxLen
}

// Without returns the pool with the values never to be injected: pass the
// subject's own aliases and native places. The lists are shared.
func (p Pool) Without(values ...string) Pool {
	ex := make(map[string]bool, len(p.exclude)+len(values))
	for v := range p.exclude {
		ex[v] = true
	}
	for _, v := range values {
		ex[v] = true
	}
	p.exclude = ex
	return p
}

// For is the pool for a page about refs' subject: without the subject's
// aliases and native places.
func (p Pool) For(refs *schemas.ReferenceSet) Pool {
	own := slices.Clone(refs.Aliases)
	for _, f := range refs.Facts {
		if f.Relation == schemas.RelNativePlace || schemas.AliasRelation(f.Relation) {
			own = append(own, f.Value)
		}
	}
	return p.Without(own...)
}

// Injector injects errors; it keeps the era table it reads dates with.
type Injector struct {
	eras *era.Table
}

// New returns an injector reading era dates with t.
func New(t *era.Table) *Injector { return &Injector{eras: t} }

// Inject is New(era.Default()).Inject: convenient for a few calls, it
// parses the era table each time.
func Inject(sentence, typ string, pool Pool, rng *rand.Rand) (Injection, bool) {
	return New(era.Default()).Inject(sentence, typ, pool, rng)
}

// slot is a value of the sentence an injection may replace: runes
// [start, end) hold right.
type slot struct {
	start, end int
	right      string
	// for era dates: the era's length and the written era name.
	eraLen  int
	eraName string
	year    int
	// for Gregorian years: the value.
	value int
}

// Inject puts one error of type typ into sentence, choosing the slot and
// the wrong value with rng. It reports false when the sentence has no slot
// of that type or the pool has no value to swap in.
func (x *Injector) Inject(sentence, typ string, pool Pool, rng *rand.Rand) (Injection, bool) {
	rs := []rune(sentence)
	if typ == Fabricated {
		return fabricate(sentence, rs, rng)
	}
	slots := x.slots(rs, typ)
	if len(slots) == 0 {
		return Injection{}, false
	}
	// Try the slots in a random order: a slot may have no wrong value
	// (an era of one year, a pool with nothing else to offer).
	for _, i := range rng.Perm(len(slots)) {
		s := slots[i]
		wrongs := x.wrongs(sentence, rs, typ, s, pool)
		if len(wrongs) == 0 {
			continue
		}
		w := wrongs[rng.IntN(len(wrongs))]
		mutated := string(rs[:w.start]) + w.text + string(rs[w.end:])
		return Injection{Type: typ, Original: sentence, Mutated: mutated, Wrong: w.value, Right: s.right}, true
	}
	return Injection{}, false
}

// Applicable returns the types Inject can apply to sentence with pool, in
// the order of Types.
func (x *Injector) Applicable(sentence string, pool Pool) []string {
	rs := []rune(sentence)
	var out []string
	for _, typ := range Types() {
		if typ == Fabricated {
			if len(unusedClauses(sentence)) > 0 && strings.TrimSpace(sentence) != "" {
				out = append(out, typ)
			}
			continue
		}
		for _, s := range x.slots(rs, typ) {
			if len(x.wrongs(sentence, rs, typ, s, pool)) > 0 {
				out = append(out, typ)
				break
			}
		}
	}
	return out
}

// edit replaces runes [start, end) with text; value is the wrong value it
// puts in, as Residual looks for it.
type edit struct {
	start, end  int
	text, value string
}

func (x *Injector) slots(rs []rune, typ string) []slot {
	switch typ {
	case Era:
		return x.eraSlots(rs)
	case Gregorian:
		return gregorianSlots(rs)
	case Place, Courtesy:
		return identitySlots(rs, typ)
	case Rank:
		return rankSlots(rs)
	}
	return nil
}

// wrongs lists every edit that puts a wrong value into slot s. None of
// them writes a value the sentence already holds.
func (x *Injector) wrongs(sentence string, rs []rune, typ string, s slot, pool Pool) []edit {
	var out []edit
	add := func(e edit) {
		if !strings.Contains(sentence, e.value) {
			out = append(out, e)
		}
	}
	switch typ {
	case Era:
		for y := 1; y <= s.eraLen; y++ {
			if y == s.year {
				continue
			}
			v := s.eraName + era.FormatNumeral(y) + "年"
			add(edit{start: s.start, end: s.end, text: v, value: v})
		}
	case Gregorian:
		for d := -9; d <= 9; d++ {
			if d == 0 || s.value+d <= 0 {
				continue
			}
			v := writeDigitsLike(s.right, s.value+d)
			add(edit{start: s.start, end: s.end, text: v, value: v})
		}
	case Place, Courtesy:
		values := pool.Places
		if typ == Courtesy {
			values = pool.Courtesy
		}
		for _, v := range values {
			if pool.exclude[v] || strings.Contains(v, s.right) || strings.Contains(s.right, v) {
				continue
			}
			add(edit{start: s.start, end: s.end, text: v, value: v})
		}
	case Rank:
		for _, v := range rankSwaps(s.right) {
			e := edit{start: s.start, end: s.end, text: v, value: v}
			// 举进士 (passed the metropolitan examination) becomes 中举人
			// rather than the unidiomatic 举举人.
			if s.right == "进士" && v == "举人" && s.start > 0 && rs[s.start-1] == '举' {
				e.start, e.text = s.start-1, "中举人"
			}
			add(e)
		}
	}
	return out
}

// eraSlots are the era dates with a year number that the table resolves.
func (x *Injector) eraSlots(rs []rune) []slot {
	var out []slot
	for _, d := range x.eras.Find(string(rs)) {
		if d.Year < 1 || d.Gregorian == 0 {
			continue
		}
		e, ok := x.eras.Resolve(d.Era, d.Year)
		if !ok || e.Len() < 2 {
			continue
		}
		name := string(rs[d.Start : d.Start+len([]rune(d.Era))])
		out = append(out, slot{start: d.Start, end: d.End, right: d.Text, eraLen: e.Len(), eraName: name, year: d.Year})
	}
	return out
}

// gregorianSlots are the digits of the Gregorian years of the common era.
func gregorianSlots(rs []rune) []slot {
	var out []slot
	for _, y := range era.FindGregorian(string(rs)) {
		if y.Value <= 0 {
			continue
		}
		end := y.Start
		for end < y.End && isDigit(rs[end]) {
			end++
		}
		out = append(out, slot{start: y.Start, end: end, right: string(rs[y.Start:end]), value: y.Value})
	}
	return out
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' || r >= '０' && r <= '９' }

// writeDigitsLike writes v in the digits of like (ASCII or full-width).
func writeDigitsLike(like string, v int) string {
	s := strconv.Itoa(v)
	if r, _ := utf8.DecodeRuneInString(like); r < '０' || r > '９' {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		b.WriteRune(c - '0' + '０')
	}
	return b.String()
}

// Identity sentences: 叶向高，字进卿，号台山，福清人。 — a name, clauses of
// other names, then the native place.
var (
	courtesyPrefixes = []string{"一字", "表字", "又字", "字"}
	otherNamePrefix  = []string{"别号", "自号", "初名", "小字", "小名", "号"}
	// notPlace are characters of clauses ending in 人 that are not native
	// places: offices (中书舍人), degrees (举人), kin (夫人), verbs.
	notPlace = "为以授官舍举门夫主乡国宗家其之有无诸世生时能善得使不何"
)

// identitySlots finds the courtesy names or the native place of the
// identity sentences in rs (a sentence may introduce a relative too).
func identitySlots(rs []rune, typ string) []slot {
	var out []slot
	for _, sent := range text.SentencesRunes(rs) {
		clauses := splitClauses(rs, sent.Start, sent.End)
		if len(clauses) < 2 || !isName(rs[clauses[0][0]:clauses[0][1]]) {
			continue
		}
		for _, c := range clauses[1:] {
			cl := string(rs[c[0]:c[1]])
			if p, v, ok := cutName(cl, courtesyPrefixes); ok {
				if typ == Courtesy {
					start := c[0] + len([]rune(p))
					out = append(out, slot{start: start, end: c[1], right: v})
				}
				continue
			}
			if _, _, ok := cutName(cl, otherNamePrefix); ok {
				continue
			}
			if place, ok := strings.CutSuffix(cl, "人"); ok && typ == Place && isPlace(place) {
				out = append(out, slot{start: c[0], end: c[1] - 1, right: place})
			}
			break // the identity clauses end at the place or at anything else
		}
	}
	return out
}

// splitClauses cuts runes [start, end) at clause punctuation; it returns
// the clauses' rune spans without the punctuation.
func splitClauses(rs []rune, start, end int) [][2]int {
	var out [][2]int
	from := start
	for i := start; i <= end; i++ {
		if i < end && !strings.ContainsRune("，,；;。！？", rs[i]) {
			continue
		}
		if i > from {
			out = append(out, [2]int{from, i})
		}
		from = i + 1
	}
	return out
}

func isName(rs []rune) bool {
	return len(rs) >= 1 && len(rs) <= 4 && allHan(rs)
}

// cutName matches prefix + a name of one to four Han characters.
func cutName(clause string, prefixes []string) (prefix, name string, ok bool) {
	for _, p := range prefixes {
		if v, found := strings.CutPrefix(clause, p); found {
			if isName([]rune(v)) {
				return p, v, true
			}
			return "", "", false
		}
	}
	return "", "", false
}

func isPlace(place string) bool {
	rs := []rune(place)
	if len(rs) < 2 || len(rs) > 6 || !allHan(rs) {
		return false
	}
	return !strings.ContainsAny(place, notPlace)
}

func allHan(rs []rune) bool {
	for _, r := range rs {
		if !text.IsHan(r) {
			return false
		}
	}
	return len(rs) > 0
}

// rankTerms are the examination degrees and ranks a rank injection
// changes; no term is part of another.
var rankTerms = []string{"状元", "榜眼", "探花", "一甲", "二甲", "三甲", "会元", "解元", "进士", "举人"}

// rankSwaps are the wrong terms for a right one.
func rankSwaps(right string) []string {
	switch right {
	case "状元":
		return []string{"榜眼", "探花"}
	case "榜眼":
		return []string{"状元", "探花"}
	case "探花":
		return []string{"状元", "榜眼"}
	case "一甲":
		return []string{"二甲", "三甲"}
	case "二甲":
		return []string{"三甲"}
	case "三甲":
		return []string{"二甲"}
	case "会元":
		return []string{"解元"}
	case "解元":
		return []string{"会元"}
	case "进士":
		return []string{"举人"}
	case "举人":
		return []string{"进士"}
	}
	return nil
}

func rankSlots(rs []rune) []slot {
	var out []slot
	for i := 0; i+1 < len(rs); i++ {
		for _, t := range rankTerms {
			tr := []rune(t)
			if i+len(tr) <= len(rs) && string(rs[i:i+len(tr)]) == t {
				out = append(out, slot{start: i, end: i + len(tr), right: t})
				i += len(tr) - 1
				break
			}
		}
	}
	return out
}

// fabricate appends a clause no source gives before the sentence's final
// full stop.
func fabricate(sentence string, rs []rune, rng *rand.Rand) (Injection, bool) {
	if strings.TrimSpace(sentence) == "" {
		return Injection{}, false
	}
	pool := unusedClauses(sentence)
	if len(pool) == 0 {
		return Injection{}, false
	}
	clause := pool[rng.IntN(len(pool))]
	en := text.Lang(sentence) == "en"
	sep, stopRune := "，", "。"
	if en {
		sep, stopRune = ", ", "."
	}
	end := len(rs)
	for end > 0 && strings.ContainsRune(" \t\n\u3000", rs[end-1]) {
		end--
	}
	// The full stop may be followed by closing quotes (…。」).
	k := end
	for k > 0 && strings.ContainsRune("」』”\"'’", rs[k-1]) {
		k--
	}
	var mutated string
	if k > 0 && strings.ContainsRune("。.！!？?", rs[k-1]) {
		mutated = string(rs[:k-1]) + sep + clause + string(rs[k-1:])
	} else {
		// No full stop: end the sentence with one.
		mutated = string(rs[:end]) + sep + clause + stopRune + string(rs[end:])
	}
	return Injection{Type: Fabricated, Original: sentence, Mutated: mutated, Wrong: clause}, true
}

// unusedClauses are the fabricated clauses of the sentence's language that
// it does not already hold.
func unusedClauses(sentence string) []string {
	all := Clauses(text.Lang(sentence))
	out := all[:0]
	for _, c := range all {
		if !strings.Contains(sentence, c) {
			out = append(out, c)
		}
	}
	return out
}
