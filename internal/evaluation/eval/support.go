package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"sort"
)

// Claim support (`annalist eval support`) is scored against ExpertQA: for
// every answer of every question, experts labelled each claim's evidence
// Complete, Partial, Incomplete, Missing or N/A. The rules, exactly:
//
//   - An item is a claim with at least one evidence passage and a support
//     label of Complete, Partial or Incomplete. Complete is the positive
//     class; Partial and Incomplete are the negative one. Claims labelled
//     Missing or N/A, or with no evidence, are counted as skipped.
//   - The judge's "complete" is a positive decision, "partial" and
//     "missing" negative ones.
//   - Agreement is the share of items decided as the experts did;
//     balanced accuracy the mean of the recall of Complete and the recall
//     of the rest; the confusion counts gold label × judge label over
//     the three labels of each side.
//   - The majority baseline says the class most items of the scored set
//     have for every item: its agreement is that class's share, its
//     balanced accuracy 0.5.
//   - Held out: the items of a question whose text's FNV-1a 32-bit hash
//     is 0 modulo 5 (SupportHeldOut); dev is every other item, overall
//     all of them. The offline judge is fitted on dev items only.
//   - The anchor is SAFE's agreement with human support labels, 0.72, a
//     figure of the literature to read the agreement beside.

// SupportAnchor is SAFE's reported agreement with human annotators on
// whether evidence supports a claim.
const SupportAnchor = 0.72

// SupportItem is one claim of ExpertQA with its evidence and expert label.
type SupportItem struct {
	Question string   `json:"question"`
	System   string   `json:"system"`
	Claim    string   `json:"claim"`
	Evidence []string `json:"evidence"`
	// Support is the expert label: Complete, Partial or Incomplete.
	Support string `json:"support"`
	HeldOut bool   `json:"held_out"`
}

// Complete reports whether the experts found the evidence complete.
func (it SupportItem) Complete() bool { return it.Support == "Complete" }

// SupportHeldOut reports whether the claims of question are held out.
func SupportHeldOut(question string) bool {
	h := fnv.New32a()
	h.Write([]byte(question))
	return h.Sum32()%5 == 0
}

// SupportData is the items of an ExpertQA file and the claims skipped.
type SupportData struct {
	Items []SupportItem
	// Skipped counts the claims left out, by their label ("Missing",
	// "N/A", "no evidence" for a claim with a scorable label but no
	// passage, "unlabelled").
	Skipped map[string]int
}

type expertQARecord struct {
	Question string `json:"question"`
	Answers  map[string]struct {
		Claims []struct {
			Claim    string   `json:"claim_string"`
			Evidence []string `json:"evidence"`
			Support  *string  `json:"support"`
		} `json:"claims"`
	} `json:"answers"`
}

