package eval

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/consumers/linker"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// The mention model's examples are free supervision: a biography volume
// whose line 1 lists its people opens each entry with the person's name
// (listedEntries), and every occurrence of a listed name, or of the
// courtesy name the opening gives, in the volume's text is that person
// named. Those occurrences are the names. The spans that are not names
// are of two kinds: a span cut from a name occurrence (shifted one
// character either way, or the name without its first or last
// character: the tail of 崔应元 read as 应元, 王瑞 read in 王瑞旃), and
// spans drawn at random from the text, of the names' lengths, that touch
// no name occurrence (words and phrases: 安国 in 安国公).
//
// A volume without a listing on line 1 (the History's category volumes,
// headed ◎: princes, women, scholars, states) lists its people in the
// body instead, section by section. With LinkingOptions.Chunk its names
// are the subjects of the main entries the chunker opens: they show the
// shape of names no listed volume writes (a prince's 崇王见泽, a woman's
// 戚家妇). With ChunkCounts they only add to the character counts the
// shape ratios are read from; the regression keeps the listings' labels,
// which are cleaner.

// LinkingOptions configures LinkingExamples and Linking.
type LinkingOptions struct {
	// HeldOutEvery holds out, per directory, the volumes whose file name
	// is a number divisible by it (0: none; a directory past its end takes
	// its last value); Linking fits on the rest.
	HeldOutEvery []int
	// RandomPerName is the number of random spans drawn per name
	// occurrence (default 2).
	RandomPerName int
	// Folds is the number of cross-validation folds over the fitting
	// volumes (default 5).
	Folds int
	// Seed seeds the random spans and the folds.
	Seed uint64
	// CrossVolume makes the names listed by any volume of a split names
	// wherever they occur in that split, not only in their own volume.
	CrossVolume bool
	// Chunk, when set, segments a volume without a listing on line 1:
	// the subjects of its entry chunks are its names.
	Chunk func(context.Context, schemas.Document) ([]schemas.Chunk, error)
	// ChunkCounts keeps the chunked volumes' names out of the regression:
	// they only add to the character counts (linker.Example.CountOnly).
	ChunkCounts bool
	// Fit configures the model.
	Fit linker.FitConfig
}

func (o LinkingOptions) withDefaults() LinkingOptions {
	if o.RandomPerName <= 0 {
		o.RandomPerName = 2
	}
	if o.Folds <= 1 {
		o.Folds = 5
	}
	return o
}

// LinkingVolume is one volume's examples.
type LinkingVolume struct {
	File     string
	HeldOut  bool
	Examples []linker.Example
}

// LinkingExamples reads the biography volumes of dirs and returns their
// examples, a volume at a time, in file order. With CrossVolume, the
// names listed by the other volumes of the same split (fitting or held
// out) are names where they occur too.
func LinkingExamples(ctx context.Context, dirs []string, opts LinkingOptions) ([]LinkingVolume, error) {
	opts = opts.withDefaults()
	type volume struct {
		file    string
		text    []rune
		entries []entry
		held    bool
		// chunked: the entries are the chunker's, not a listing's.
		chunked bool
	}
	var vols []volume
	for k, dir := range dirs {
		every := 0
		if n := len(opts.HeldOutEvery); n > 0 {
			every = opts.HeldOutEvery[min(k, n-1)]
		}
		// One directory at a time: two corpora may number their volumes
		// alike.
		files, err := producers.Walk([]string{dir}, producers.Options{})
		if err != nil {
			return nil, fmt.Errorf("linking examples: %w", err)
		}
		for _, f := range files {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			items, errs := producers.Read(f, producers.Options{})
			if len(errs) > 0 {
				return nil, fmt.Errorf("linking examples: read %s: %w", f.Rel, errs[0])
			}
			for _, it := range items {
				es := listedEntries(it.Doc.Text)
				chunked := len(es) == 0 && opts.Chunk != nil
				if chunked {
					if es, err = chunkedEntries(ctx, opts.Chunk, it.Doc); err != nil {
						return nil, fmt.Errorf("linking examples: chunk %s: %w", f.Rel, err)
					}
				}
				if len(es) == 0 {
					continue
				}
				vols = append(vols, volume{file: filepath.Join(filepath.Base(dir), f.Rel), text: []rune(it.Doc.Text),
					entries: es, held: heldOutEvery(f.Rel, every), chunked: chunked})
			}
		}
	}
	// The names each split lists.
	listed := map[bool]map[string]bool{false: {}, true: {}}
	for _, v := range vols {
		if v.chunked && opts.ChunkCounts {
			continue
		}
		for _, e := range v.entries {
			listed[v.held][e.name] = true
		}
	}
	r := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x5851f42d4c957f2d))
	var out []LinkingVolume
	for g, v := range vols {
		var cross map[string]bool
		if opts.CrossVolume {
			cross = listed[v.held]
		}
		ex := volumeExamples(v.text, v.entries, cross, g, opts.RandomPerName, r)
		if v.chunked && opts.ChunkCounts {
			ex = slices.DeleteFunc(ex, func(e linker.Example) bool { return !e.Name })
			for i := range ex {
				ex[i].CountOnly = true
			}
		}
		if len(ex) > 0 {
			out = append(out, LinkingVolume{File: v.file, HeldOut: v.held, Examples: ex})
		}
	}
	return out, nil
}

