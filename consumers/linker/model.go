package linker

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Model is the mention model: a logistic regression over the features of
// one occurrence of a surface in a text, fitted on a corpus whose
// entries label the names in their own text (Fit; `annalist eval linking
// --fit`). Its features are the context (the characters and classes
// either side of the occurrence, whether it is a courtesy name) and how
// names are written: how much more often the surface's first character
// begins a name, and its last ends one, than the character occurs in the
// text at all, and the same of the character after it as a name's last
// (the name would go on: 王瑞 in 王瑞旃) and of the one before it as a
// name's first (崔 before 应元). Those are
// log-ratios of counts over the distinct names of the fitting corpus and
// its text (see namePseudo), so that a surname the corpus writes rarely
// does not read against a name and 之 or 也 never begins one.
// Its weights and counts are a profile's data (internal/lang/profile,
// mention_model.tsv and mention_chars.tsv), so the evidence of a
// language travels with its profile. The zero Model says nothing: every
// occurrence has log-likelihood ratio 0.
type Model struct {
	// W are the weights by feature; "b" is the bias.
	W map[string]float64
	// Prior is the share of names among the examples the model was
	// fitted on: the bias holds its log-odds, which LLR takes out.
	Prior float64
	// Chars are the counts the shape ratios are read from.
	Chars CharCounts
	ratio map[rune][4]float64
	// unseen are the ratios of a character the counts never saw.
	unseen [4]float64
}

// CharCounts are the counts of the characters of a corpus: per character,
// its occurrences in the text and in the distinct names (as the first, as
// the last, as any but the first, as any but the last character), and
// right after and right before an occurrence of a name; the totals of
// each under the key 0.
type CharCounts map[rune][7]int64

// CharCountsOf reads a profile's character counts (internal/lang/profile,
// MentionChars): a row per character, "total" for the sums.
func CharCountsOf(rows map[string][]int64) CharCounts {
	if len(rows) == 0 {
		return nil
	}
	out := make(CharCounts, len(rows))
	for k, ns := range rows {
		var r rune
		if k != CharTotal {
			rs := []rune(k)
			if len(rs) != 1 {
				continue
			}
			r = rs[0]
		}
		var row [7]int64
		copy(row[:], ns)
		out[r] = row
	}
	return out
}

// Rows is the inverse of CharCountsOf.
func (c CharCounts) Rows() map[string][]int64 {
	out := make(map[string][]int64, len(c))
	for r, n := range c {
		k := string(r)
		if r == 0 {
			k = CharTotal
		}
		out[k] = n[:]
	}
	return out
}

// CharTotal is the key of the sums among a profile's character counts.
const CharTotal = "total"

// The columns of a CharCounts row.
const (
	CountText = iota
	CountFirst
	CountLast
	CountInner
	CountHead
	CountAfter
	CountBefore
)

// Feature names. A character feature is the prefix and the character
// (or class); one seen too rarely in fitting is "?". The "v:" features
// are continuous: they weigh the log-ratios of CharCounts.
const (
	featBias   = "b"
	featAlias  = "k:alias"
	featLeft   = "l1:"
	featRight  = "r1:"
	featLeft2  = "l2:"
	featRight2 = "r2:"
	featFirst  = "v:first"
	featLast   = "v:last"
	featInner  = "v:right"
	featHead   = "v:left"
	// featInnerShort weighs featInner again for a surface of two
	// characters: most names have three, so a two-character surface
	// followed by a character that ends names is more often the head of
	// a longer name (王安 of 王安石) than a three-character one is.
	featInnerShort = "v:right_short"
	featNonName    = "x:nonhan"
	// featLength is the surface's length in characters (4 for longer):
	// a span of three that the text writes as an attested name is a name
	// more often than one of two.
	featLength = "n:"
	// The text writes the surface and the character after it again
	// (featLonger), that character after the surface's given name
	// (featLongerGiven), or the character before it with the surface
	// (featEarlier).
	featLonger      = "d:longer"
	featLongerGiven = "d:longer_given"
	featEarlier     = "d:earlier"
	classStart      = "^"
	classEnd        = "$"
	classPunct      = "p"
	classOpen       = "q"
	classRare       = "?"
	// priorFeature holds the fitting prior among the profile weights.
	priorFeature = "prior"
)

