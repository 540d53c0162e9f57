package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"github.com/annalist-dev/annalist/internal/evaluation/inject"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// InjectionSystem is the system under test of the injection evaluation:
// a writer that drafts biographies and a verifier with its router and
// solvers that check (and correct) one sentence at a time.
type InjectionSystem interface {
	// Subjects are the persons a biography may be written of, in a
	// stable order.
	Subjects(ctx context.Context) ([]string, error)
	// Biography returns the subject's reference set and the sentences the
	// writer drafts from it, in page order.
	Biography(ctx context.Context, subject string) (*schemas.ReferenceSet, []string, error)
	// Check verifies sentence against refs and, when correct is set,
	// routes a failed verdict to its solver and verifies each rewrite, as
	// the pipeline does.
	Check(ctx context.Context, refs *schemas.ReferenceSet, sentence string, correct bool) (SentenceOutcome, error)
}

// SentenceOutcome is what the system made of one sentence.
type SentenceOutcome struct {
	// Verdict is the verifier's verdict on the sentence as given.
	Verdict schemas.Verdict
	// Solvers are the solvers that rewrote it, in order.
	Solvers []string
	// Corrected is the final wording when a rewrite was verified as
	// supported; Dropped is set when the solvers gave up.
	Corrected string
	Dropped   bool
	Reason    string
}

// Published is the wording that would be published: the sentence itself
// when it was supported, the verified rewrite, or "" (nothing) when it
// was dropped.
func (o SentenceOutcome) Published(sentence string) string {
	switch {
	case o.Verdict.Status == schemas.StatusSupported:
		return sentence
	case o.Dropped:
		return ""
	}
	return o.Corrected
}

// InjectionConfig sets up the evaluation. The zero value of a field means
// its default.
type InjectionConfig struct {
	// N is the number of injected cases, and of untouched sentences mixed
	// with them (default 1000).
	N int
	// Seed makes the run reproducible: subjects, sentences, types and
	// injected values are drawn from it.
	Seed uint64
	// Subjects is how many biographies are written to draw sentences from
	// (default max(60, N/2), at most every subject).
	Subjects int
	// Workers is how many sentences are checked at a time (default the
	// number of CPUs).
	Workers int
	// Examples is how many failing cases of each kind are kept per type
	// (default 5).
	Examples int
	// Progress, when set, is told of each biography written and each case
	// checked.
	Progress func(done, total int)
}

func (c InjectionConfig) withDefaults(subjects int) InjectionConfig {
	if c.N <= 0 {
		c.N = 1000
	}
	if c.Subjects <= 0 {
		c.Subjects = max(60, c.N/2)
	}
	c.Subjects = min(c.Subjects, subjects)
	if c.Workers <= 0 {
		c.Workers = runtime.NumCPU()
	}
	if c.Examples <= 0 {
		c.Examples = 5
	}
	return c
}

// ExpectedSolver is the solver the routing table (topology.Routes) names
// for the verdict an injected error should get: a changed era year or
// Gregorian year is an era conflict, a swapped courtesy name an alias
// conflict, a changed rank missing domain knowledge, a swapped native
// place an unsupported value of no finer type, and a fabricated clause a
// fact no reference includes.
func ExpectedSolver(typ string) string {
	v := schemas.Verdict{Status: schemas.StatusNotSupported, ErrorType: schemas.ErrorOther}
	switch typ {
	case inject.Era, inject.Gregorian:
		v.ErrorType = schemas.ErrorEra
	case inject.Courtesy:
		v.ErrorType = schemas.ErrorAlias
	case inject.Rank:
		v.ErrorType = schemas.ErrorKnowledge
	case inject.Fabricated:
		v = schemas.Verdict{Status: schemas.StatusNotIncluded}
	}
	_, solver := topology.RouteVerdict(v)
	return solver
}

// InjectionReport is the result of Injection (`annalist eval injection
// --json`).
type InjectionReport struct {
	N    int    `json:"n"`
	Seed uint64 `json:"seed"`
	// Types are the per-type figures of the injected cases.
	Types map[string]*InjectionTypeScore `json:"types"`
	// DetectionPrecision is flagged injected cases over all flagged
	// cases, the untouched ones included.
	DetectionPrecision float64 `json:"detection_precision"`
	// FalsePositiveRate is flagged untouched sentences over untouched
	// sentences.
	FalsePositiveRate float64 `json:"false_positive_rate"`
	// ResidualErrorRate is, over the sentences that would be published,
	// the share still carrying an injected wrong value.
	ResidualErrorRate float64 `json:"residual_error_rate"`
	Published         int     `json:"published"`
	Residual          int     `json:"residual"`
	// Dropped counts the sentences left out, injected and untouched.
	Dropped          int `json:"dropped"`
	DroppedInjected  int `json:"dropped_injected"`
	DroppedUntouched int `json:"dropped_untouched"`
	// Untouched are the figures of the untouched sentences.
	Untouched UntouchedScore `json:"untouched"`
	// Drafts says how the writer's own sentences fared before any
	// injection: only the supported ones are used.
	Drafts DraftScore `json:"drafts"`
	// Failures are examples of cases that missed, by type and kind.
	Failures []InjectionFailure `json:"failures,omitempty"`
}

