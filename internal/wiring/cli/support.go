package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/annalist-dev/annalist/infra/llm"
	"github.com/annalist-dev/annalist/internal/kit/supportllm"
	"github.com/annalist-dev/annalist/internal/lang/en/support"
)

// SupportOutput is the JSON of `annalist support`: the judgement
// (label, spans, score) and the engine that made it.
type SupportOutput struct {
	support.Result
	Engine string `json:"engine"`
	// FellBack is set when the offline judge decided for the LLM engine:
	// the model's answers were all rejected, or the model failed.
	FellBack bool `json:"fell_back,omitempty"`
	// Stats are the LLM judge's counters (model calls, rejected answers,
	// fallbacks, dropped spans); absent for the offline engine.
	Stats *supportllm.Stats `json:"stats,omitempty"`
}

// supportEngine holds the flags that choose the claim-support judge.
type supportEngine struct {
	engine   string
	attempts int
	llm      llm.Config
}

func (e *supportEngine) register(fs *flag.FlagSet) {
	fs.StringVar(&e.engine, "engine", "offline", "offline: the fitted judge (internal/lang/en/support); llm: the model on the --llm-* server, the offline judge deciding when its answers are all rejected or the model fails")
	fs.IntVar(&e.attempts, "llm-attempts", 2, "llm engine: answers one claim may take before the offline judge decides it")
	e.llm.RegisterFlags(fs)
}

// judgeFunc is a claim-support judge as the commands call it.
type judgeFunc func(ctx context.Context, claim string, evidence []string) (res support.Result, fellBack bool, err error)

// open returns the judge the flags choose, and for the llm engine the
// LLM judge (for its counters) and the model (for its usage).
func (e *supportEngine) open(ctx context.Context) (judgeFunc, *supportllm.Judge, *llm.Model, error) {
	switch e.engine {
	case "offline":
		return func(_ context.Context, claim string, evidence []string) (support.Result, bool, error) {
			return support.Judge(claim, evidence), false, nil
		}, nil, nil, nil
	case "llm":
		if !e.llm.Enabled() {
			return nil, nil, nil, fmt.Errorf("%w: --engine llm needs --llm-base-url and --llm-model", errUsage)
		}
		if e.attempts < 1 {
			return nil, nil, nil, fmt.Errorf("%w: --llm-attempts must be at least 1", errUsage)
		}
		m, err := llm.NewChatModel(ctx, e.llm)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		// The command answers now: a model that fails or times out leaves
		// the claim to the offline judge, and the output says so.
		j := supportllm.New(m, e.attempts).FallBackOnModelError()
		return j.Judge, j, m, nil
	}
	return nil, nil, nil, fmt.Errorf("%w: --engine %q: want offline or llm", errUsage, e.engine)
}

// cmdSupport is `annalist support --claim TEXT --evidence-file F [--json]`:
// whether the passages of F (separated by blank lines; - reads stdin)
// support the claim completely, partially or not at all, with the
// sentences that carry it and the probability of complete support. It
// opens no service: --data-dir is accepted and unused.
func cmdSupport(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("support", io.Stderr)
	var c common
	c.register(fs)
	var e supportEngine
	e.register(fs)
	claim := fs.String("claim", "", "the claim to check (citation markers such as [1] are ignored)")
	file := fs.String("evidence-file", "", "the evidence: passages separated by blank lines; - reads stdin")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return fmt.Errorf("%w: want `support --claim TEXT --evidence-file FILE`, no arguments (got %q)", errUsage, pos)
	}
	if strings.TrimSpace(*claim) == "" {
		return fmt.Errorf("%w: --claim TEXT is required", errUsage)
	}
	if *file == "" {
		return fmt.Errorf("%w: --evidence-file FILE is required", errUsage)
	}
	data, err := readInput(*file, io.Stdin)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
		return fmt.Errorf("%w: --evidence-file: %v", errUsage, err)
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", *file, err)
	}
	passages := SplitPassages(string(data))
	if len(passages) == 0 {
		return fmt.Errorf("%w: --evidence-file %s holds no passage", errUsage, *file)
	}
	judge, lj, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	res, fellBack, err := judge(ctx, *claim, passages)
	if err != nil {
		return err
	}
	out := SupportOutput{Result: res, Engine: e.engine, FellBack: fellBack}
	if lj != nil {
		st := lj.Stats()
		out.Stats = &st
	}
	if c.json {
		return writeJSON(io.Stdout, out)
	}
	var quoted []string
	for _, s := range res.Spans {
		quoted = append(quoted, fmt.Sprintf("[%d] %q", s.Passage+1, s.Text))
	}
	fmt.Fprintf(io.Stdout, "%s (score %.2f)", res.Label, res.Score)
	if len(quoted) > 0 {
		fmt.Fprintf(io.Stdout, ": %s", strings.Join(quoted, "; "))
	}
	fmt.Fprintln(io.Stdout)
	return nil
}

// SplitPassages splits evidence text into passages at blank lines. A
// passage that opens with a source line ("[3] https://…") keeps the blank
// line after it, as ExpertQA writes its evidence: the source line and the
// text after it are one passage.
func SplitPassages(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var out []string
	var cur []string
	flush := func() {
		p := strings.TrimSpace(strings.Join(cur, "\n"))
		if p != "" {
			out = append(out, p)
		}
		cur = nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			cur = append(cur, l)
			continue
		}
		if len(cur) == 1 && sourceLine(cur[0]) {
			// The blank line after a source line belongs to the passage.
			cur = append(cur, "")
			continue
		}
		if len(cur) == 2 && cur[1] == "" && i > 0 {
			continue
		}
		flush()
	}
	flush()
	return out
}

// sourceLine reports whether l is a source line: "[n]" then an address or
// nothing.
func sourceLine(l string) bool {
	l = strings.TrimSpace(l)
	if !strings.HasPrefix(l, "[") {
		return false
	}
	end := strings.Index(l, "]")
	if end < 2 {
		return false
	}
	for _, r := range l[1:end] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return !strings.ContainsAny(strings.TrimSpace(l[end+1:]), " \t")
}