// shapeFeatures are the continuous features, in the order of the ratios.
var shapeFeatures = [5]string{featFirst, featLast, featInner, featHead, featInnerShort}

// NewModel reads a model from profile weights (Weights) and character
// counts. Nil or empty weights give the zero Model.
func NewModel(w map[string]float64, chars CharCounts) Model {
	if len(w) == 0 {
		return Model{}
	}
	m := Model{W: make(map[string]float64, len(w))}
	for k, v := range w {
		if k == priorFeature {
			m.Prior = v
			continue
		}
		m.W[k] = v
	}
	if len(chars) > 0 {
		m.setChars(chars)
	}
	return m
}

// namePseudo (chosen by cross-validated log loss among 0.1 to 5) is the
// count added to both sides of the ratio of a character's names to the
// names it would begin (or end) if names wrote it as often as the text
// does: log((n(c) + a) / (names·P(c | text) + a)). A frequent character
// names never write (之, 也) reads strongly against a name; a rare one
// names never wrote either reads as neither (席 of 席书, when the fitting
// corpus has no other 席); one names write far more than the text
// predicts (王) reads for a name.
const namePseudo = 0.25

// setChars keeps the counts and reads their ratios: how a name's first
// and last characters stand to the text (see namePseudo), and how a
// character stands as a name's last to as the character after a name
// (石 goes on 王安石; 入 follows a name: 王安入朝), and as a name's first to
// as the character before one (崔 begins 崔应元), with add-one smoothing
// over the characters counted.
func (m *Model) setChars(chars CharCounts) {
	m.Chars = chars
	m.ratio = make(map[rune][4]float64, len(chars))
	tot := chars[0]
	v := float64(len(chars))
	rate := func(n, of, text int64) float64 {
		expected := float64(of) * float64(text) / float64(max(tot[CountText], 1))
		return math.Log((float64(n) + namePseudo) / (expected + namePseudo))
	}
	versus := func(a, ofA, b, ofB int64) float64 {
		return math.Log((float64(a)+1)/(float64(ofA)+v)) - math.Log((float64(b)+1)/(float64(ofB)+v))
	}
	for c, n := range chars {
		if c == 0 {
			continue
		}
		m.ratio[c] = [4]float64{rate(n[CountFirst], tot[CountFirst], n[CountText]), rate(n[CountLast], tot[CountLast], n[CountText]),
			versus(n[CountLast], tot[CountLast], n[CountAfter], tot[CountAfter]),
			versus(n[CountFirst], tot[CountFirst], n[CountBefore], tot[CountBefore])}
	}
	m.unseen = [4]float64{rate(0, tot[CountFirst], 0), rate(0, tot[CountLast], 0),
		versus(0, tot[CountLast], 0, tot[CountAfter]), versus(0, tot[CountFirst], 0, tot[CountBefore])}
}

// Weights returns the model's weights with its prior, as a profile holds
// them (the inverse of NewModel with the model's Chars).
func (m Model) Weights() map[string]float64 {
	out := make(map[string]float64, len(m.W)+1)
	for k, v := range m.W {
		out[k] = v
	}
	out[priorFeature] = m.Prior
	return out
}

// LLR is the log-likelihood ratio of "a name stands here" for the
// occurrence rs[start:end] against "these characters are part of
// something else" (a longer name, a word): the model's log-odds with the
// fitting prior's taken out. 0 for the zero Model.
func (m Model) LLR(rs []rune, start, end int, alias bool) float64 {
	return m.llr(rs, start, end, alias, nil)
}

// LLRIn is LLR with the text's n-gram counts (Counts), which gives the
// features of what the text writes elsewhere without a scan per
// occurrence.
func (m Model) LLRIn(rs []rune, counts *Counts, start, end int, alias bool) float64 {
	return m.llr(rs, start, end, alias, counts)
}