// chunkedEntries are the persons the chunker opens main entries for in
// doc, each once: names of two characters or more. Attached entries are
// left out: they open inside another's text, where the chunker is less
// sure of a name (a clause read as one).
func chunkedEntries(ctx context.Context, chunk func(context.Context, schemas.Document) ([]schemas.Chunk, error), doc schemas.Document) ([]entry, error) {
	chunks, err := chunk(ctx, doc)
	if err != nil {
		return nil, err
	}
	var out []entry
	seen := map[string]bool{}
	for _, c := range chunks {
		if c.Subject == "" || c.Attached || seen[c.Subject] || utf8.RuneCountInString(c.Subject) < 2 {
			continue
		}
		seen[c.Subject] = true
		out = append(out, entry{name: c.Subject})
	}
	return out, nil
}

// heldOutEvery reports whether a file's name is a number divisible by k.
func heldOutEvery(file string, k int) bool {
	if k <= 0 {
		return false
	}
	n, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)))
	return err == nil && n%k == 0
}

// volumeExamples are one volume's examples (group g): the occurrences of
// its entries' names and courtesy names, and of the names in cross, and
// the spans made from them that are no names.
func volumeExamples(rs []rune, entries []entry, cross map[string]bool, g, randomPer int, r *rand.Rand) []linker.Example {
	body := 0
	for body < len(rs) && rs[body] != '\n' {
		body++
	}
	type surface struct {
		s     []rune
		alias bool
	}
	var surfaces []surface
	seen := map[string]bool{}
	add := func(s string, alias bool) {
		if !seen[s] {
			seen[s] = true
			surfaces = append(surfaces, surface{s: []rune(s), alias: alias})
		}
	}
	for _, e := range entries {
		add(e.name, false)
		for _, a := range e.aliases {
			add(a, true)
		}
	}
	others := make([]string, 0, len(cross))
	for n := range cross {
		others = append(others, n)
	}
	slices.Sort(others)
	for _, n := range others {
		add(n, false)
	}
	// Longest first, so that an occurrence inside a longer listed name is
	// that name's.
	slices.SortStableFunc(surfaces, func(a, b surface) int { return cmp.Compare(len(b.s), len(a.s)) })
	taken := make([]bool, len(rs))
	var out []linker.Example
	type span struct {
		start, end int
		alias      bool
	}
	var names []span
	for _, sf := range surfaces {
		for at := body; ; {
			i := text.IndexRunes(rs, sf.s, at)
			if i < 0 {
				break
			}
			at = i + 1
			j := i + len(sf.s)
			if slices.Contains(taken[i:j], true) {
				continue
			}
			for k := i; k < j; k++ {
				taken[k] = true
			}
			names = append(names, span{i, j, sf.alias})
			out = append(out, linker.Example{Text: rs, Start: i, End: j, Alias: sf.alias, Name: true, Group: g})
		}
	}
	isName := map[[2]int]bool{}
	for _, n := range names {
		isName[[2]int{n.start, n.end}] = true
	}
	// A span that is no name is of the kind of the name it was made for
	// (a courtesy name's or not), so being one says nothing by itself.
	neg := func(s, e int, alias bool, kind string) {
		if s < body+1 || e > len(rs) || e-s < 2 || isName[[2]int{s, e}] {
			return
		}
		for _, c := range rs[s:e] {
			if c == '\n' {
				return
			}
		}
		out = append(out, linker.Example{Text: rs, Start: s, End: e, Alias: alias, Group: g, Kind: kind})
	}
	for _, n := range names {
		neg(n.start-1, n.end-1, n.alias, "shifted")
		neg(n.start+1, n.end+1, n.alias, "shifted")
		if n.end-n.start >= 3 {
			neg(n.start, n.end-1, n.alias, "shifted")
			neg(n.start+1, n.end, n.alias, "shifted")
		}
		for range randomPer {
			l := n.end - n.start
			for try := 0; try < 20; try++ {
				s := body + 1 + r.IntN(max(1, len(rs)-body-1-l))
				if !slices.Contains(taken[s:min(len(rs), s+l)], true) {
					neg(s, s+l, n.alias, "random")
					break
				}
			}
		}
	}
	return out
}

