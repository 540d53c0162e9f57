package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/consumers/writer/answer"
	"github.com/annalist-dev/annalist/infra/llm"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/schemas"
)

// answerOutput is what `annalist answer --json` prints: the question and
// the answer's sentences, each citing documents by their 1-based place
// in --docs (or in documents, for an answer from retrieval), then how
// it was made.
type answerOutput struct {
	Question  string           `json:"question"`
	Sentences []answerSentence `json:"sentences"`
	// Documents, for an answer without --docs, are the passages its
	// citations index (1-based).
	Documents []answerDocument `json:"documents,omitempty"`
	Dropped   []answer.Dropped `json:"dropped,omitempty"`
	Quality   *answer.Quality  `json:"quality,omitempty"`
	Gate      *answer.Gate     `json:"gate,omitempty"`
	Engine    string           `json:"engine"`
	// Fallback says why the offline engine wrote an answer the LLM engine
	// was asked for.
	Fallback string      `json:"fallback,omitempty"`
	Stats    answerStats `json:"stats"`
}

type answerSentence struct {
	Text      string `json:"text"`
	Citations []int  `json:"citations"`
}

type answerDocument struct {
	ChunkID string `json:"chunk_id"`
	DocID   string `json:"doc_id,omitempty"`
	Text    string `json:"text"`
}

// answerStats counts the work: sentences published and those the
// verifier turned down (never published), model calls and fallbacks.
type answerStats struct {
	Sentences  int   `json:"sentences"`
	Unverified int   `json:"unverified"`
	LLMCalls   int64 `json:"llm_calls"`
	Fallbacks  int64 `json:"fallbacks"`
}