// ReadSupport reads ExpertQA JSON lines from path (see the rules above).
func ReadSupport(path string) (SupportData, error) {
	f, err := os.Open(path)
	if err != nil {
		return SupportData{}, err
	}
	defer f.Close()
	d, err := ParseSupport(f)
	if err != nil {
		return SupportData{}, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// ParseSupport reads ExpertQA JSON lines from r. A line that is not an
// ExpertQA record is an error naming it; an empty file is an error.
func ParseSupport(r io.Reader) (SupportData, error) {
	d := SupportData{Skipped: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line, records := 0, 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(trimSpace(b)) == 0 {
			continue
		}
		var rec expertQARecord
		if err := json.Unmarshal(b, &rec); err != nil {
			return d, fmt.Errorf("line %d: not an ExpertQA record: %v", line, err)
		}
		if rec.Question == "" || rec.Answers == nil {
			return d, fmt.Errorf("line %d: not an ExpertQA record: no question or answers", line)
		}
		records++
		systems := make([]string, 0, len(rec.Answers))
		for s := range rec.Answers {
			systems = append(systems, s)
		}
		sort.Strings(systems)
		held := SupportHeldOut(rec.Question)
		for _, s := range systems {
			for _, c := range rec.Answers[s].Claims {
				label := ""
				if c.Support != nil {
					label = *c.Support
				}
				var ev []string
				for _, e := range c.Evidence {
					if len(trimSpace([]byte(e))) > 0 {
						ev = append(ev, e)
					}
				}
				switch {
				case label == "":
					d.Skipped["unlabelled"]++
				case label != "Complete" && label != "Partial" && label != "Incomplete":
					d.Skipped[label]++
				case len(ev) == 0:
					d.Skipped["no evidence"]++
				default:
					d.Items = append(d.Items, SupportItem{Question: rec.Question, System: s, Claim: c.Claim, Evidence: ev, Support: label, HeldOut: held})
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return d, err
	}
	if records == 0 {
		return d, fmt.Errorf("no ExpertQA record")
	}
	return d, nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// SupportJudge judges one claim on its evidence: a label ("complete",
// "partial" or "missing") and the probability of complete. An error ends
// the evaluation.
type SupportJudge func(ctx context.Context, claim string, evidence []string) (label string, score float64, err error)

// SupportScore is the figures of one set of items.
type SupportScore struct {
	Items    int `json:"items"`
	Complete int `json:"complete"`
	// Agreement and BalancedAccuracy: see the rules above.
	Agreement        float64 `json:"agreement"`
	BalancedAccuracy float64 `json:"balanced_accuracy"`
	RecallComplete   float64 `json:"recall_complete"`
	RecallOther      float64 `json:"recall_other"`
	// Confusion counts gold label → judge label.
	Confusion map[string]map[string]int `json:"confusion"`
	// Majority is the majority-class baseline on these items.
	Majority SupportBaseline `json:"majority_baseline"`
}

// SupportBaseline is a constant answer's figures.
type SupportBaseline struct {
	Label            string  `json:"label"`
	Agreement        float64 `json:"agreement"`
	BalancedAccuracy float64 `json:"balanced_accuracy"`
}

// SupportReport is the evaluation of a judge on ExpertQA.
type SupportReport struct {
	Overall SupportScore   `json:"overall"`
	Dev     SupportScore   `json:"dev"`
	HeldOut SupportScore   `json:"held_out"`
	Skipped map[string]int `json:"skipped"`
	// Anchor is SupportAnchor.
	Anchor float64 `json:"anchor_safe_agreement"`
}

// Support judges every item and scores the judgements; step, when set,
// is called after each item with the items done and their total.
func Support(ctx context.Context, d SupportData, judge SupportJudge, step func(done, total int)) (SupportReport, error) {
	labels := make([]string, len(d.Items))
	for i, it := range d.Items {
		if err := ctx.Err(); err != nil {
			return SupportReport{}, err
		}
		l, _, err := judge(ctx, it.Claim, it.Evidence)
		if err != nil {
			return SupportReport{}, fmt.Errorf("claim %d (%q): %w", i+1, it.Claim, err)
		}
		labels[i] = l
		if step != nil {
			step(i+1, len(d.Items))
		}
	}
	rep := SupportReport{Skipped: d.Skipped, Anchor: SupportAnchor}
	rep.Overall = scoreSupport(d.Items, labels, func(SupportItem) bool { return true })
	rep.Dev = scoreSupport(d.Items, labels, func(it SupportItem) bool { return !it.HeldOut })
	rep.HeldOut = scoreSupport(d.Items, labels, func(it SupportItem) bool { return it.HeldOut })
	return rep, nil
}

func scoreSupport(items []SupportItem, labels []string, in func(SupportItem) bool) SupportScore {
	s := SupportScore{Confusion: map[string]map[string]int{}}
	tp, tn := 0, 0
	for i, it := range items {
		if !in(it) {
			continue
		}
		s.Items++
		said := labels[i] == "complete"
		if it.Complete() {
			s.Complete++
			if said {
				tp++
			}
		} else if !said {
			tn++
		}
		if s.Confusion[it.Support] == nil {
			s.Confusion[it.Support] = map[string]int{}
		}
		s.Confusion[it.Support][labels[i]]++
	}
	if s.Items == 0 {
		return s
	}
	other := s.Items - s.Complete
	s.Agreement = float64(tp+tn) / float64(s.Items)
	if s.Complete > 0 {
		s.RecallComplete = float64(tp) / float64(s.Complete)
	}
	if other > 0 {
		s.RecallOther = float64(tn) / float64(other)
	}
	s.BalancedAccuracy = (s.RecallComplete + s.RecallOther) / 2
	s.Majority = SupportBaseline{Label: "complete", Agreement: float64(s.Complete) / float64(s.Items), BalancedAccuracy: 0.5}
	if other > s.Complete {
		s.Majority = SupportBaseline{Label: "not complete", Agreement: float64(other) / float64(s.Items), BalancedAccuracy: 0.5}
	}
	return s
}
