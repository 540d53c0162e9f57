package names

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Judge says whether a run of a document is a person's name. It weighs
// two things, as naive Bayes does:
//
//   - the evidence of the run itself: a logistic regression over the
//     character model's score and the document's evidence (recurrence,
//     the run written as a given name, a presented name it begins with,
//     the listings' characters), fitted on the labelled runs (Runs) with
//     the two classes weighted equally, so that its score is the log of
//     how much likelier the evidence is for a name than for the opening
//     words of a clause;
//   - what the words after the run say (its context, Doc.context): the
//     log of how much more often the context follows the labelled names
//     than the other runs, counted with one added to each count. A
//     courtesy name or a native place follows names and hardly anything
//     else; nothing that presents a person follows most other runs.
//
// A run is a name when the two sum above 0: even odds before the
// evidence.
type Judge struct {
	chars *Model
	lex   Lexicon
	// surnames counts the characters the corpus writes as surnames: the
	// first characters of the names it labels that are written in full
	// (of three characters, or of two among a listing's main names,
	// without a compound surname), and of the listed names written after
	// an office.
	surnames Lexicon
	bias     float64
	w        [nFeatures]float64
	prior    [nContexts]float64
}

// maxChars bounds the character score the judge reads, so that a long run
// does not outweigh all other evidence by its length alone.
const maxChars = 12

// Score returns the judge's log-likelihood ratio for run, written in d at
// p: the evidence of the run itself.
func (j *Judge) Score(d *Doc, run []rune, p int) float64 {
	f := d.features(run, p, j.chars, j.lex)
	return j.logit(&f)
}

// Named reports whether the judge takes run, written in d at p and
// followed at e by "，", "者，", "、" and more names, or a courtesy name,
// for a person's name.
func (j *Judge) Named(d *Doc, run []rune, p, e int) bool {
	return len(run) > 0 && j.Score(d, run, p)+j.prior[d.context(e)] > 0
}

func (j *Judge) logit(f *[nFeatures]float64) float64 {
	s := j.bias
	for k := range nFeatures {
		s += j.w[k] * f[k]
	}
	return s
}

// Surname returns how often the corpus writes r as a surname.
func (j *Judge) Surname(r rune) int { return j.surnames[r] }

// Chars returns the character model.
func (j *Judge) Chars() *Model { return j.chars }

func clip(x float64) float64 { return max(-maxChars, min(maxChars, x)) }

// JudgeReport is what FitJudge measured out of fold.
type JudgeReport struct {
	// Chars are the character model's figures at log-odds 0.
	Chars Metrics
	// Names and Others count the labelled runs; NamesKept is the share of
	// names the judge takes for names, OthersTurned the share of other
	// runs it turns down; Weak counts the names and others whose context
	// does not present a person, and WeakKept, WeakTurned are the same
	// shares among them.
	Names, Others, WeakNames, WeakOthers int
	NamesKept, OthersTurned              float64
	WeakKept, WeakTurned                 float64
	// Prior is the log-likelihood ratio of each context.
	Prior [nContexts]float64
}

func (r JudgeReport) String() string {
	return fmt.Sprintf("characters: names %d others %d, name recall %.4f, other recall %.4f, balanced accuracy %.4f, log loss %.4f; "+
		"judge: names kept %.4f, others turned down %.4f; without presenting words: names %d kept %.4f, others %d turned down %.4f; "+
		"contexts: %s",
		r.Chars.Names, r.Chars.Others, r.Chars.NameRecall, r.Chars.OtherRecall, r.Chars.Accuracy, r.Chars.LogLoss,
		r.NamesKept, r.OthersTurned, r.WeakNames, r.WeakKept, r.WeakOthers, r.WeakTurned, r.contexts())
}

func (r JudgeReport) contexts() string {
	var out []string
	for c, name := range contextNames {
		out = append(out, fmt.Sprintf("%s %.4f", name, r.Prior[c]))
	}
	return strings.Join(out, ", ")
}