// LinkingScore scores the model's probability of a name on examples.
type LinkingScore struct {
	Examples int     `json:"examples"`
	Names    int     `json:"names"`
	LogLoss  float64 `json:"log_loss"`
	AUC      float64 `json:"auc"`
	// Precision and Recall of "a name" at probability 0.5 under the
	// fitting prior.
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	// ByKind is the share of each kind of non-name example the model
	// scores below 0.5 (shifted, random).
	ByKind map[string]float64 `json:"rejected_by_kind"`
}

// LinkingReport is the result of `annalist eval linking`.
type LinkingReport struct {
	Volumes        int `json:"volumes"`
	HeldOutVolumes int `json:"held_out_volumes"`
	// CrossValidated scores each fold's examples with the model fitted
	// on the other folds (folds by volume).
	CrossValidated LinkingScore `json:"cross_validated"`
	Folds          int          `json:"folds"`
	// Fitted scores the model fitted on every fitting volume on them.
	Fitted LinkingScore `json:"fitted"`
	// HeldOut scores it on the held-out volumes, when asked.
	HeldOut *LinkingScore `json:"held_out,omitempty"`
	// Features is the number of weights of the fitted model.
	Features int `json:"features"`
	// Model is the fitted model (not printed).
	Model linker.Model `json:"-"`
}

// Linking fits the mention model on the volumes not held out, reports
// its cross-validated and fitted scores, and, with heldOut, its score on
// the held-out volumes.
func Linking(ctx context.Context, vols []LinkingVolume, opts LinkingOptions, heldOut bool) (LinkingReport, error) {
	opts = opts.withDefaults()
	var fit, held []LinkingVolume
	for _, v := range vols {
		if v.HeldOut {
			held = append(held, v)
		} else {
			fit = append(fit, v)
		}
	}
	rep := LinkingReport{Volumes: len(fit), HeldOutVolumes: len(held), Folds: opts.Folds}
	if len(fit) < opts.Folds {
		return rep, fmt.Errorf("eval linking: %d volumes with a listing to fit on, fewer than %d folds", len(fit), opts.Folds)
	}
	r := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x2545f4914f6cdd1d))
	order := r.Perm(len(fit))
	var cvEx []linker.Example
	var cvP []float64
	for k := range opts.Folds {
		var train, test []linker.Example
		for i, v := range order {
			if i%opts.Folds == k {
				test = append(test, fit[v].Examples...)
			} else {
				train = append(train, fit[v].Examples...)
			}
		}
		m, err := linker.Fit(train, opts.Fit)
		if err != nil {
			return rep, fmt.Errorf("eval linking: fold %d: %w", k+1, err)
		}
		grams := map[int]*linker.Counts{}
		for _, e := range scored(test) {
			cvEx = append(cvEx, e)
			cvP = append(cvP, prob(m, e, countsOf(grams, e)))
		}
	}
	rep.CrossValidated = scoreLinking(cvEx, cvP)
	var all []linker.Example
	for _, v := range fit {
		all = append(all, v.Examples...)
	}
	m, err := linker.Fit(all, opts.Fit)
	if err != nil {
		return rep, fmt.Errorf("eval linking: %w", err)
	}
	rep.Model, rep.Features = m, len(m.W)
	rep.Fitted = scoreModel(m, scored(all))
	if heldOut {
		var hx []linker.Example
		for _, v := range held {
			hx = append(hx, v.Examples...)
		}
		s := scoreModel(m, scored(hx))
		rep.HeldOut = &s
	}
	return rep, nil
}