// cmdAnswer is `annalist answer QUESTION [--docs FILE] [--json]`. With
// --docs (ALCE documents, `[{title, text}]`, or an object holding them
// under "docs"), the answer is composed in the process without services:
// the offline engine, or the LLM engine when --llm-base-url and
// --llm-model name a server; every sentence then goes through the
// verifier's answer check, and one it turns down is not printed. Without
// --docs the question is a request of kind answer through the generation
// stages, answered from a retrieval over the knowledge graph.
func cmdAnswer(ctx context.Context, stdio IO, args []string) error {
	fs := newFlagSet("answer", stdio.Stderr)
	var s service
	s.register(fs)
	docsPath := fs.String("docs", "", "ALCE documents to answer from: a JSON array of {title, text} (or an object with docs), - for stdin")
	tau := fs.Float64("tau", answer.DefaultTau, "calibration gate: a draft whose citation quality (F1 of citation recall and precision) is below this is drafted again from the documents its supported sentences cite; negative turns it off")
	maxSentences := fs.Int("answer-sentences", answer.DefaultSentences, "most sentences the offline engine extracts")
	timeout := fs.Duration("timeout", 0, "without --docs: give up waiting after this long (default: the request deadline and 30s more)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	question := strings.TrimSpace(strings.Join(pos, " "))
	if question == "" {
		return fmt.Errorf("%w: want `answer QUESTION [--docs FILE]`", errUsage)
	}
	if *tau == 0 || *tau > 1 {
		return fmt.Errorf("%w: --tau %g: want a threshold in (0, 1], or negative for no gate", errUsage, *tau)
	}
	if *maxSentences <= 0 {
		return fmt.Errorf("%w: --answer-sentences %d: want at least 1", errUsage, *maxSentences)
	}
	if *docsPath == "" {
		return answerFromStages(ctx, stdio, &s, question, *timeout)
	}
	data, err := readInput(*docsPath, stdio.Stdin)
	if err != nil {
		return fmt.Errorf("read %s: %w", *docsPath, err)
	}
	docs, err := readAnswerDocs(data)
	if err != nil {
		return fmt.Errorf("%s: %w: %v", *docsPath, errInput, err)
	}
	if err := s.app.LLM.Validate(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	cfg := answer.Config{Support: answer.SupportJudge{}, Tau: *tau, MaxSentences: *maxSentences}
	off := answer.NewOffline(cfg)
	out := answerOutput{Question: question, Engine: "offline"}
	var a answer.Answer
	if s.app.LLM.Enabled() {
		m, err := llm.NewChatModel(ctx, s.app.LLM)
		if err != nil {
			return err
		}
		l := answer.NewLLM(cfg, answer.LLMConfig{}, m, off)
		out.Engine = "llm"
		a, out.Fallback, err = l.Fallback(ctx, question, docs)
		out.Stats.LLMCalls, out.Stats.Fallbacks = m.Usage().Calls, l.Fallbacks()
		if err != nil {
			return err
		}
	} else if a, err = off.Answer(ctx, question, docs); err != nil {
		return err
	}
	if err := verifyAnswer(ctx, question, docs, a, &out); err != nil {
		return err
	}
	if s.json {
		return writeJSON(stdio.Stdout, out)
	}
	return printAnswer(stdio.Stdout, out)
}

// verifyAnswer checks every sentence of a, composed from docs, as the
// pipeline's verifier stage does, and fills out with the sentences it
// supports; one it turns down is dropped (never printed) and counted as
// unverified. The drafter's dropped sentences come first, the quality and
// the gate are a's.
func verifyAnswer(ctx context.Context, question string, docs []schemas.AnswerDocument, a answer.Answer, out *answerOutput) error {
	refs := answer.Documents(question, docs)
	check := verifier.WithAnswers(verifier.NewOffline(verifier.Config{}), verifier.OfflineClaims{})
	out.Sentences = []answerSentence{}
	var dropped []answer.Dropped
	for i, st := range a.Sentences {
		d := schemas.Draft{RequestID: "cli", Kind: schemas.KindAnswer, Subject: question, Index: i, Text: st.Text}
		for _, k := range st.Citations {
			d.Citations = append(d.Citations, schemas.AnswerDocRef(k))
		}
		v, err := check.Check(ctx, refs, d)
		if err != nil {
			return err
		}
		if v.Status != schemas.StatusSupported {
			out.Stats.Unverified++
			reason := v.Status
			if len(v.Facts) > 0 {
				reason = v.Facts[0].Message
			}
			dropped = append(dropped, answer.Dropped{Text: st.Text, Reason: "verifier: " + reason})
			continue
		}
		out.Sentences = append(out.Sentences, answerSentence{Text: st.Text, Citations: st.Citations})
	}
	out.Dropped = append(slices.Clone(a.Dropped), dropped...)
	out.Stats.Sentences = len(out.Sentences)
	out.Quality, out.Gate = &a.Quality, &a.Gate
	return nil
}

// readAnswerDocs reads ALCE documents: a JSON array of {title, text}, or
// an object holding them under "docs" (an ALCE item). Every document
// needs a text.
func readAnswerDocs(data []byte) ([]schemas.AnswerDocument, error) {
	var docs []schemas.AnswerDocument
	trimmed := strings.TrimSpace(string(data))
	switch {
	case strings.HasPrefix(trimmed, "["):
		if err := json.Unmarshal(data, &docs); err != nil {
			return nil, fmt.Errorf("not a JSON array of {title, text}: %v", err)
		}
	case strings.HasPrefix(trimmed, "{"):
		var item struct {
			Docs []schemas.AnswerDocument `json:"docs"`
		}
		if err := json.Unmarshal(data, &item); err != nil {
			return nil, fmt.Errorf("not a JSON object with docs: %v", err)
		}
		if item.Docs == nil {
			return nil, errors.New("the object has no docs: want [{title, text}, …] or {\"docs\": [{title, text}, …]}")
		}
		docs = item.Docs
	default:
		return nil, errors.New("not JSON: want [{title, text}, …]")
	}
	if len(docs) == 0 {
		return nil, errors.New("no document")
	}
	for i, d := range docs {
		if strings.TrimSpace(d.Text) == "" {
			return nil, fmt.Errorf("document %d has no text", i+1)
		}
	}
	return docs, nil
}

// answerFromStages asks the generation stages for the answer (a request
// of kind answer, planned by retrieval) and prints its page with the
// cited passages as the documents.
func answerFromStages(ctx context.Context, stdio IO, s *service, question string, timeout time.Duration) error {
	a, _, err := s.open(ctx, stdio, app.NeedsFor(app.GenerateStages()))
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.OwnerRuns(app.GenerateStages()); err != nil {
		return err
	}
	if timeout <= 0 {
		timeout = a.RequestDeadline() + 30*time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	runStages := s.embedded() && !a.Joined
	res, err := a.Generate(ctx, s.tenant, runStages, true, []schemas.Request{{Kind: schemas.KindAnswer, Subject: question}})
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no answer within %s: %w (is a process running the generation stages? `annalist serve` or `annalist consume`)", timeout, err)
	}
	if err != nil {
		return err
	}
	r := res[0]
	if r.Status.State == pages.RequestFailed {
		if s.json {
			if err := writeJSON(stdio.Stdout, r.Status); err != nil {
				return err
			}
		}
		return fmt.Errorf("request %s failed: %s", r.Request.RequestID, r.Status.Error)
	}
	if r.Page == nil {
		return fmt.Errorf("request %s: no page (state %s)", r.Request.RequestID, r.Status.State)
	}
	out := pageAnswer(question, *r.Page)
	if a.Chat != nil {
		out.Engine = "llm"
	}
	if s.json {
		return writeJSON(stdio.Stdout, out)
	}
	return printAnswer(stdio.Stdout, out)
}

// pageAnswer is an answer page in the command's shape: its cited
// passages, in the order first cited, are the documents its citations
// index.
func pageAnswer(question string, p schemas.Page) answerOutput {
	out := answerOutput{Question: question, Engine: "offline", Sentences: []answerSentence{}}
	place := map[string]int{}
	for _, st := range p.Sentences {
		as := answerSentence{Text: st.Text, Citations: []int{}}
		for _, c := range st.Citations {
			k, ok := place[c.ChunkID]
			if !ok {
				out.Documents = append(out.Documents, answerDocument{ChunkID: c.ChunkID, DocID: c.DocID, Text: c.Text})
				k = len(out.Documents)
				place[c.ChunkID] = k
			}
			as.Citations = append(as.Citations, k)
		}
		if st.OfflineFallback != "" {
			out.Stats.Fallbacks++
		}
		out.Sentences = append(out.Sentences, as)
	}
	out.Stats.Sentences = len(out.Sentences)
	return out
}

// printAnswer prints an answer for a reader: the question, then each
// sentence with its ALCE citation markers.
func printAnswer(w io.Writer, a answerOutput) error {
	fmt.Fprintf(w, "Q: %s\n", a.Question)
	if len(a.Sentences) == 0 {
		fmt.Fprintln(w, "(no sentence the documents support)")
	}
	for _, s := range a.Sentences {
		var marks strings.Builder
		for _, k := range s.Citations {
			fmt.Fprintf(&marks, "[%d]", k)
		}
		fmt.Fprintf(w, "%s %s\n", s.Text, marks.String())
	}
	for _, d := range a.Dropped {
		fmt.Fprintf(w, "  dropped: %s (%s)\n", excerpt(d.Text, 80), d.Reason)
	}
	if a.Gate != nil && a.Gate.Fired {
		fmt.Fprintf(w, "  gate: quality %.2f < τ %.2f, kept the %s draft\n", a.Gate.First.Score, a.Gate.Tau, a.Gate.Kept)
	}
	return nil
}