// FitJudge fits the character model and the judge on the labelled runs
// with k folds by group (volume); lex has the lexicon of each group's
// listing, surnames the surnames the volumes write after offices
// (Words.Surnames), to which the labelled full names add theirs. The report and the priors are out of fold, and the evidence
// weights learn from character scores and lexicons given out of fold, as
// they meet them on new text.
func FitJudge(runs []Run, lex map[string]Lexicon, surnames Lexicon, k int, opts FitOptions) (*Judge, JudgeReport) {
	var lab []Run
	for _, r := range runs {
		if r.Label != Unknown {
			lab = append(lab, r)
		}
	}
	examples := Examples(lab)
	fold := folds(examples, k)
	models := make([]*Model, k)
	for f := range k {
		var train []Example
		for _, e := range examples {
			if fold[e.Group] != f {
				train = append(train, e)
			}
		}
		models[f] = Fit(train, opts)
	}
	lexicons := make([]Lexicon, k)
	whole := Lexicon{}
	for f := range k {
		lexicons[f] = Lexicon{}
	}
	for g, l := range lex {
		for r, n := range l {
			whole[r] += n
			for f := range k {
				if fold[g] != f {
					lexicons[f][r] += n
				}
			}
		}
	}
	feats := make([][nFeatures]float64, len(lab))
	charScores := make([]float64, len(lab))
	ctx := make([]int, len(lab))
	for i, r := range lab {
		m := models[fold[r.Group]]
		feats[i] = r.Doc.features(r.Run, r.At, m, lexicons[fold[r.Group]])
		charScores[i] = m.Score(r.Run)
		ctx[i] = r.Doc.context(r.End)
	}
	rep := JudgeReport{Chars: metricsOf(examples, charScores)}
	scores := make([]float64, len(lab))
	for f := range k {
		var tr []int
		for i, r := range lab {
			if fold[r.Group] != f {
				tr = append(tr, i)
			}
		}
		j := fitLinear(feats, lab, tr)
		for i, r := range lab {
			if fold[r.Group] == f {
				scores[i] = j.logit(&feats[i])
			}
		}
	}
	prior := contextPriors(lab, ctx)
	rep.Prior = prior
	var kept, turned, weakKept, weakTurned int
	for i, r := range lab {
		named := scores[i]+prior[ctx[i]] > 0
		weak := ctx[i] != ctxCourtesy && ctx[i] != ctxPresents
		if r.Label == Name {
			rep.Names++
			kept += b2i(named)
			if weak {
				rep.WeakNames++
				weakKept += b2i(named)
			}
		} else {
			rep.Others++
			turned += b2i(!named)
			if weak {
				rep.WeakOthers++
				weakTurned += b2i(!named)
			}
		}
	}
	rep.NamesKept, rep.OthersTurned = ratio(kept, rep.Names), ratio(turned, rep.Others)
	rep.WeakKept, rep.WeakTurned = ratio(weakKept, rep.WeakNames), ratio(weakTurned, rep.WeakOthers)
	all := make([]int, len(lab))
	for i := range all {
		all[i] = i
	}
	j := fitLinear(feats, lab, all)
	j.chars, j.prior, j.lex = Fit(examples, opts), prior, whole
	j.surnames = Lexicon{}
	for r, n := range surnames {
		j.surnames[r] = n
	}
	for _, r := range lab {
		if r.Label == Name && (len(r.Run) == 3 || len(r.Run) == 2 && r.Main) && !r.Doc.compound(r.Run) {
			j.surnames[r.Run[0]]++
		}
	}
	return j, rep
}

// contextPriors are the log-likelihood ratios of the contexts: how much
// more often each follows the labelled names than the other runs, with
// one added to every count.
func contextPriors(runs []Run, ctx []int) [nContexts]float64 {
	var names, others [nContexts]float64
	var nNames, nOthers float64
	for i, r := range runs {
		if r.Label == Name {
			names[ctx[i]]++
			nNames++
		} else {
			others[ctx[i]]++
			nOthers++
		}
	}
	var out [nContexts]float64
	for c := range nContexts {
		out[c] = math.Log((names[c]+1)/(nNames+nContexts)) - math.Log((others[c]+1)/(nOthers+nContexts))
	}
	return out
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// folds assigns the groups of examples to k folds, in sorted order, round
// robin.
func folds(examples []Example, k int) map[string]int {
	var groups []string
	seen := map[string]bool{}
	for _, e := range examples {
		if !seen[e.Group] {
			seen[e.Group] = true
			groups = append(groups, e.Group)
		}
	}
	sort.Strings(groups)
	fold := map[string]int{}
	for i, g := range groups {
		fold[g] = i % k
	}
	return fold
}

// judgeEpochs is how many times fitLinear visits the runs.
const judgeEpochs = 20

// fitLinear fits names against other runs on the runs at idx by
// stochastic gradient descent with AdaGrad steps, in order, each class
// weighted by the inverse of its size.
func fitLinear(feats [][nFeatures]float64, runs []Run, idx []int) *Judge {
	var pos, neg int
	for _, i := range idx {
		if runs[i].Label == Name {
			pos++
		} else {
			neg++
		}
	}
	j := &Judge{}
	if pos == 0 || neg == 0 {
		return j
	}
	total := float64(pos + neg)
	wPos, wNeg := total/(2*float64(pos)), total/(2*float64(neg))
	var g2 [nFeatures]float64
	var bias2 float64
	const rate = 0.1
	for range judgeEpochs {
		for _, i := range idx {
			p := sigmoid(j.logit(&feats[i]))
			y, cw := 0.0, wNeg
			if runs[i].Label == Name {
				y, cw = 1, wPos
			}
			g := cw * (p - y)
			bias2 += g * g
			j.bias -= rate * g / math.Sqrt(bias2+1e-8)
			for k := range nFeatures {
				v := feats[i][k]
				if v == 0 {
					continue
				}
				gk := g * v
				g2[k] += gk * gk
				j.w[k] -= rate * gk / math.Sqrt(g2[k]+1e-8)
			}
		}
	}
	return j
}
