package discourse

import (
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/annalist-dev/annalist/schemas"
)

// SelectBackground returns the indices, in ascending order, of the
// background paragraphs that support the discussion: what an outsider
// needs to follow it (KGDS's BSP task). g may be nil; then the graph's
// evidence is left out. Paragraphs are taken in the order of their
// indices, whatever the order of d.Background.
//
// Each paragraph gets a support score from the discussion:
//
//   - lexical: the content words (stemmed, stop words and opinion
//     scaffolding dropped) that the paragraph shares with the turns, each
//     weighted by its IDF over the discussion's own paragraphs, so that a
//     word every paragraph uses says little about which one the
//     participants talk about; the sum of the shared words' squared
//     weights over the norm of the paragraph's (a cosine against the
//     turns' vocabulary);
//   - per turn: the same cosine against each turn's words alone, over
//     that turn's best match, the best over the turns: each turn argues
//     about a paragraph or two, which the turns' pooled vocabulary can
//     bury under the paragraphs on the story's protagonist; this evidence
//     counts as much as the pooled one (both scaled to a maximum of one);
//   - entities: the background entities the turns name, by name or alias
//     (the graph), each credited to the paragraphs that mention it,
//     weighted by how few do; this evidence counts a quarter of the
//     two lexical ones together (their sum scaled to a maximum of one).
//
// Pronouns resolved to the background's most salient entities are left
// out of the evidence: they point at the paragraphs that mention the
// story's protagonist, which are most of them.
//
// Supporting paragraphs come in runs (a quote and the sentence that
// introduces it), so a paragraph gets a quarter of the amount by which
// its better neighbour outscores it. The size of the selection comes from
// the shape of the scores, not from a count: the sorted scores are split
// into a high and a low class with the least within-class variance
// (Otsu's rule), and the high class is selected. Then a paragraph between
// two selected ones joins their run, and the lead paragraph joins when
// the paragraph after it is selected, since that paragraph continues the
// lead's report. A discussion that shares nothing with its background
// gets the lead paragraph alone: the story it is about.
func SelectBackground(d schemas.Discussion, g *Graph) []int {
	n := len(d.Background)
	if n == 0 {
		return nil
	}
	if !slices.IsSortedFunc(d.Background, byIndex) {
		d.Background = slices.SortedStableFunc(slices.Values(d.Background), byIndex)
	}
	if n <= 2 {
		out := make([]int, 0, n)
		for _, p := range d.Background {
			out = append(out, p.Index)
		}
		return out
	}
	return selectByShape(d, backgroundScores(d, g))
}

func byIndex(a, b schemas.Paragraph) int { return a.Index - b.Index }

// entityWeight and turnWeight are the weights of the entity evidence and
// of the per-turn evidence against the lexical evidence of the turns
// together, each scaled to a maximum of one.
const (
	entityWeight = 0.25
	turnWeight   = 1.0
)

// backgroundScores is the support score of each paragraph, in the order
// of d.Background.
func backgroundScores(d schemas.Discussion, g *Graph) []float64 {
	n := len(d.Background)
	paraTerms := make([]map[string]int, n)
	df := map[string]int{}
	for i, p := range d.Background {
		paraTerms[i] = bgTerms(p.Text)
		for w := range paraTerms[i] {
			df[w]++
		}
	}
	turnTerms := map[string]int{}
	for _, t := range d.Turns {
		for w, c := range bgTerms(t.Utterance) {
			turnTerms[w] += c
		}
	}
	idf := func(w string) float64 {
		return math.Log(1 + float64(n)/float64(df[w]))
	}
	scores := make([]float64, n)
	for i := range d.Background {
		var shared, mass float64
		for w := range paraTerms[i] {
			x := idf(w)
			mass += x * x
			if turnTerms[w] > 0 {
				shared += x * x
			}
		}
		if mass > 0 {
			scores[i] = shared / math.Sqrt(mass)
		}
	}
	// A turn argues about one or two paragraphs; the turns together share
	// words with many, so each turn's own best matches are evidence too.
	scores = addScaled(scores, turnScores(d, paraTerms, idf), turnWeight)
	if g != nil {
		// Names are rarer in the turns than the words they share with the
		// paragraphs, and a name the turns use may be in every paragraph;
		// the lexical evidence leads, the names break its ties.
		scores = addScaled(scores, entityScores(d, g), entityWeight)
	}
	return smoothRuns(scores)
}

// turnScores is, for each paragraph, the best of its matches with single
// turns: the same IDF-weighted cosine as the lexical evidence, against one
// turn's words, over that turn's best match. A paragraph that one turn
// rests on scores one even when the turns together share more words with
// the paragraphs on the story's protagonist.
func turnScores(d schemas.Discussion, paraTerms []map[string]int, idf func(string) float64) []float64 {
	n := len(paraTerms)
	mass := make([]float64, n)
	for i, terms := range paraTerms {
		for w := range terms {
			x := idf(w)
			mass[i] += x * x
		}
	}
	out := make([]float64, n)
	sim := make([]float64, n)
	for _, t := range d.Turns {
		words := bgTerms(t.Utterance)
		best := 0.0
		for i, terms := range paraTerms {
			sim[i] = 0
			if mass[i] == 0 {
				continue
			}
			for w := range terms {
				if words[w] > 0 {
					x := idf(w)
					sim[i] += x * x
				}
			}
			sim[i] /= math.Sqrt(mass[i])
			best = math.Max(best, sim[i])
		}
		if best == 0 {
			continue
		}
		for i := range sim {
			out[i] = math.Max(out[i], sim[i]/best)
		}
	}
	return out
}

