package linker

import (
	"fmt"
	"math"
	"strings"
	"unicode"
)

// Model is the mention model: a logistic regression over the features of
// one occurrence of a surface in a text (the characters around it, the
// surface's first and last characters, whether it is a courtesy name),
// fitted on a corpus whose entries label the names in their own text
// (Fit; `annalist eval linking --fit`). Its weights are a profile's data
// (internal/profile, mention_model.tsv), so the evidence of a language
// travels with its profile. The zero Model says nothing: every
// occurrence has log-likelihood ratio 0.
type Model struct {
	// W are the weights by feature; "b" is the bias.
	W map[string]float64
	// Prior is the share of names among the examples the model was
	// fitted on: the bias holds its log-odds, which LLR takes out.
	Prior float64
}

// Feature names. A character feature is the prefix and the character
// (or class); one seen too rarely in fitting is "?".
const (
	featBias     = "b"
	featAlias    = "k:alias"
	featLeft     = "l1:"
	featRight    = "r1:"
	featLeft2    = "l2:"
	featRight2   = "r2:"
	featFirst    = "f:"
	featLast     = "e:"
	featNonName  = "x:nonhan"
	classStart   = "^"
	classEnd     = "$"
	classPunct   = "p"
	classOpen    = "q"
	classRare    = "?"
	priorFeature = "prior"
)

// NewModel reads a model from profile weights: feature → weight, with
// the fitting prior under "prior". Nil or empty weights give the zero
// Model.
func NewModel(w map[string]float64) Model {
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
	return m
}

// Weights returns the model as profile weights (the inverse of NewModel).
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
	if len(m.W) == 0 {
		return 0
	}
	z := 0.0
	for _, f := range features(rs, start, end, alias) {
		z += m.weight(f)
	}
	return z - logit(m.Prior)
}

// weight is a feature's weight; a character feature the model does not
// know takes its rare class's.
func (m Model) weight(f string) float64 {
	if w, ok := m.W[f]; ok {
		return w
	}
	if i := strings.IndexByte(f, ':'); i > 0 {
		return m.W[f[:i+1]+classRare]
	}
	return 0
}

// features are the features of the occurrence rs[start:end].
func features(rs []rune, start, end int, alias bool) []string {
	fs := make([]string, 0, 9)
	fs = append(fs, featBias)
	if alias {
		fs = append(fs, featAlias)
	}
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
	if !alias {
		fs = append(fs, featFirst+string(rs[start]))
	}
	fs = append(fs, featLast+string(rs[end-1]))
	return fs
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
// cross-validation.
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
}

// FitConfig configures Fit. The zero value is usable.
type FitConfig struct {
	// MinCount drops features seen in fewer examples (default 3): their
	// occurrences count as the rare class of their prefix.
	MinCount int
	// L2 is the ridge penalty (default 1.0).
	L2 float64
	// Iterations of the optimiser (default 300).
	Iterations int
}

func (c FitConfig) withDefaults() FitConfig {
	if c.MinCount <= 0 {
		c.MinCount = 3
	}
	if c.L2 <= 0 {
		c.L2 = 1
	}
	if c.Iterations <= 0 {
		c.Iterations = 300
	}
	return c
}

// Fit fits the mention model on examples: an L2-regularised logistic
// regression, optimised with full-batch gradient descent and AdaGrad
// steps (the problem is convex and small: a few features per example).
func Fit(examples []Example, cfg FitConfig) (Model, error) {
	cfg = cfg.withDefaults()
	if len(examples) == 0 {
		return Model{}, fmt.Errorf("fit the mention model: no examples")
	}
	pos := 0
	counts := map[string]int{}
	raw := make([][]string, len(examples))
	for i, e := range examples {
		if e.Start < 0 || e.End > len(e.Text) || e.End <= e.Start {
			return Model{}, fmt.Errorf("fit the mention model: example %d: span %d:%d of a %d-rune text", i, e.Start, e.End, len(e.Text))
		}
		raw[i] = features(e.Text, e.Start, e.End, e.Alias)
		for _, f := range raw[i] {
			counts[f]++
		}
		if e.Name {
			pos++
		}
	}
	if pos == 0 || pos == len(examples) {
		return Model{}, fmt.Errorf("fit the mention model: %d names among %d examples, want both kinds", pos, len(examples))
	}
	// Feature indices, rare ones folded into their prefix's rare class.
	index := map[string]int{}
	var names []string
	id := func(f string) int {
		if counts[f] < cfg.MinCount {
			if i := strings.IndexByte(f, ':'); i > 0 {
				f = f[:i+1] + classRare
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
	ys := make([]float64, len(examples))
	for i, fs := range raw {
		for _, f := range fs {
			xs[i] = append(xs[i], id(f))
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
			d := sigmoid(z) - ys[i]
			for _, k := range x {
				g[k] += d
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
	m := Model{W: make(map[string]float64, len(names)), Prior: float64(pos) / n}
	for k, f := range names {
		if w[k] != 0 {
			m.W[f] = w[k]
		}
	}
	return m, nil
}
