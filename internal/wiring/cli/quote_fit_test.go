package cli

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/infra/embed"
	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"
	"github.com/annalist-dev/annalist/internal/lang/quotes"
)

var updateQuoteModel = flag.Bool("update-quotes", false, "refit internal/lang/quotes/data/rank.tsv from the development quotations and write it")

// Fitting options of the shipped ranking model: the L2 penalty, the
// weight of relevance against novelty (kept, not fitted), the number of
// folds by tag, and the share of non-fitting quotations kept per tag.
const (
	quoteFitL2       = 1e-3
	quoteFitLambda   = 0.7
	quoteFitFolds    = 5
	quoteFitNegEvery = 8
	// quoteFitCutPrecision is the precision the cut is chosen at: four in
	// five quotations a page prints fit its topic.
	quoteFitCutPrecision = 0.8
)

const quoteModelPath = "../../lang/quotes/data/rank.tsv"

// quoteDev are the development quotations (quotes.HeldOut false) of the
// evaluation collection.
func quoteDev(t *testing.T) []quotes.Record {
	t.Helper()
	dir := datasettest.Require(t, "quotes")
	f, err := os.Open(filepath.Join(dir, "quotable_quotes.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := quotes.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	var dev []quotes.Record
	for _, r := range recs {
		if r.Check() == nil && !quotes.HeldOut(r.ID) {
			dev = append(dev, r)
		}
	}
	return dev
}

// quoteExamples are the fitting examples of the development quotations:
// for every tag as the query, every quotation carrying it and one in
// quoteFitNegEvery of the others (by a hash of id and tag), each twice:
// with its tags visible, as an ingested tagged quotation, and with its
// tags hidden, as a quotation the collection does not tag, found by its
// words alone. Features are the finder's (quotes.Query.Features) with the
// offline embedder the system uses by default. all, when set, keeps every
// quotation (the ranking of a whole tag, for precision).
func quoteExamples(t *testing.T, dev []quotes.Record, tags []string, vecs map[string][]float32, all bool) map[string][]quotes.Example {
	t.Helper()
	byAuthor := map[string][]quotes.Record{}
	wordsOf := map[string]map[string]bool{}
	for _, r := range dev {
		byAuthor[r.Author] = append(byAuthor[r.Author], r)
		wordsOf[r.ID] = quotes.ContentWords(r.Content)
	}
	df := quotes.CountWords(slices.Collect(maps.Values(wordsOf)))
	out := map[string][]quotes.Example{}
	for _, tag := range tags {
		q := quotes.NewQuery(tag)
		topic := map[string]int{}
		for a, rs := range byAuthor {
			for _, r := range rs {
				if q.TagScore(r.Tags) > 0 {
					topic[a]++
				}
			}
		}
		var tagged []map[string]bool
		for _, r := range dev {
			if slices.Contains(r.Tags, tag) {
				tagged = append(tagged, wordsOf[r.ID])
			}
		}
		counts := quotes.CountWords(tagged)
		tw := quotes.TopicWords(counts, len(tagged), df, len(dev), nil)
		for _, r := range dev {
			fits := slices.Contains(r.Tags, tag)
			h := fnv.New32a()
			h.Write([]byte(r.ID + "\x00" + tag))
			if !fits && !all && h.Sum32()%quoteFitNegEvery != 0 {
				continue
			}
			c := quotes.Candidate{Text: r.Content, Author: r.Author, Tags: r.Tags, Vector: quotes.Cosine(vecs[tag], vecs[r.Content]),
				AuthorQuotes: len(byAuthor[r.Author]), AuthorTopic: topic[r.Author]}
			// The topic's words of the other tagged quotations, as the
			// finder reads them.
			if fits {
				c.Expansion = quotes.Expansion(wordsOf[r.ID], quotes.TopicWords(counts, len(tagged), df, len(dev), wordsOf[r.ID]))
			} else {
				c.Expansion = quotes.Expansion(wordsOf[r.ID], tw)
			}
			out[tag] = append(out[tag], quotes.Example{X: q.Features(c), Fits: fits, Group: tag})
			c.Tags = nil
			if q.TagScore(r.Tags) > 0 {
				c.AuthorTopic--
			}
			out[tag] = append(out[tag], quotes.Example{X: q.Features(c), Fits: fits, Group: "hidden:" + tag})
		}
	}
	return out
}

// quoteFit is the fit of the ranking model and its out-of-fold figures.
type quoteFit struct {
	m quotes.Model
	// loss is the out-of-fold log loss, prec the out-of-fold precision@5
	// of the tags of at least 5 quotations, their tags hidden.
	loss, prec float64
	// hiddenPrec is the out-of-fold precision of the top fives, tags
	// hidden, at or above the cut, hiddenKept the share of their fitting
	// quotations kept; taggedPrec and taggedKept the same, tags visible.
	hiddenPrec, hiddenKept, taggedPrec, taggedKept float64
	n                                              int
}

// scored is a quotation's out-of-fold score and whether it fits.
type scored struct {
	p    float64
	fits bool
}

// quoteCut is the least out-of-fold score at which the scores at or
// above it are fitting quotations with precision at least target (1 when
// none is).
func quoteCut(top []scored, target float64) float64 {
	sort.SliceStable(top, func(i, j int) bool { return top[i].p > top[j].p })
	cut, hit := 1.0, 0
	for i, s := range top {
		if s.fits {
			hit++
		}
		if float64(hit)/float64(i+1) >= target && (i+1 == len(top) || top[i+1].p < s.p) {
			cut = s.p
		}
	}
	return cut
}

// fitQuoteModel fits the ranking model on the development quotations and
// cross-validates it by tag: the out-of-fold log loss, the out-of-fold
// precision@5 of each tag's ranking over the quotations with their tags
// hidden (words, embedding and author alone), and the cut: the least
// score at which the out-of-fold top fives of every tag's rankings, tags
// hidden and visible pooled, fit with precision quoteFitCutPrecision.
func fitQuoteModel(t *testing.T) quoteFit {
	t.Helper()
	dev := quoteDev(t)
	count := map[string]int{}
	for _, r := range dev {
		for _, g := range r.Tags {
			count[g]++
		}
	}
	var tags []string
	for g := range count {
		tags = append(tags, g)
	}
	sort.Strings(tags)
	texts := append(slices.Clone(tags), make([]string, 0, len(dev))...)
	for _, r := range dev {
		texts = append(texts, r.Content)
	}
	emb, err := embed.NewOffline(embed.OfflineConfig{})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := emb.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	vecs := map[string][]float32{}
	for i, s := range texts {
		vecs[s] = vs[i]
	}
	ex := quoteExamples(t, dev, tags, vecs, false)
	whole := quoteExamples(t, dev, tags, vecs, true)
	var loss, prec float64
	var n, nPrec int
	var hiddenTop, visibleTop []scored
	for k := 0; k < quoteFitFolds; k++ {
		var train, test []quotes.Example
		var testTags []string
		for i, g := range tags {
			if i%quoteFitFolds == k {
				test = append(test, ex[g]...)
				testTags = append(testTags, g)
			} else {
				train = append(train, ex[g]...)
			}
		}
		m := quotes.Fit(train, quoteFitL2, quoteFitLambda)
		loss += quotes.LogLoss(m, test) * float64(len(test))
		n += len(test)
		for _, g := range testTags {
			var hidden, visible []scored
			for _, e := range whole[g] {
				s := scored{m.Prob(e.X), e.Fits}
				if strings.HasPrefix(e.Group, "hidden:") {
					hidden = append(hidden, s)
				} else {
					visible = append(visible, s)
				}
			}
			for _, l := range [][]scored{hidden, visible} {
				sort.SliceStable(l, func(i, j int) bool { return l[i].p > l[j].p })
			}
			hiddenTop = append(hiddenTop, hidden[:min(5, len(hidden))]...)
			visibleTop = append(visibleTop, visible[:min(5, len(visible))]...)
			if count[g] < 5 {
				continue
			}
			hit := 0
			for _, s := range hidden[:5] {
				if s.fits {
					hit++
				}
			}
			prec += float64(hit) / 5
			nPrec++
		}
	}
	var all []quotes.Example
	for _, g := range tags {
		all = append(all, ex[g]...)
	}
	f := quoteFit{m: quotes.Fit(all, quoteFitL2, quoteFitLambda), loss: loss / float64(n), prec: prec / float64(nPrec), n: len(dev)}
	f.m.Cut = quoteCut(append(slices.Clone(hiddenTop), visibleTop...), quoteFitCutPrecision)
	f.hiddenPrec, f.hiddenKept = cutFigures(hiddenTop, f.m.Cut)
	f.taggedPrec, f.taggedKept = cutFigures(visibleTop, f.m.Cut)
	return f
}

// cutFigures are the precision of the scores at or above cut and the
// share of the fitting ones they keep.
func cutFigures(top []scored, cut float64) (prec, kept float64) {
	var above, hit, fits int
	for _, s := range top {
		if s.fits {
			fits++
		}
		if s.p >= cut {
			above++
			if s.fits {
				hit++
			}
		}
	}
	if above > 0 {
		prec = float64(hit) / float64(above)
	}
	if fits > 0 {
		kept = float64(hit) / float64(fits)
	}
	return prec, kept
}

// TestQuoteModelFitted refits the shipped ranking model from the
// development quotations and checks that data/rank.tsv is that fit
// (-update-quotes writes it).
func TestQuoteModelFitted(t *testing.T) {
	f := fitQuoteModel(t)
	m := f.m
	m.Header = []string{
		"# The ranking model of quotations (internal/lang/quotes.Model): a logistic",
		"# model of whether a quotation fits a query, on the features of",
		"# quotes.FeatureNames. Fitted by TestQuoteModelFitted (internal/wiring/cli,",
		"# -update-quotes) on the development quotations of quotable_quotes.json",
		fmt.Sprintf("# (%d, quotes.HeldOut false): each tag is a query, its quotations fit,", f.n),
		fmt.Sprintf("# one in %d of the others does not; every example twice, tags visible", quoteFitNegEvery),
		fmt.Sprintf("# and hidden; L2 %g; positives and negatives weighted equally.", quoteFitL2),
		fmt.Sprintf("# Cross-validated in %d folds by tag: out-of-fold log loss %.4f,", quoteFitFolds, f.loss),
		"# out-of-fold precision@5 with every tag hidden (words, embedding and",
		fmt.Sprintf("# author alone; tags with at least 5 quotations) %.4f.", f.prec),
		"# cut, the least score of a quotation a page may print (Model.Cut), is the",
		"# least out-of-fold score at which the top five quotations of every tag,",
		fmt.Sprintf("# tags hidden and visible pooled, fit with precision at least %.2f:", quoteFitCutPrecision),
		fmt.Sprintf("# tags hidden, precision %.4f keeping %.4f of the fitting quotations;", f.hiddenPrec, f.hiddenKept),
		fmt.Sprintf("# tags visible, precision %.4f keeping %.4f.", f.taggedPrec, f.taggedKept),
		"# lambda, the weight of relevance against novelty in the ranked list, is",
		"# set, not fitted.",
	}
	got := m.Write()
	if *updateQuoteModel {
		if err := os.WriteFile(quoteModelPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s: oof log loss %.4f, oof hidden p@5 %.4f, cut %.4f", quoteModelPath, f.loss, f.prec, m.Cut)
		return
	}
	want, err := os.ReadFile(quoteModelPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("data/rank.tsv is not the fit of the development quotations; run with -update-quotes:\n%s", got)
	}
	if f.prec < 0.2 {
		t.Errorf("out-of-fold precision@5 with tags hidden %.3f: the text features rank no better than chance would", f.prec)
	}
	if f.taggedPrec < quoteFitCutPrecision || f.hiddenPrec <= f.prec {
		t.Errorf("out-of-fold precision at the cut: tags visible %.3f, want at least %.2f; hidden %.3f, want above the uncut %.3f",
			f.taggedPrec, quoteFitCutPrecision, f.hiddenPrec, f.prec)
	}
}
