package names

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Model is a logistic regression over the characters of a run of text: it
// gives the log-odds that the run is a person's name (a full name, a given
// name alone, a clan or titled name as the histories write them) rather
// than the opening words of a clause. Its features are the run's first
// character (the surname of a full name), its last, its middle ones, every
// character whatever its place, and its two-character pieces; the weights
// are fitted on runs the corpus labels for free (Runs, Examples). The classes
// are weighted to count equally, so Score is a likelihood ratio in log
// form: the evidence of the characters alone, before any prior.
type Model struct {
	bias float64
	w    map[string]float64
	// byRune and byPair are w indexed for Score (index).
	once   sync.Once
	byRune [4]map[rune]float64
	byPair map[[2]rune]float64
}

// features are the feature names of a run: its first character, its
// last, its middle ones, every character whatever its place, and its
// two-character pieces.
func features(run []rune) []string {
	n := len(run)
	if n == 0 {
		return nil
	}
	out := make([]string, 0, 3*n+2)
	out = append(out, "f"+string(run[0]))
	if n >= 2 {
		out = append(out, "l"+string(run[n-1]))
	}
	for i := 1; i < n-1; i++ {
		out = append(out, "m"+string(run[i]))
	}
	for i := range n {
		out = append(out, "c"+string(run[i]))
	}
	for i := 0; i+1 < n; i++ {
		out = append(out, "b"+string(run[i:i+2]))
	}
	return out
}

// Score returns the log-odds that run is a name, from its characters.
func (m *Model) Score(run []rune) float64 {
	if m == nil || len(run) == 0 {
		return 0
	}
	m.index()
	n := len(run)
	s := m.bias + m.byRune[0][run[0]]
	if n >= 2 {
		s += m.byRune[1][run[n-1]]
	}
	for i := 1; i < n-1; i++ {
		s += m.byRune[2][run[i]]
	}
	for i := range n {
		s += m.byRune[3][run[i]]
	}
	for i := 0; i+1 < n; i++ {
		s += m.byPair[[2]rune{run[i], run[i+1]}]
	}
	return s
}

// index builds, once, the weights by character (by feature kind: f, l,
// m, c) and by pair of characters (b) that Score reads without making
// the feature names.
func (m *Model) index() {
	m.once.Do(func() {
		for k := range m.byRune {
			m.byRune[k] = map[rune]float64{}
		}
		m.byPair = map[[2]rune]float64{}
		for f, w := range m.w {
			rs := []rune(f[1:])
			switch k := strings.IndexByte("flmc", f[0]); {
			case k >= 0 && len(rs) == 1:
				m.byRune[k][rs[0]] = w
			case f[0] == 'b' && len(rs) == 2:
				m.byPair[[2]rune{rs[0], rs[1]}] = w
			}
		}
	})
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// Example is a run of text labelled a name or not; Group says which
// volume it comes from, so cross-validation keeps a volume's runs in one
// fold.
type Example struct {
	Run   []rune
	Name  bool
	Group string
}

// FitOptions tune Fit. The zero value means the defaults.
type FitOptions struct {
	// L2 is the weight of the squared-norm penalty, per example.
	// Default 1e-4.
	L2 float64
	// Epochs over the examples. Default 30.
	Epochs int
	// MinCount is how many examples a feature must occur in to get a
	// weight. Default 3.
	MinCount int
}

func (o FitOptions) withDefaults() FitOptions {
	if o.L2 <= 0 {
		o.L2 = 1e-4
	}
	if o.Epochs <= 0 {
		o.Epochs = 30
	}
	if o.MinCount <= 0 {
		o.MinCount = 3
	}
	return o
}

// Fit fits a model on examples by stochastic gradient descent with
// AdaGrad steps, the examples visited in their order every epoch, each
// class weighted by the inverse of its size: the fit is deterministic.
func Fit(examples []Example, opts FitOptions) *Model {
	opts = opts.withDefaults()
	var pos, neg int
	for _, e := range examples {
		if e.Name {
			pos++
		} else {
			neg++
		}
	}
	m := &Model{w: map[string]float64{}}
	if pos == 0 || neg == 0 {
		return m
	}
	total := float64(pos + neg)
	wPos, wNeg := total/(2*float64(pos)), total/(2*float64(neg))
	// Features become indices once: the epochs then work on slices.
	index := map[string]int{}
	var names []string
	count := []int{}
	feats := make([][]int, len(examples))
	for i, e := range examples {
		for _, f := range features(e.Run) {
			k, ok := index[f]
			if !ok {
				k = len(names)
				index[f] = k
				names = append(names, f)
				count = append(count, 0)
			}
			count[k]++
			feats[i] = append(feats[i], k)
		}
	}
	for i, fs := range feats {
		feats[i] = slices.DeleteFunc(fs, func(k int) bool { return count[k] < opts.MinCount })
	}
	w := make([]float64, len(names))
	g2 := make([]float64, len(names))
	var bias, bias2 float64
	const rate = 0.5
	for range opts.Epochs {
		for i, e := range examples {
			s := bias
			for _, k := range feats[i] {
				s += w[k]
			}
			y, cw := 0.0, wNeg
			if e.Name {
				y, cw = 1, wPos
			}
			g := cw * (sigmoid(s) - y)
			bias2 += g * g
			bias -= rate * g / math.Sqrt(bias2+1e-8)
			for _, k := range feats[i] {
				gf := g + opts.L2*w[k]
				g2[k] += gf * gf
				w[k] -= rate * gf / math.Sqrt(g2[k]+1e-8)
			}
		}
	}
	m.bias = bias
	for k, x := range w {
		if math.Abs(x) >= pruneBelow {
			m.w[names[k]] = x
		}
	}
	return m
}

// pruneBelow drops weights too small to matter from a fitted model, so
// the written model holds only what decides.
const pruneBelow = 0.01

// Metrics are a model's scores on labelled runs, at log-odds 0.
type Metrics struct {
	Names, Others int
	// NameRecall is the share of names scored above 0, OtherRecall the
	// share of other runs scored below; Accuracy their mean (balanced).
	NameRecall, OtherRecall, Accuracy float64
	// LogLoss is the class-weighted mean negative log-likelihood.
	LogLoss float64
}

// metricsOf are the metrics of scores given to examples.
func metricsOf(examples []Example, scores []float64) Metrics {
	var r Metrics
	var namesOK, othersOK int
	var lossN, lossO float64
	for i, e := range examples {
		p := min(max(sigmoid(scores[i]), 1e-9), 1-1e-9)
		if e.Name {
			r.Names++
			lossN -= math.Log(p)
			if p > 0.5 {
				namesOK++
			}
		} else {
			r.Others++
			lossO -= math.Log(1 - p)
			if p < 0.5 {
				othersOK++
			}
		}
	}
	if r.Names > 0 {
		r.NameRecall = float64(namesOK) / float64(r.Names)
		lossN /= float64(r.Names)
	}
	if r.Others > 0 {
		r.OtherRecall = float64(othersOK) / float64(r.Others)
		lossO /= float64(r.Others)
	}
	r.Accuracy = (r.NameRecall + r.OtherRecall) / 2
	r.LogLoss = (lossN + lossO) / 2
	return r
}

func weight(x float64) string {
	s := strconv.FormatFloat(x, 'f', 4, 64)
	if s == "-0.0000" {
		s = "0.0000"
	}
	return s
}