func (m Model) llr(rs []rune, start, end int, alias bool, counts *Counts) float64 {
	if len(m.W) == 0 {
		return 0
	}
	if counts == nil {
		counts = NewCounts(rs)
	}
	z := 0.0
	for _, f := range features(rs, counts, start, end, alias) {
		z += m.weight(f)
	}
	for k, v := range m.shape(rs, start, end, alias) {
		z += m.W[shapeFeatures[k]] * v
	}
	return z - logit(m.Prior)
}

// shape are the values of the continuous features of rs[start:end]: the
// ratios of its first and last characters (none for a courtesy name,
// which no surname begins), of the character after it as a name's last
// (王景彰 would be a name, so 王景 is not one there) and of the one before
// it as a name's first (崔 before 应元) (0 where there is no Han
// character).
func (m Model) shape(rs []rune, start, end int, alias bool) [5]float64 {
	var out [5]float64
	if m.ratio == nil {
		return out
	}
	of := func(r rune, k int) float64 {
		if v, ok := m.ratio[r]; ok {
			return v[k]
		}
		return m.unseen[k]
	}
	if !alias {
		out[0], out[1] = of(rs[start], 0), of(rs[end-1], 1)
	}
	if end < len(rs) && isHan(rs[end]) {
		out[2] = of(rs[end], 2)
		if end-start == 2 {
			out[4] = out[2]
		}
	}
	if start > 0 && isHan(rs[start-1]) {
		out[3] = of(rs[start-1], 3)
	}
	return out
}

// weight is a feature's weight; a character feature the model does not
// know takes its rare class's.
func (m Model) weight(f string) float64 {
	if w, ok := m.W[f]; ok {
		return w
	}
	return m.W[m.rareClass(f)]
}

// rareClass is the class a feature seen too rarely counts as: its
// prefix's "?", and for the character either side of a surface, "?+" or
// "?-" by whether the character writes names more often than text (as a
// name's first before the surface, as its last after it), so that a rare
// character that could go on a name (旃 after 王瑞) does not count as a
// rare verb does.
func (m Model) rareClass(f string) string {
	i := strings.IndexByte(f, ':')
	if i < 0 {
		return ""
	}
	prefix, rest := f[:i+1], f[i+1:]
	k := -1
	switch prefix {
	case featLeft:
		k = 0
	case featRight:
		k = 1
	}
	rs := []rune(rest)
	if k < 0 || m.ratio == nil || len(rs) != 1 || !isHan(rs[0]) {
		return prefix + classRare
	}
	v, ok := m.ratio[rs[0]]
	if !ok && m.unseen[k] > 0 || ok && v[k] > 0 {
		return prefix + classRare + "+"
	}
	return prefix + classRare + "-"
}

// features are the binary features of the occurrence rs[start:end]: the
// context, whether the surface holds a character that is not Han, and
// what the text writes elsewhere that says the name is longer than the
// surface (counts): the surface with the character after it, or that
// character after the surface's given name (王逢年 … 逢年不堪), or the
// character before it with the surface (崔应元 again).
func features(rs []rune, counts *Counts, start, end int, alias bool) []string {
	fs := make([]string, 0, 10)
	fs = append(fs, featBias)
	if alias {
		fs = append(fs, featAlias)
	}
	fs = append(fs, featLength+strconv.Itoa(min(end-start, 4)))
	fs = append(fs, featLeft+leftClass(rs, start), featRight+rightClass(rs, end))
	if start >= 2 && isHan(rs[start-1]) && isHan(rs[start-2]) {
		fs = append(fs, featLeft2+string(rs[start-2:start]))
	}
	if end+2 <= len(rs) && isHan(rs[end]) && isHan(rs[end+1]) {
		fs = append(fs, featRight2+string(rs[end:end+2]))
	}
	for _, r := range rs[start:end] {
		if !isHan(r) {
			fs = append(fs, featNonName)
			break
		}
	}
	if end < len(rs) && isHan(rs[end]) {
		if counts.Of(rs[start:end+1]) >= 2 {
			fs = append(fs, featLonger)
		}
		if end-start >= 2 && counts.Of(rs[start+1:end+1]) >= 2 {
			fs = append(fs, featLongerGiven)
		}
	}
	if start > 0 && isHan(rs[start-1]) && counts.Of(rs[start-1:end]) >= 2 {
		fs = append(fs, featEarlier)
	}
	return fs
}