// InjectionTypeScore is the figures of one error type.
type InjectionTypeScore struct {
	N int `json:"n"`
	// Available is how many supported sentences had a slot of this type.
	Available      int    `json:"available"`
	ExpectedSolver string `json:"expected_solver"`
	// Detected counts cases whose verdict was not supported;
	// DetectionRecall is Detected/N.
	Detected        int     `json:"detected"`
	DetectionRecall float64 `json:"detection_recall"`
	// Routed counts detected cases routed to ExpectedSolver;
	// RoutingAccuracy is Routed/Detected.
	Routed          int     `json:"routed"`
	RoutingAccuracy float64 `json:"routing_accuracy"`
	// Corrected counts cases whose final wording was verified supported
	// and no longer holds the wrong value; CorrectionAccuracy is
	// Corrected/N.
	Corrected          int     `json:"corrected"`
	CorrectionAccuracy float64 `json:"correction_accuracy"`
	// Dropped counts cases the solvers gave up on.
	Dropped int `json:"dropped"`
	// Residual counts cases whose published wording still holds the wrong
	// value (undetected, or rewritten without removing it).
	Residual int `json:"residual"`
	// ErrorTypes counts the verdicts' error types of the detected cases
	// (not_included for a verdict without one).
	ErrorTypes map[string]int `json:"error_types,omitempty"`
}

// UntouchedScore is the figures of the untouched sentences.
type UntouchedScore struct {
	N                 int     `json:"n"`
	Flagged           int     `json:"flagged"`
	FalsePositiveRate float64 `json:"false_positive_rate"`
	Corrected         int     `json:"corrected"`
	Dropped           int     `json:"dropped"`
}

// DraftScore is how the writer's drafts fared with the verifier.
type DraftScore struct {
	Subjects int `json:"subjects"`
	// Failed counts subjects whose biography could not be written;
	// Errors says why for a few of them.
	Failed    int      `json:"failed"`
	Errors    []string `json:"errors,omitempty"`
	Sentences int      `json:"sentences"`
	Supported int      `json:"supported"`
	// SupportedRate is Supported/Sentences: the precision of the drafter
	// as the verifier sees it.
	SupportedRate float64 `json:"supported_rate"`
	// NotSupported are examples of drafts the verifier rejected.
	NotSupported []InjectionFailure `json:"not_supported,omitempty"`
}

// InjectionFailure is one example of a case that missed.
type InjectionFailure struct {
	// Kind is undetected, misrouted, uncorrected, flagged (an untouched
	// sentence) or draft (a draft the verifier rejected).
	Kind      string `json:"kind"`
	Type      string `json:"type,omitempty"`
	Subject   string `json:"subject"`
	Original  string `json:"original,omitempty"`
	Sentence  string `json:"sentence"`
	Wrong     string `json:"wrong,omitempty"`
	Right     string `json:"right,omitempty"`
	Status    string `json:"status"`
	ErrorType string `json:"error_type,omitempty"`
	// Message is the first failing fact's message.
	Message   string   `json:"message,omitempty"`
	Solvers   []string `json:"solvers,omitempty"`
	Corrected string   `json:"corrected,omitempty"`
	Dropped   bool     `json:"dropped,omitempty"`
	Reason    string   `json:"reason,omitempty"`
}

// baseSentence is a drafted sentence the verifier supports.
type baseSentence struct {
	book  int // index into the written biographies
	text  string
	types []string // injection types it has a slot for
}

// injectionCase is one sentence to check: injected (inj set) or untouched.
type injectionCase struct {
	base     *baseSentence
	inj      *inject.Injection
	sentence string
	outcome  SentenceOutcome
}

