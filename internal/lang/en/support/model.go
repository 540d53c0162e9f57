package support

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Labels of a judgement.
const (
	// Complete: the evidence states everything the claim says.
	Complete = "complete"
	// Partial: the evidence carries some of the claim's content.
	Partial = "partial"
	// Missing: no passage carries the claim's content.
	Missing = "missing"
)

// Model is the fitted judge: a logistic model over the features (each
// standardised by the mean and deviation of the fitting data) giving the
// probability that the evidence supports the claim completely, and the
// two cuts of that probability between the labels.
type Model struct {
	// Names are the features, in the order of FeatureNames.
	Names []string
	// Mean and SD standardise each feature before it is weighted.
	Mean, SD []float64
	// Weights are the feature weights; Bias the intercept.
	Weights []float64
	Bias    float64
	// CutComplete is the least score read as complete; CutMissing the
	// score below which the evidence is read as missing.
	CutComplete, CutMissing float64
}

// Score is the probability, under m, that the evidence of features f
// supports its claim completely.
func (m *Model) Score(f []float64) float64 {
	z := m.Bias
	for i, w := range m.Weights {
		sd := m.SD[i]
		if sd == 0 {
			sd = 1
		}
		z += w * (f[i] - m.Mean[i]) / sd
	}
	return sigmoid(z)
}

// Label reads a score as a label by the model's cuts.
func (m *Model) Label(score float64) string {
	switch {
	case score >= m.CutComplete:
		return Complete
	case score < m.CutMissing:
		return Missing
	}
	return Partial
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// Write writes m as the model file: the header lines, each prefixed with
// "# ", then one tab-separated row per feature (feature, name, mean,
// deviation, weight), the bias and the two cuts.
func (m *Model) Write(w io.Writer, header ...string) error {
	bw := bufio.NewWriter(w)
	for _, h := range header {
		fmt.Fprintf(bw, "# %s\n", h)
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 6, 64) }
	for i, n := range m.Names {
		fmt.Fprintf(bw, "feature\t%s\t%s\t%s\t%s\n", n, f(m.Mean[i]), f(m.SD[i]), f(m.Weights[i]))
	}
	fmt.Fprintf(bw, "bias\t%s\n", f(m.Bias))
	fmt.Fprintf(bw, "cut\t%s\t%s\n", Complete, f(m.CutComplete))
	fmt.Fprintf(bw, "cut\t%s\t%s\n", Missing, f(m.CutMissing))
	return bw.Flush()
}

