package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/annalist-dev/annalist/consumers/writer/answer"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/internal/evaluation/dataset"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/kit/progress"
	"github.com/annalist-dev/annalist/internal/lang/en/support"
	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// EvalAnswers is the JSON of `annalist eval answers`: the answers written
// from the demonstrations' documents and, with --retrieval, those written
// without them from a corpus that holds them all.
type EvalAnswers struct {
	Data      string             `json:"data"`
	Documents eval.AnswersReport `json:"documents"`
	// Retrieval is the answers from retrieval. An answer page records no
	// dropped sentence and no gate report, so those figures are 0 there.
	Retrieval *eval.AnswersReport `json:"retrieval,omitempty"`
	// Refused are the documents the corpus's ingestion refused.
	Refused []string `json:"refused,omitempty"`
}

// alceCollection is the collection the demonstrations' documents are
// ingested into for the retrieval section.
const alceCollection = "alce"

// evalAnswers is `annalist eval answers --data DIR [--retrieval]`: every
// ALCE demonstration of DIR is answered by the answer kind's offline
// engine from its documents, every sentence checked by the verifier as
// `annalist answer --docs` does, and the answers and the hand-written
// ones are scored with the support judge (eval.Answers). With --retrieval
// the documents of all demonstrations are ingested as one English corpus
// into a fresh embedded data directory and every question is asked again
// without documents, through the generation stages; the references the
// answer's planner retrieves are compared with the documents the
// hand-written answer cites.
func evalAnswers(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("eval answers", io.Stderr)
	var s service
	s.register(fs)
	data := fs.String("data", "", "folder of ALCE demonstration files, *.json (default: "+dataset.EnvVar+"/alce)")
	retrieval := fs.Bool("retrieval", false, "also ingest every demonstration's documents as one corpus and answer each question without its documents")
	keep := fs.Bool("keep", false, "--retrieval: keep the evaluation's data directory instead of deleting it")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 || len(pos) == 1 && pos[0] != "answers" {
		return fmt.Errorf("%w: want `eval answers --data DIR [--retrieval]`", errUsage)
	}
	dir := *data
	if dir == "" {
		dir = dataset.Path("alce")
	}
	if dir == "" {
		return fmt.Errorf("%w: --data DIR is required", errUsage)
	}
	demos, err := eval.ReadALCE(dir)
	if err != nil {
		return fmt.Errorf("%w: %v", errInput, err)
	}
	log, err := s.logger(io.Stderr)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	supports := func(claim string, passages []string) bool {
		return support.Judge(claim, passages).Label == support.Complete
	}
	off := answer.NewOffline(answer.Config{Support: answer.SupportJudge{}})
	prog := progress.New(int64(len(demos)), "eval answers", log)
	rep, err := eval.Answers(ctx, demos, func(ctx context.Context, d eval.ALCEDemo) (eval.Answered, error) {
		a, err := off.Answer(ctx, d.Question, d.Docs)
		if err != nil {
			return eval.Answered{}, err
		}
		var out answerOutput
		if err := verifyAnswer(ctx, d.Question, d.Docs, a, &out); err != nil {
			return eval.Answered{}, err
		}
		res := eval.Answered{Dropped: len(out.Dropped), GateFired: a.Gate.Fired}
		for _, doc := range d.Docs {
			res.Passages = append(res.Passages, answer.Passage(doc))
		}
		for _, st := range out.Sentences {
			res.Sentences = append(res.Sentences, eval.CitedSentence{Text: st.Text, Citations: st.Citations})
		}
		return res, nil
	}, supports, answer.Passage, func() { prog.Add(1) })
	prog.Finish()
	if err != nil {
		return err
	}
	out := EvalAnswers{Data: dir, Documents: rep}
	if *retrieval {
		r, refused, err := answersFromRetrieval(ctx, io, &s, demos, supports, *keep)
		if err != nil {
			return err
		}
		out.Retrieval, out.Refused = &r, refused
	}
	if s.json {
		return writeJSON(io.Stdout, out)
	}
	printAnswersReport(io, "from the documents", out.Documents)
	if out.Retrieval != nil {
		printAnswersReport(io, "from retrieval", *out.Retrieval)
	}
	return nil
}