// Counts counts how often a text writes a string, each string once.
type Counts struct {
	text string
	seen map[string]int
}

// NewCounts returns the counts of rs.
func NewCounts(rs []rune) *Counts { return &Counts{text: string(rs), seen: map[string]int{}} }

// Of is how often the text writes g (occurrences that do not overlap).
func (c *Counts) Of(g []rune) int {
	if c == nil || len(g) == 0 {
		return 0
	}
	k := string(g)
	n, ok := c.seen[k]
	if !ok {
		n = strings.Count(c.text, k)
		c.seen[k] = n
	}
	return n
}

// leftClass is the class of the character before rs[start]: the start of
// a text or line, punctuation, an opening quote or bracket, or the
// character itself.
func leftClass(rs []rune, start int) string {
	if start == 0 {
		return classStart
	}
	return charClass(rs[start-1], classStart)
}

// rightClass is the class of the character at rs[end].
func rightClass(rs []rune, end int) string {
	if end >= len(rs) {
		return classEnd
	}
	return charClass(rs[end], classEnd)
}

func charClass(r rune, line string) string {
	switch {
	case r == '\n' || r == '\r':
		return line
	case unicode.Is(unicode.Ps, r) || unicode.Is(unicode.Pi, r):
		return classOpen
	case unicode.IsPunct(r) || unicode.IsSpace(r) || unicode.IsSymbol(r):
		return classPunct
	}
	return string(r)
}

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