// Injection runs the error-injection evaluation: it writes biographies of
// a seeded sample of subjects, keeps the sentences the verifier supports,
// injects one error into each of N of them (types in turn, each into a
// random sentence that has a slot for it) and mixes in N untouched ones;
// every case then goes through verification and correction, and the
// report says per type how many were detected, routed to the right solver
// and corrected, and overall how precise detection is and how many wrong
// values the published text still holds. The injector is the ground
// truth; the system never sees it.
func Injection(ctx context.Context, sys InjectionSystem, cfg InjectionConfig) (InjectionReport, error) {
	subjects, err := sys.Subjects(ctx)
	if err != nil {
		return InjectionReport{}, fmt.Errorf("injection subjects: %w", err)
	}
	if len(subjects) == 0 {
		return InjectionReport{}, fmt.Errorf("injection: no subjects")
	}
	cfg = cfg.withDefaults(len(subjects))
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x1f83d9abfb41bd6b))
	subjects = slices.Clone(subjects)
	rng.Shuffle(len(subjects), func(i, j int) { subjects[i], subjects[j] = subjects[j], subjects[i] })
	subjects = subjects[:cfg.Subjects]

	var mu sync.Mutex
	total, done := len(subjects)+2*cfg.N, 0
	tick := func() {
		mu.Lock()
		defer mu.Unlock()
		done++
		if cfg.Progress != nil {
			cfg.Progress(done, total)
		}
	}
	rep := InjectionReport{N: cfg.N, Seed: cfg.Seed, Types: map[string]*InjectionTypeScore{}}

	// Write the biographies and verify each drafted sentence.
	books := make([]book, len(subjects))
	err = parallel(ctx, cfg.Workers, len(subjects), func(ctx context.Context, i int) error {
		defer tick()
		b := book{name: subjects[i]}
		refs, sents, err := sys.Biography(ctx, subjects[i])
		if err != nil {
			// A subject the writer cannot handle is counted, not fatal.
			b.err = err
			books[i] = b
			return nil
		}
		b.refs, b.sents = refs, sents
		for k, s := range sents {
			o, err := sys.Check(ctx, refs, s, false)
			if err != nil {
				return fmt.Errorf("check draft %d of %s: %w", k, subjects[i], err)
			}
			b.verdicts = append(b.verdicts, o.Verdict)
		}
		books[i] = b
		return nil
	})
	if err != nil {
		return rep, err
	}

	// The pool of swap values, the supported sentences and their slots.
	var pool inject.Pool
	for _, b := range books {
		if b.refs != nil {
			pool.Add(b.refs)
		}
	}
	x := inject.New(era.Default())
	pools := make([]inject.Pool, len(books))
	byType := map[string][]*baseSentence{}
	var base []*baseSentence
	rep.Drafts.Subjects = len(books)
	for i, b := range books {
		if b.refs == nil {
			rep.Drafts.Failed++
			if len(rep.Drafts.Errors) < cfg.Examples {
				rep.Drafts.Errors = append(rep.Drafts.Errors, b.name+": "+b.err.Error())
			}
			continue
		}
		pools[i] = pool.For(b.refs)
		for k, s := range b.sents {
			rep.Drafts.Sentences++
			v := b.verdicts[k]
			if v.Status != schemas.StatusSupported {
				if len(rep.Drafts.NotSupported) < cfg.Examples*4 {
					rep.Drafts.NotSupported = append(rep.Drafts.NotSupported,
						failure("draft", "", b.name, nil, s, SentenceOutcome{Verdict: v}))
				}
				continue
			}
			rep.Drafts.Supported++
			bs := &baseSentence{book: i, text: s, types: x.Applicable(s, pools[i])}
			base = append(base, bs)
			for _, t := range bs.types {
				byType[t] = append(byType[t], bs)
			}
		}
	}
	rep.Drafts.SupportedRate = ratio(rep.Drafts.Supported, rep.Drafts.Sentences)
	if len(base) == 0 {
		return rep, fmt.Errorf("injection: no drafted sentence of %d subjects was verified as supported", len(books))
	}

	// The cases: N injected, the types in turn, then N untouched.
	types := inject.Types()
	for _, t := range types {
		rep.Types[t] = &InjectionTypeScore{Available: len(byType[t]), ExpectedSolver: ExpectedSolver(t),
			ErrorTypes: map[string]int{}}
	}
	var cases []injectionCase
	for i := range cfg.N {
		t := types[i%len(types)]
		cands := byType[t]
		if len(cands) == 0 {
			continue
		}
		bs := cands[rng.IntN(len(cands))]
		in, ok := x.Inject(bs.text, t, pools[bs.book], rng)
		if !ok {
			continue
		}
		cases = append(cases, injectionCase{base: bs, inj: &in, sentence: in.Mutated})
	}
	untouched := rng.Perm(len(base))
	for i := range cfg.N {
		j := rng.IntN(len(base))
		if len(base) >= cfg.N {
			j = untouched[i]
		}
		cases = append(cases, injectionCase{base: base[j], sentence: base[j].text})
	}
	mu.Lock()
	total = len(subjects) + len(cases)
	mu.Unlock()

	err = parallel(ctx, cfg.Workers, len(cases), func(ctx context.Context, i int) error {
		defer tick()
		c := &cases[i]
		o, err := sys.Check(ctx, books[c.base.book].refs, c.sentence, true)
		if err != nil {
			return fmt.Errorf("check case %d (%s): %w", i, books[c.base.book].name, err)
		}
		c.outcome = o
		return nil
	})
	if err != nil {
		return rep, err
	}
	score(&rep, cases, books, cfg.Examples)
	return rep, nil
}