// answersFromRetrieval ingests the documents of every demonstration as one
// English corpus into a fresh embedded data directory (offline engine)
// and answers each question without documents through the generation
// stages.
func answersFromRetrieval(ctx context.Context, io IO, s *service, demos []eval.ALCEDemo, supports eval.Supports, keep bool) (eval.AnswersReport, []string, error) {
	a, log, closeApp, err := s.openOfflineIngestion(ctx, io, "eval answers", "eval-answers-", keep, app.AllStages())
	if err != nil {
		return eval.AnswersReport{}, nil, err
	}
	defer closeApp()
	// place maps an ingested document to the demonstration and the
	// 1-based place among its documents it stands for.
	type place struct{ demo, k int }
	places := map[string][]place{}
	var items []producers.Item
	var refused []string
	for i, d := range demos {
		for k, doc := range d.Docs {
			it, err := producers.NewItem(schemas.Document{Source: fmt.Sprintf("%s/%s/%d/%d", alceCollection, d.File, d.Index, k+1),
				Title: doc.Title, Collection: alceCollection, Profile: profile.English, Lang: profile.LangEnglish, Text: answer.Passage(doc)})
			if err != nil {
				refused = append(refused, err.Error())
				continue
			}
			places[it.Doc.DocID] = append(places[it.Doc.DocID], place{i, k + 1})
			items = append(items, it)
		}
	}
	res, err := a.Ingest(ctx, s.tenant, true, true, func(ctx context.Context, sink producers.Sink) (producers.Summary, error) {
		return producers.Summary{Documents: len(items)}, sink.Send(ctx, s.tenant, items)
	})
	if err != nil {
		return eval.AnswersReport{}, nil, err
	}
	refused = append(refused, res.Errors...)
	log.Info().Int("documents", len(items)).Int("refused", len(refused)).Msg("ALCE corpus ingested")
	reg, err := a.Kinds()
	if err != nil {
		return eval.AnswersReport{}, nil, err
	}
	spec, err := reg.Lookup(schemas.KindAnswer)
	if err != nil {
		return eval.AnswersReport{}, nil, err
	}
	index := map[string]int{}
	for i, d := range demos {
		index[d.File+"#"+fmt.Sprint(d.Index)] = i
	}
	prog := progress.New(int64(len(demos)), "eval answers --retrieval", log)
	defer prog.Finish()
	rep, err := eval.Answers(ctx, demos, func(ctx context.Context, d eval.ALCEDemo) (eval.Answered, error) {
		me := index[d.File+"#"+fmt.Sprint(d.Index)]
		req := schemas.Request{RequestID: "-", Kind: schemas.KindAnswer, Subject: d.Question}
		// The references the kind's planner retrieves, read as the
		// demonstration's documents they stand for.
		got := eval.Answered{Retrieved: []int{}}
		refs, err := spec.Planner.Plan(ctx, s.tenant, req)
		if err != nil && !errors.Is(err, kind.ErrUnknownSubject) {
			return eval.Answered{}, err
		}
		if refs != nil {
			for _, r := range refs.References {
				for _, p := range places[r.DocID] {
					if p.demo == me && !slices.Contains(got.Retrieved, p.k) {
						got.Retrieved = append(got.Retrieved, p.k)
					}
				}
			}
			slices.Sort(got.Retrieved)
		}
		results, err := a.Generate(ctx, s.tenant, true, true, []schemas.Request{{Kind: schemas.KindAnswer, Subject: d.Question}})
		if err != nil {
			return eval.Answered{}, err
		}
		r := results[0]
		if r.Status.State == pages.RequestFailed || r.Page == nil {
			// No passage names what the question asks about: an answer
			// without a sentence.
			log.Info().Str("question", d.Question).Str("error", r.Status.Error).Msg("no answer")
			return got, nil
		}
		page := pageAnswer(d.Question, *r.Page)
		for _, doc := range page.Documents {
			got.Passages = append(got.Passages, doc.Text)
		}
		for _, st := range page.Sentences {
			got.Sentences = append(got.Sentences, eval.CitedSentence{Text: st.Text, Citations: st.Citations})
		}
		return got, nil
	}, supports, answer.Passage, func() { prog.Add(1) })
	if err != nil {
		return eval.AnswersReport{}, nil, err
	}
	if keep {
		log.Info().Str("data_dir", filepath.Clean(s.dataDir)).Msg("evaluation state kept")
	}
	return rep, refused, nil
}

// printAnswersReport prints a report's two splits for a reader.
func printAnswersReport(io IO, title string, rep eval.AnswersReport) {
	fmt.Fprintf(io.Stdout, "answers %s\n", title)
	for _, x := range []struct {
		name string
		s    eval.AnswersSplit
	}{{"dev", rep.Dev}, {"held_out", rep.HeldOut}} {
		s := x.s
		fmt.Fprintf(io.Stdout, "  %-8s %2d demos (%d empty), %3d sentences: citation recall %.3f, precision %.3f, cited %.3f; dropped %d, gate fired %d",
			x.name, s.Demos, s.Empty, s.System.Sentences, s.System.Recall, s.System.Precision, s.System.CitedShare, s.Dropped, s.GateFired)
		if s.RetrievedGoldRate > 0 || rep.Demos != nil && rep.Demos[0].RetrievedGold != nil {
			fmt.Fprintf(io.Stdout, "; retrieved a gold-cited document %d/%d", s.RetrievedGold, s.Demos)
		}
		fmt.Fprintf(io.Stdout, "\n  %-8s hand-written: %3d sentences: citation recall %.3f, precision %.3f, cited %.3f\n",
			"", s.Gold.Sentences, s.Gold.Recall, s.Gold.Precision, s.Gold.CitedShare)
	}
}