func logit(p float64) float64 {
	p = min(max(p, 1e-6), 1-1e-6)
	return math.Log(p / (1 - p))
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// Example is one occurrence for fitting: the span Start:End of Text (rune
// offsets) is a name (Name) or is not, and is a courtesy or art name
// (Alias). Group keeps the examples of one document together in
// cross-validation; examples of a group share their Text.
type Example struct {
	Text       []rune
	Start, End int
	Alias      bool
	Name       bool
	Group      int
	// Kind says what made an example that is no name: a span cut from a
	// name ("shifted") or one drawn at random ("random"); reports break
	// scores down by it.
	Kind string
	// CountOnly marks a name that only adds to the character counts the
	// shape ratios are read from: Fit does not regress on it.
	CountOnly bool
}

// FitConfig configures Fit. The zero value is usable.
type FitConfig struct {
	// MinCount drops features seen in fewer examples (default 5): their
	// occurrences count as the rare class of their prefix.
	MinCount int
	// L2 is the ridge penalty (default 1.0).
	L2 float64
	// Iterations of the optimiser (default 300).
	Iterations int
	// Without are feature families (prefixes such as "l2:", or "v:" for
	// the shape) left out of the model: their features get no weight.
	Without []string
}

func (c FitConfig) withDefaults() FitConfig {
	if c.MinCount <= 0 {
		c.MinCount = 5
	}
	if c.L2 <= 0 {
		c.L2 = 1
	}
	if c.Iterations <= 0 {
		c.Iterations = 300
	}
	return c
}

// countChars counts the characters of the examples' texts, of the
// distinct names among them (not courtesy names) and around each of
// their occurrences.
func countChars(examples []Example) CharCounts {
	out := CharCounts{}
	add := func(r rune, k int) {
		n := out[r]
		n[k]++
		out[r] = n
		t := out[0]
		t[k]++
		out[0] = t
	}
	texts := map[int]bool{}
	names := map[string]bool{}
	for _, e := range examples {
		if !texts[e.Group] {
			texts[e.Group] = true
			for _, r := range e.Text {
				if isHan(r) {
					add(r, CountText)
				}
			}
		}
		if !e.Name || e.Alias {
			continue
		}
		if e.End < len(e.Text) && isHan(e.Text[e.End]) {
			add(e.Text[e.End], CountAfter)
		}
		if e.Start > 0 && isHan(e.Text[e.Start-1]) {
			add(e.Text[e.Start-1], CountBefore)
		}
		name := e.Text[e.Start:e.End]
		if names[string(name)] {
			continue
		}
		names[string(name)] = true
		add(name[0], CountFirst)
		add(name[len(name)-1], CountLast)
		for i, r := range name {
			if i > 0 {
				add(r, CountInner)
			}
			if i < len(name)-1 {
				add(r, CountHead)
			}
		}
	}
	return out
}

// Fit fits the mention model on examples: the characters are counted on
// them, then an L2-regularised logistic regression is optimised with
// full-batch gradient descent and AdaGrad steps (the problem is convex
// and small: a few features per example).
func Fit(examples []Example, cfg FitConfig) (Model, error) {
	cfg = cfg.withDefaults()
	if len(examples) == 0 {
		return Model{}, fmt.Errorf("fit the mention model: no examples")
	}
	left := func(f string) bool {
		return slices.ContainsFunc(cfg.Without, func(p string) bool { return strings.HasPrefix(f, p) })
	}
	all := examples
	examples = slices.DeleteFunc(slices.Clone(examples), func(e Example) bool { return e.CountOnly })
	pos := 0
	counts := map[string]int{}
	raw := make([][]string, len(examples))
	grams := map[int]*Counts{}
	for i, e := range examples {
		if e.Start < 0 || e.End > len(e.Text) || e.End <= e.Start {
			return Model{}, fmt.Errorf("fit the mention model: example %d: span %d:%d of a %d-rune text", i, e.Start, e.End, len(e.Text))
		}
		g, ok := grams[e.Group]
		if !ok {
			g = NewCounts(e.Text)
			grams[e.Group] = g
		}
		for _, f := range features(e.Text, g, e.Start, e.End, e.Alias) {
			if !left(f) {
				raw[i] = append(raw[i], f)
				counts[f]++
			}
		}
		if e.Name {
			pos++
		}
	}
	if pos == 0 || pos == len(examples) {
		return Model{}, fmt.Errorf("fit the mention model: %d names among %d examples, want both kinds", pos, len(examples))
	}
	m := Model{}
	shape := !left("v:")
	if shape {
		m.setChars(countChars(all))
	}
	// Feature indices, rare ones folded into their prefix's rare class;
	// the continuous features come first.
	index := map[string]int{}
	var names []string
	if shape {
		for k, f := range shapeFeatures {
			index[f] = k
		}
		names = append(names, shapeFeatures[:]...)
	}
	id := func(f string) int {
		if counts[f] < cfg.MinCount {
			if c := m.rareClass(f); c != "" {
				f = c
			}
		}
		if k, ok := index[f]; ok {
			return k
		}
		index[f] = len(names)
		names = append(names, f)
		return len(names) - 1
	}
	xs := make([][]int, len(examples))
	vs := make([][5]float64, len(examples))
	ys := make([]float64, len(examples))
	for i, fs := range raw {
		for _, f := range fs {
			xs[i] = append(xs[i], id(f))
		}
		if e := examples[i]; shape {
			vs[i] = m.shape(e.Text, e.Start, e.End, e.Alias)
			for k, f := range shapeFeatures {
				if left(f) {
					vs[i][k] = 0
				}
			}
		}
		if examples[i].Name {
			ys[i] = 1
		}
	}
	w := make([]float64, len(names))
	g := make([]float64, len(names))
	acc := make([]float64, len(names))
	const rate = 0.5
	n := float64(len(examples))
	bias := index[featBias]
	for range cfg.Iterations {
		clear(g)
		for i, x := range xs {
			z := 0.0
			for _, k := range x {
				z += w[k]
			}
			if shape {
				for k, v := range vs[i] {
					z += w[k] * v
				}
			}
			d := sigmoid(z) - ys[i]
			for _, k := range x {
				g[k] += d
			}
			if shape {
				for k, v := range vs[i] {
					g[k] += d * v
				}
			}
		}
		for k := range w {
			g[k] /= n
			if k != bias {
				g[k] += cfg.L2 * w[k] / n
			}
			acc[k] += g[k] * g[k]
			if acc[k] > 0 {
				w[k] -= rate * g[k] / math.Sqrt(acc[k])
			}
		}
	}
	m.W, m.Prior = make(map[string]float64, len(names)), float64(pos)/n
	for k, f := range names {
		if w[k] != 0 {
			m.W[f] = w[k]
		}
	}
	return m, nil
}