// ReadModel reads a model file Write wrote. Its features must be those of
// FeatureNames, in order.
func ReadModel(r io.Reader) (*Model, error) {
	m := &Model{}
	sc := bufio.NewScanner(r)
	line := 0
	cuts := 0
	hasBias := false
	for sc.Scan() {
		line++
		s := sc.Text()
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		fs := strings.Split(s, "\t")
		nums := make([]float64, 0, 3)
		bad := func(why string) error { return fmt.Errorf("model line %d: %s: %q", line, why, s) }
		start := map[string]int{"feature": 2, "bias": 1, "cut": 2}[fs[0]]
		if start == 0 {
			return nil, bad("unknown row")
		}
		for _, x := range fs[min(start, len(fs)):] {
			v, err := strconv.ParseFloat(x, 64)
			if err != nil {
				return nil, bad("not a number")
			}
			nums = append(nums, v)
		}
		switch fs[0] {
		case "feature":
			if len(fs) != 5 {
				return nil, bad("want feature, name, mean, deviation, weight")
			}
			m.Names = append(m.Names, fs[1])
			m.Mean = append(m.Mean, nums[0])
			m.SD = append(m.SD, nums[1])
			m.Weights = append(m.Weights, nums[2])
		case "bias":
			if len(fs) != 2 {
				return nil, bad("want bias, value")
			}
			m.Bias, hasBias = nums[0], true
		case "cut":
			if len(fs) != 3 {
				return nil, bad("want cut, label, value")
			}
			switch fs[1] {
			case Complete:
				m.CutComplete = nums[0]
			case Missing:
				m.CutMissing = nums[0]
			default:
				return nil, bad("unknown cut")
			}
			cuts++
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if strings.Join(m.Names, ",") != strings.Join(FeatureNames, ",") {
		return nil, fmt.Errorf("model features %v, want %v", m.Names, FeatureNames)
	}
	if !hasBias || cuts != 2 {
		return nil, fmt.Errorf("model: want a bias row and both cuts")
	}
	return m, nil
}

// Example is one claim of the fitting data: its features, its gold label
// and its group (the question it answers; a group's examples share a
// cross-validation fold).
type Example struct {
	Features []float64
	Label    string
	Group    string
}

// FitOptions are the options of Fit.
type FitOptions struct {
	// L2 is the ridge penalty on the standardised weights.
	L2 float64
	// Folds is the number of cross-validation folds (by group).
	Folds int
}

// Figures are the scores of complete-against-the-rest decisions.
type Figures struct {
	Examples int `json:"examples"`
	Complete int `json:"complete"`
	// Agreement is the share of examples decided as the gold says;
	// BalancedAccuracy the mean of the two classes' recalls.
	Agreement        float64 `json:"agreement"`
	BalancedAccuracy float64 `json:"balanced_accuracy"`
	RecallComplete   float64 `json:"recall_complete"`
	RecallOther      float64 `json:"recall_other"`
	LogLoss          float64 `json:"log_loss"`
	// MissingRecall and MissingPrecision score the missing label
	// against the gold's missing examples.
	MissingRecall    float64 `json:"missing_recall"`
	MissingPrecision float64 `json:"missing_precision"`
}

func (f Figures) String() string {
	return fmt.Sprintf("examples %d (complete %d), agreement %.4f, balanced accuracy %.4f, recall complete %.4f, recall other %.4f, log loss %.4f, missing recall %.4f precision %.4f",
		f.Examples, f.Complete, f.Agreement, f.BalancedAccuracy, f.RecallComplete, f.RecallOther, f.LogLoss, f.MissingRecall, f.MissingPrecision)
}

// score scores the decisions on examples: scores are the probabilities
// of complete, saidComplete and saidMissing the labels given.
func score(ex []Example, scores []float64, saidComplete, saidMissing []bool) Figures {
	var f Figures
	f.Examples = len(ex)
	var tp, tn, nNeg, gm, pm, both int
	for i, e := range ex {
		p := scores[i]
		pos := e.Label == Complete
		if pos {
			f.Complete++
			f.LogLoss -= math.Log(math.Max(p, 1e-12))
			if saidComplete[i] {
				tp++
			}
		} else {
			nNeg++
			f.LogLoss -= math.Log(math.Max(1-p, 1e-12))
			if !saidComplete[i] {
				tn++
			}
		}
		gold, said := e.Label == Missing, saidMissing[i]
		if gold {
			gm++
		}
		if said {
			pm++
		}
		if gold && said {
			both++
		}
	}
	if f.Examples > 0 {
		f.Agreement = float64(tp+tn) / float64(f.Examples)
		f.LogLoss /= float64(f.Examples)
	}
	f.RecallComplete = ratio(tp, f.Complete)
	f.RecallOther = ratio(tn, nNeg)
	f.BalancedAccuracy = (f.RecallComplete + f.RecallOther) / 2
	f.MissingRecall, f.MissingPrecision = ratio(both, gm), ratio(both, pm)
	return f
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// FitReport is what Fit measured out of fold.
type FitReport struct {
	// OutOfFold scores each example by the model fitted without its
	// fold, at the cuts chosen on the other folds.
	OutOfFold Figures
	Folds     int
}

func (r FitReport) String() string { return r.OutOfFold.String() }

// Fit fits the model on ex and measures it by cross-validation with
// opts.Folds folds by group: the reported figures decide each example by
// a model and cuts fitted without its fold. The cuts of the returned
// model are chosen on the out-of-fold scores: the complete cut maximises
// the balanced accuracy of complete against the rest, the missing cut
// that of missing against the rest (never above the complete cut).
func Fit(ex []Example, opts FitOptions) (*Model, FitReport) {
	folds := max(opts.Folds, 2)
	fold := make([]int, len(ex))
	for i, e := range ex {
		h := fnv.New64a()
		h.Write([]byte(e.Group))
		fold[i] = int(h.Sum64() % uint64(folds))
	}
	oof := make([]float64, len(ex))
	saidComplete := make([]bool, len(ex))
	saidMissing := make([]bool, len(ex))
	for k := range folds {
		var train []Example
		for i, e := range ex {
			if fold[i] != k {
				train = append(train, e)
			}
		}
		m := fitLogistic(train, opts.L2)
		trainScores := make([]float64, len(train))
		for i, e := range train {
			trainScores[i] = m.Score(e.Features)
		}
		m.CutComplete, m.CutMissing = chooseCuts(train, trainScores)
		for i, e := range ex {
			if fold[i] == k {
				oof[i] = m.Score(e.Features)
				saidComplete[i] = m.Label(oof[i]) == Complete
				saidMissing[i] = m.Label(oof[i]) == Missing
			}
		}
	}
	m := fitLogistic(ex, opts.L2)
	m.CutComplete, m.CutMissing = chooseCuts(ex, oof)
	return m, FitReport{OutOfFold: score(ex, oof, saidComplete, saidMissing), Folds: folds}
}

// chooseCuts chooses the complete cut and the missing cut on scores.
func chooseCuts(ex []Example, scores []float64) (complete, missing float64) {
	complete = bestCut(ex, scores, func(e Example) bool { return e.Label == Complete }, 1)
	missing = bestCut(ex, scores, func(e Example) bool { return e.Label == Missing }, -1)
	if missing > complete {
		missing = complete
	}
	return complete, missing
}

// bestCut is the cut between two sorted scores that maximises the
// balanced accuracy of pos against the rest, pos being above the cut
// (dir 1) or below it (dir -1).
func bestCut(ex []Example, scores []float64, pos func(Example) bool, dir int) float64 {
	idx := make([]int, len(ex))
	nPos := 0
	for i := range idx {
		idx[i] = i
		if pos(ex[i]) {
			nPos++
		}
	}
	nNeg := len(ex) - nPos
	if nPos == 0 || nNeg == 0 {
		if dir > 0 {
			return 0.5
		}
		return 0
	}
	sort.Slice(idx, func(a, b int) bool { return scores[idx[a]] < scores[idx[b]] })
	// Walking up: below holds the examples under the cut.
	posBelow, negBelow := 0, 0
	best, bestCut := -1.0, 0.0
	for k := 0; k <= len(idx); k++ {
		if k == 0 || k == len(idx) || scores[idx[k]] != scores[idx[k-1]] {
			var cut float64
			switch {
			case k == 0:
				cut = scores[idx[0]] / 2
			case k == len(idx):
				cut = (scores[idx[k-1]] + 1) / 2
			default:
				cut = (scores[idx[k-1]] + scores[idx[k]]) / 2
			}
			var ba float64
			if dir > 0 {
				ba = (float64(nPos-posBelow)/float64(nPos) + float64(negBelow)/float64(nNeg)) / 2
			} else {
				ba = (float64(posBelow)/float64(nPos) + float64(nNeg-negBelow)/float64(nNeg)) / 2
			}
			if ba > best {
				best, bestCut = ba, cut
			}
		}
		if k < len(idx) {
			if pos(ex[idx[k]]) {
				posBelow++
			} else {
				negBelow++
			}
		}
	}
	return bestCut
}

// fitLogistic fits standardised logistic regression of complete against
// the rest by Newton's method with a ridge penalty l2 (not on the bias).
func fitLogistic(ex []Example, l2 float64) *Model {
	d := len(FeatureNames)
	m := &Model{Names: append([]string(nil), FeatureNames...), Mean: make([]float64, d), SD: make([]float64, d), Weights: make([]float64, d)}
	n := float64(len(ex))
	for _, e := range ex {
		for j := range d {
			m.Mean[j] += e.Features[j] / n
		}
	}
	for _, e := range ex {
		for j := range d {
			x := e.Features[j] - m.Mean[j]
			m.SD[j] += x * x / n
		}
	}
	for j := range d {
		m.SD[j] = math.Sqrt(m.SD[j])
		if m.SD[j] < 1e-9 {
			m.SD[j] = 1
		}
	}
	xs := make([][]float64, len(ex))
	ys := make([]float64, len(ex))
	for i, e := range ex {
		x := make([]float64, d+1)
		x[0] = 1
		for j := range d {
			x[j+1] = (e.Features[j] - m.Mean[j]) / m.SD[j]
		}
		xs[i] = x
		if e.Label == Complete {
			ys[i] = 1
		}
	}
	beta := make([]float64, d+1)
	for range 50 {
		g := make([]float64, d+1)
		h := make([][]float64, d+1)
		for a := range h {
			h[a] = make([]float64, d+1)
		}
		for i, x := range xs {
			z := 0.0
			for a := range x {
				z += beta[a] * x[a]
			}
			p := sigmoid(z)
			w := p * (1 - p)
			for a := range x {
				g[a] += (p - ys[i]) * x[a]
				for b := range x {
					h[a][b] += w * x[a] * x[b]
				}
			}
		}
		for a := 1; a <= d; a++ {
			g[a] += l2 * n * beta[a]
			h[a][a] += l2 * n
		}
		h[0][0] += 1e-9
		step := solve(h, g)
		change := 0.0
		for a := range beta {
			beta[a] -= step[a]
			change = math.Max(change, math.Abs(step[a]))
		}
		if change < 1e-9 {
			break
		}
	}
	m.Bias = beta[0]
	copy(m.Weights, beta[1:])
	return m
}

// solve solves a x = b by Gaussian elimination with partial pivoting.
func solve(a [][]float64, b []float64) []float64 {
	n := len(b)
	m := make([][]float64, n)
	for i := range a {
		m[i] = append(append([]float64(nil), a[i]...), b[i])
	}
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		m[c], m[p] = m[p], m[c]
		if math.Abs(m[c][c]) < 1e-12 {
			continue
		}
		for r := c + 1; r < n; r++ {
			f := m[r][c] / m[c][c]
			for k := c; k <= n; k++ {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		if math.Abs(m[r][r]) < 1e-12 {
			continue
		}
		s := m[r][n]
		for k := r + 1; k < n; k++ {
			s -= m[r][k] * x[k]
		}
		x[r] = s / m[r][r]
	}
	return x
}