// entityScores credits each paragraph with the background entities the
// turns name, by name or alias (Graph.EntitiesIn): an entity counts once
// per turn that names it, and its credit to a paragraph that mentions it
// is weighted by how few paragraphs do (IDF over the paragraphs).
func entityScores(d schemas.Discussion, g *Graph) []float64 {
	n := len(d.Background)
	weight := map[*Entity]float64{}
	for _, t := range d.Turns {
		for _, e := range g.EntitiesIn(t.Utterance) {
			weight[e]++
		}
	}
	out := make([]float64, n)
	if len(weight) == 0 {
		return out
	}
	for i, p := range d.Background {
		for _, e := range g.ParagraphEntities(p.Index) {
			if w := weight[e]; w > 0 && len(e.Paragraphs) > 0 {
				out[i] += w * math.Log(1+float64(n)/float64(len(e.Paragraphs)))
			}
		}
	}
	return out
}

// addScaled adds b, scaled to a maximum of weight, to a scaled to a
// maximum of one.
func addScaled(a, b []float64, weight float64) []float64 {
	ma, mb := 0.0, 0.0
	for i := range a {
		ma, mb = math.Max(ma, a[i]), math.Max(mb, b[i])
	}
	out := make([]float64, len(a))
	for i := range a {
		if ma > 0 {
			out[i] += a[i] / ma
		}
		if mb > 0 {
			out[i] += weight * b[i] / mb
		}
	}
	return out
}

// smoothRuns gives each paragraph a share of its neighbours' support:
// its score plus a quarter of the amount by which the better neighbour
// outscores it.
func smoothRuns(s []float64) []float64 {
	out := make([]float64, len(s))
	for i := range s {
		nb := 0.0
		if i > 0 {
			nb = s[i-1]
		}
		if i+1 < len(s) && s[i+1] > nb {
			nb = s[i+1]
		}
		out[i] = s[i]
		if nb > s[i] {
			out[i] += (nb - s[i]) / 4
		}
	}
	return out
}

// selectByShape selects the high class of the scores (twoClassSplit),
// then fills runs and adds the lead (see SelectBackground).
func selectByShape(d schemas.Discussion, scores []float64) []int {
	n := len(scores)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
	top := scores[order[0]]
	if top <= 0 {
		return []int{d.Background[0].Index}
	}
	k := twoClassSplit(order, scores)
	sel := make([]bool, n)
	for _, i := range order[:k] {
		sel[i] = true
	}
	// A paragraph between two selected ones belongs to their run.
	for i := 1; i+1 < n; i++ {
		if sel[i-1] && sel[i+1] {
			sel[i] = true
		}
	}
	// The lead paragraph is what the paragraph after it continues.
	if sel[1] {
		sel[0] = true
	}
	out := make([]int, 0, k)
	for i, ok := range sel {
		if ok {
			out = append(out, d.Background[i].Index)
		}
	}
	slices.Sort(out)
	return out
}

// bgTerms counts the content words of a text, stemmed, as the turn's
// scope counts them (scopeTerms, without the word pairs and with bgStem
// alone): a compound also without its hyphen and by its words, an
// ordinal as its cardinal.
func bgTerms(text string) map[string]int {
	out := map[string]int{}
	for w, c := range termsOf(text, bgStem) {
		if !strings.Contains(w, " ") {
			out[w] += c
		}
	}
	return out
}

// bgWords splits a text into words: letters and digits, with inner
// apostrophes, hyphens and points kept ("grand-slam", "U.S.", "6-1").
func bgWords(text string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		w := strings.Trim(b.String(), "'’-.")
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		if w != "" {
			out = append(out, w)
		}
		b.Reset()
	}
	for _, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		case (r == '\'' || r == '’' || r == '-' || r == '.') && b.Len() > 0:
			b.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	return out
}

func bgIsNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return w != ""
}

// bgStem strips common English inflections so that "banned", "bans" and
// "ban" meet; it is deliberately light (no derivational suffixes).
func bgStem(w string) string {
	rs := []rune(w)
	if len(rs) <= 4 {
		return strings.TrimSuffix(w, "s")
	}
	for _, suf := range []struct{ from, to string }{
		{"ies", "y"}, {"ied", "y"}, {"ing", ""}, {"ed", ""}, {"es", ""}, {"s", ""}, {"ly", ""},
	} {
		if strings.HasSuffix(w, suf.from) && len(rs)-len([]rune(suf.from)) >= 3 {
			w = strings.TrimSuffix(w, suf.from) + suf.to
			break
		}
	}
	rs = []rune(w)
	if k := len(rs); k >= 4 && rs[k-1] == rs[k-2] && !strings.ContainsRune("aeiousl", rs[k-1]) {
		w = string(rs[:k-1])
	}
	if strings.HasSuffix(w, "e") && len([]rune(w)) > 4 {
		w = strings.TrimSuffix(w, "e")
	}
	return w
}

// bgStopWords are English function words and the discussion's own
// scaffolding (opinion verbs, hedges), which say nothing about which
// paragraph a turn rests on.
var bgStopWords = wordSet("bg_stop_words")

// twoClassSplit splits the scores, sorted in descending order, into a high
// and a low class with the least within-class variance (Otsu's rule) and
// returns the size of the high class.
func twoClassSplit(order []int, scores []float64) int {
	n := len(order)
	var total, totalSq float64
	for _, i := range order {
		total += scores[i]
		totalSq += scores[i] * scores[i]
	}
	k, best := 1, math.Inf(1)
	var sum, sq float64
	for j := 1; j < n; j++ {
		x := scores[order[j-1]]
		sum += x
		sq += x * x
		hiVar := sq - sum*sum/float64(j)
		loSum, loSq := total-sum, totalSq-sq
		loVar := loSq - loSum*loSum/float64(n-j)
		if v := hiVar + loVar; v < best {
			best, k = v, j
		}
	}
	return k
}
