package quotes

import "math"

// Example is one candidate of a fitting query: its features and whether
// it fits (it carries the query's tag).
type Example struct {
	X     []float64
	Fits  bool
	Group string
}

// Fit fits the weights of a logistic model on examples by gradient
// descent on the mean log loss plus l2 times the squared weights (the
// bias is not penalised), with the positives and the negatives weighted
// equally so a rare tag's few fitting quotations count. lambda is kept as
// given.
func Fit(examples []Example, l2, lambda float64) Model {
	d := len(FeatureNames)
	m := Model{Weights: make([]float64, d), Lambda: lambda}
	pos := 0
	for _, e := range examples {
		if e.Fits {
			pos++
		}
	}
	if pos == 0 || pos == len(examples) {
		return m
	}
	wPos, wNeg := 0.5/float64(pos), 0.5/float64(len(examples)-pos)
	const iters, rate = 3000, 0.5
	grad := make([]float64, d)
	for it := 0; it < iters; it++ {
		gb := 0.0
		for i := range grad {
			grad[i] = 2 * l2 * m.Weights[i]
		}
		for _, e := range examples {
			w, y := wNeg, 0.0
			if e.Fits {
				w, y = wPos, 1
			}
			g := w * (m.Prob(e.X) - y)
			gb += g
			for i, x := range e.X {
				grad[i] += g * x
			}
		}
		m.Bias -= rate * gb
		for i := range grad {
			m.Weights[i] -= rate * grad[i]
		}
	}
	return m
}

// LogLoss is the mean log loss of m on examples, positives and negatives
// weighted equally as in Fit.
func LogLoss(m Model, examples []Example) float64 {
	var sum [2]float64
	var n [2]int
	for _, e := range examples {
		p := math.Min(math.Max(m.Prob(e.X), 1e-12), 1-1e-12)
		if e.Fits {
			sum[1] -= math.Log(p)
			n[1]++
		} else {
			sum[0] -= math.Log(1 - p)
			n[0]++
		}
	}
	loss := 0.0
	for k := range sum {
		if n[k] > 0 {
			loss += 0.5 * sum[k] / float64(n[k])
		}
	}
	return loss
}