// scored are the examples a model is scored on: not those that only
// count characters.
func scored(ex []linker.Example) []linker.Example {
	return slices.DeleteFunc(slices.Clone(ex), func(e linker.Example) bool { return e.CountOnly })
}

// prob is the model's probability of a name for an example, under the
// prior it was fitted with.
func prob(m linker.Model, e linker.Example, counts *linker.Counts) float64 {
	z := m.LLRIn(e.Text, counts, e.Start, e.End, e.Alias) + math.Log(m.Prior/(1-m.Prior))
	return 1 / (1 + math.Exp(-z))
}

// countsOf is the n-gram counts of an example's text, counted once per
// group (its volume).
func countsOf(grams map[int]*linker.Counts, e linker.Example) *linker.Counts {
	c, ok := grams[e.Group]
	if !ok {
		c = linker.NewCounts(e.Text)
		grams[e.Group] = c
	}
	return c
}

func scoreModel(m linker.Model, ex []linker.Example) LinkingScore {
	ps := make([]float64, len(ex))
	grams := map[int]*linker.Counts{}
	for i, e := range ex {
		ps[i] = prob(m, e, countsOf(grams, e))
	}
	return scoreLinking(ex, ps)
}

func scoreLinking(ex []linker.Example, ps []float64) LinkingScore {
	s := LinkingScore{Examples: len(ex), ByKind: map[string]float64{}}
	if len(ex) == 0 {
		return s
	}
	tp, fp := 0, 0
	kinds, rejected := map[string]int{}, map[string]int{}
	type scored struct {
		p    float64
		name bool
	}
	all := make([]scored, len(ex))
	for i, e := range ex {
		p := min(max(ps[i], 1e-9), 1-1e-9)
		all[i] = scored{p, e.Name}
		if e.Name {
			s.Names++
			s.LogLoss -= math.Log(p)
			if p >= 0.5 {
				tp++
			}
			continue
		}
		s.LogLoss -= math.Log(1 - p)
		kinds[e.Kind]++
		if p >= 0.5 {
			fp++
		} else {
			rejected[e.Kind]++
		}
	}
	s.LogLoss /= float64(len(ex))
	s.Precision = ratio(tp, tp+fp)
	s.Recall = ratio(tp, s.Names)
	for k, n := range kinds {
		s.ByKind[k] = ratio(rejected[k], n)
	}
	// AUC: the probability that a name scores above a non-name (ties
	// count half), from the ranks.
	slices.SortFunc(all, func(a, b scored) int { return cmp.Compare(a.p, b.p) })
	var rankSum float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].p == all[i].p {
			j++
		}
		mid := float64(i+j+1) / 2
		for k := i; k < j; k++ {
			if all[k].name {
				rankSum += mid
			}
		}
		i = j
	}
	pos, neg := float64(s.Names), float64(len(ex)-s.Names)
	if pos > 0 && neg > 0 {
		s.AUC = (rankSum - pos*(pos+1)/2) / (pos * neg)
	}
	return s
}