// book is one subject's drafted biography and the verdicts on its
// sentences.
type book struct {
	name     string
	refs     *schemas.ReferenceSet
	sents    []string
	verdicts []schemas.Verdict
	err      error
}

// score fills the report from the checked cases.
func score(rep *InjectionReport, cases []injectionCase, books []book, examples int) {
	flaggedInjected, flaggedUntouched := 0, 0
	kept, shown := map[string]int{}, map[string]bool{}
	example := func(kind string, c injectionCase) {
		key := kind + "/"
		if c.inj != nil {
			key += c.inj.Type
		}
		// A sentence drawn twice is shown once.
		if kept[key] >= examples || shown[kind+"\x00"+c.sentence] {
			return
		}
		kept[key]++
		shown[kind+"\x00"+c.sentence] = true
		typ := ""
		if c.inj != nil {
			typ = c.inj.Type
		}
		rep.Failures = append(rep.Failures, failure(kind, typ, books[c.base.book].name, c.inj, c.sentence, c.outcome))
	}
	for _, c := range cases {
		o := c.outcome
		flagged := o.Verdict.Status != schemas.StatusSupported
		published := o.Published(c.sentence)
		if published != "" {
			rep.Published++
		}
		if c.inj == nil {
			u := &rep.Untouched
			u.N++
			if flagged {
				u.Flagged++
				flaggedUntouched++
				example("flagged", c)
				switch {
				case o.Dropped:
					u.Dropped++
				case o.Corrected != "":
					u.Corrected++
				}
			}
			if o.Dropped {
				rep.DroppedUntouched++
			}
			continue
		}
		ts := rep.Types[c.inj.Type]
		ts.N++
		if c.inj.Residual(published) {
			ts.Residual++
			rep.Residual++
		}
		if o.Dropped {
			ts.Dropped++
			rep.DroppedInjected++
		}
		if !flagged {
			example("undetected", c)
			continue
		}
		flaggedInjected++
		ts.Detected++
		et := o.Verdict.ErrorType
		if o.Verdict.Status == schemas.StatusNotIncluded || et == "" {
			et = o.Verdict.Status
		}
		ts.ErrorTypes[et]++
		if _, solver := topology.RouteVerdict(o.Verdict); solver == ts.ExpectedSolver {
			ts.Routed++
		} else {
			example("misrouted", c)
		}
		if o.Corrected != "" && !o.Dropped && !c.inj.Residual(o.Corrected) {
			ts.Corrected++
		} else {
			example("uncorrected", c)
		}
	}
	for _, ts := range rep.Types {
		ts.DetectionRecall = ratio(ts.Detected, ts.N)
		ts.RoutingAccuracy = ratio(ts.Routed, ts.Detected)
		ts.CorrectionAccuracy = ratio(ts.Corrected, ts.N)
	}
	rep.Untouched.FalsePositiveRate = ratio(rep.Untouched.Flagged, rep.Untouched.N)
	rep.FalsePositiveRate = rep.Untouched.FalsePositiveRate
	rep.DetectionPrecision = ratio(flaggedInjected, flaggedInjected+flaggedUntouched)
	rep.ResidualErrorRate = ratio(rep.Residual, rep.Published)
	rep.Dropped = rep.DroppedInjected + rep.DroppedUntouched
}

// failure describes a case for the report.
func failure(kind, typ, subject string, in *inject.Injection, sentence string, o SentenceOutcome) InjectionFailure {
	f := InjectionFailure{Kind: kind, Type: typ, Subject: subject, Sentence: sentence,
		Status: o.Verdict.Status, ErrorType: o.Verdict.ErrorType, Solvers: o.Solvers,
		Corrected: o.Corrected, Dropped: o.Dropped, Reason: o.Reason}
	if in != nil {
		f.Original, f.Wrong, f.Right = in.Original, in.Wrong, in.Right
	}
	for _, fv := range o.Verdict.Facts {
		if fv.Status != schemas.StatusSupported {
			f.Message = fv.Message
			if f.Message == "" {
				f.Message = fv.Status + ": " + fv.Fact.Text
			}
			break
		}
	}
	return f
}

// parallel runs fn(i) for i in [0, n) on up to workers goroutines and
// returns the first error; the others stop at their next index.
func parallel(ctx context.Context, workers, n int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(ctx, i); err != nil {
					cancel(err)
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return context.Cause(ctx)
}
