package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/schemas"
)

// Attributed answers (`annalist eval answers`) are scored on the ALCE
// demonstrations (files *.json holding "demos": question, documents
// [{title, text}], a hand-written answer with [k] citations), with ALCE's
// citation figures computed by a claim-support judge in place of ALCE's
// NLI model. The rules, exactly:
//
//   - A sentence's citations are the documents it cites (1-based); a
//     citation outside the documents makes its sentence unsupported.
//   - Citation recall of an answer: the share of its sentences whose
//     cited documents, together, support them completely (a sentence
//     without a citation is not supported). An answer without a sentence
//     scores 0, as in ALCE.
//   - Citation precision of an answer, ALCE's definition: the share of its
//     citations that are relevant. A citation is relevant when its
//     sentence is supported by all of its citations together and either
//     the sentence has that one citation only, or the citation supports
//     the sentence completely on its own, or removing it from the cited
//     set leaves the rest not supporting the sentence. Every citation of
//     an unsupported sentence is irrelevant. No citation: 0.
//   - Both are averaged over answers (macro, as ALCE reports them); the
//     share of sentences with at least one citation over all sentences.
//   - The hand-written answers are scored by the same rules as a
//     reference line. They are split into sentences by the project's
//     sentence splitter (internal/lang/text), the [k] markers read and removed (markers split
//     off after an abbreviation's period belong to the sentence before),
//     each document judged as the passage the caller makes of it (the
//     answer kind's, answer.Passage, for `annalist eval answers`); QAMPARI's are
//     lists, scored as ALCE scores them: the answer without its final
//     period split at commas, each item a claim "question item".
//   - Held out: the last demonstration of each file (ALCEHeldOut); dev is
//     every other one.
//   - Retrieval (an answer written without the documents, from a corpus
//     holding them all): a question is a hit when the references retrieved
//     for it include a document the hand-written answer cites.

// ALCEDemo is one ALCE demonstration.
type ALCEDemo struct {
	// File is the base name of the demonstration's file; Index its place
	// there (0-based).
	File     string                   `json:"file"`
	Index    int                      `json:"index"`
	Question string                   `json:"question"`
	Answer   string                   `json:"answer"`
	Docs     []schemas.AnswerDocument `json:"docs"`
	// List: the answer is a list of items (QAMPARI), scored item by item.
	List    bool `json:"list,omitempty"`
	HeldOut bool `json:"held_out"`
}

// ALCEHeldOut reports whether demonstration i of a file of n is held out:
// the last of each file.
func ALCEHeldOut(i, n int) bool { return i == n-1 }

// ReadALCE reads the demonstrations of every *.json file of dir, the
// files in name order. A file without demonstrations, a demonstration
// without a question or documents, or a document without text is an
// error naming it.
func ReadALCE(dir string) ([]ALCEDemo, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no ALCE file (*.json)", dir)
	}
	slices.Sort(files)
	var out []ALCEDemo
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var file struct {
			Demos []ALCEDemo `json:"demos"`
		}
		if err := json.Unmarshal(b, &file); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if len(file.Demos) == 0 {
			return nil, fmt.Errorf("%s: no demonstration (want an object with \"demos\")", f)
		}
		base := filepath.Base(f)
		for i, d := range file.Demos {
			if strings.TrimSpace(d.Question) == "" || len(d.Docs) == 0 {
				return nil, fmt.Errorf("%s: demonstration %d has no question or no documents", f, i+1)
			}
			for k, doc := range d.Docs {
				if strings.TrimSpace(doc.Text) == "" {
					return nil, fmt.Errorf("%s: demonstration %d: document %d has no text", f, i+1, k+1)
				}
			}
			d.File, d.Index = base, i
			d.List = strings.HasPrefix(strings.ToLower(base), "qampari")
			d.HeldOut = ALCEHeldOut(i, len(file.Demos))
			out = append(out, d)
		}
	}
	return out, nil
}

// CitedSentence is a sentence of an answer and the documents it cites
// (1-based).
type CitedSentence struct {
	Text      string `json:"text"`
	Citations []int  `json:"citations"`
}

var citationMarker = regexp.MustCompile(`\[(\d+)\]`)

// GoldSentences are the hand-written answer of d as sentences with their
// citations (see the rules above).
func GoldSentences(d ALCEDemo) []CitedSentence {
	var parts []string
	if d.List {
		a := strings.TrimRight(strings.TrimSpace(d.Answer), ".,")
		for _, item := range strings.Split(a, ",") {
			if strings.TrimSpace(item) != "" {
				parts = append(parts, d.Question+" "+strings.TrimSpace(item))
			}
		}
	} else {
		parts = text.SplitSentences(d.Answer)
	}
	var out []CitedSentence
	for _, p := range parts {
		s := CitedSentence{Citations: []int{}}
		for _, m := range citationMarker.FindAllStringSubmatch(p, -1) {
			k, _ := strconv.Atoi(m[1])
			if !slices.Contains(s.Citations, k) {
				s.Citations = append(s.Citations, k)
			}
		}
		s.Text = strings.Join(strings.Fields(citationMarker.ReplaceAllString(p, "")), " ")
		s.Text = strings.Replace(strings.Replace(s.Text, " .", ".", -1), " ,", ",", -1)
		switch {
		case strings.IndexFunc(s.Text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0:
			out = append(out, s)
		case len(out) > 0:
			// Markers split off after an abbreviation's period ("632
			// A.D. [1][2].") belong to the sentence before.
			last := &out[len(out)-1]
			for _, k := range s.Citations {
				if !slices.Contains(last.Citations, k) {
					last.Citations = append(last.Citations, k)
				}
			}
		}
	}
	return out
}

// Supports reports whether passages, together, support claim completely.
type Supports func(claim string, passages []string) bool

// Citations are the citation figures of one answer or a set of them.
type Citations struct {
	Sentences int `json:"sentences"`
	// Cited counts the sentences with at least one citation; Supported
	// those their citations support completely.
	Cited     int `json:"cited"`
	Supported int `json:"supported"`
	Citations int `json:"citations"`
	// Relevant counts the citations that are relevant (ALCE precision).
	Relevant int `json:"relevant"`
	// Recall and Precision are ALCE's citation recall and precision (for
	// a set of answers, their means over the answers); CitedShare is
	// Cited over Sentences.
	Recall     float64 `json:"recall"`
	Precision  float64 `json:"precision"`
	CitedShare float64 `json:"cited_share"`
}

// ScoreCitations scores the sentences of one answer against passages
// (citation k is passages[k-1]) with supports.
func ScoreCitations(sentences []CitedSentence, passages []string, supports Supports) Citations {
	var c Citations
	pick := func(ks []int) ([]string, bool) {
		var ps []string
		for _, k := range ks {
			if k < 1 || k > len(passages) {
				return nil, false
			}
			ps = append(ps, passages[k-1])
		}
		return ps, true
	}
	for _, s := range sentences {
		c.Sentences++
		cites := dedupeInts(s.Citations)
		c.Citations += len(cites)
		if len(cites) == 0 {
			continue
		}
		c.Cited++
		ps, ok := pick(cites)
		if !ok || !supports(s.Text, ps) {
			continue
		}
		c.Supported++
		if len(cites) == 1 {
			c.Relevant++
			continue
		}
		for _, k := range cites {
			alone, _ := pick([]int{k})
			if supports(s.Text, alone) {
				c.Relevant++
				continue
			}
			rest, _ := pick(slices.DeleteFunc(slices.Clone(cites), func(x int) bool { return x == k }))
			if !supports(s.Text, rest) {
				c.Relevant++
			}
		}
	}
	if c.Sentences > 0 {
		c.Recall = float64(c.Supported) / float64(c.Sentences)
		c.CitedShare = float64(c.Cited) / float64(c.Sentences)
	}
	if c.Citations > 0 {
		c.Precision = float64(c.Relevant) / float64(c.Citations)
	}
	return c
}

func dedupeInts(xs []int) []int {
	var out []int
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// add adds c's counts to the set's and its recall and precision to the
// sums the means are made of.
func (s *Citations) add(c Citations) {
	s.Sentences += c.Sentences
	s.Cited += c.Cited
	s.Supported += c.Supported
	s.Citations += c.Citations
	s.Relevant += c.Relevant
	s.Recall += c.Recall
	s.Precision += c.Precision
}

func (s *Citations) finish(answers int) {
	if answers > 0 {
		s.Recall /= float64(answers)
		s.Precision /= float64(answers)
	}
	if s.Sentences > 0 {
		s.CitedShare = float64(s.Cited) / float64(s.Sentences)
	}
}

// Answered is a system's answer to a demonstration.
type Answered struct {
	Sentences []CitedSentence
	// Passages are what the citations index (citation k is Passages[k-1]):
	// the demonstration's documents, or the passages an answer from
	// retrieval cites.
	Passages []string
	// Dropped counts the sentences drafted and left out; GateFired says
	// whether the calibration gate fired.
	Dropped   int
	GateFired bool
	// Retrieved, for an answer from retrieval, are the demonstration's
	// documents (1-based) among the references retrieved for it; nil for
	// an answer from the given documents.
	Retrieved []int
}

// AnswerFunc answers a demonstration's question.
type AnswerFunc func(ctx context.Context, d ALCEDemo) (Answered, error)

// AnswerScore is one demonstration's figures.
type AnswerScore struct {
	File      string    `json:"file"`
	Index     int       `json:"index"`
	Question  string    `json:"question"`
	HeldOut   bool      `json:"held_out"`
	System    Citations `json:"system"`
	Gold      Citations `json:"gold"`
	Dropped   int       `json:"dropped"`
	GateFired bool      `json:"gate_fired"`
	// Retrieved and RetrievedGold, for an answer from retrieval: the
	// demonstration's documents among the retrieved references, and
	// whether one of them is cited by the hand-written answer.
	Retrieved     []int `json:"retrieved,omitempty"`
	RetrievedGold *bool `json:"retrieved_gold,omitempty"`
}

// AnswersSplit is the figures of a split's demonstrations.
type AnswersSplit struct {
	Demos int `json:"demos"`
	// Empty counts the answers without a sentence.
	Empty     int       `json:"empty"`
	System    Citations `json:"system"`
	Gold      Citations `json:"gold"`
	Dropped   int       `json:"dropped"`
	GateFired int       `json:"gate_fired"`
	// RetrievedGold counts, for answers from retrieval, the questions
	// whose retrieved references include a document the hand-written
	// answer cites; RetrievedGoldRate is its share of Demos.
	RetrievedGold     int     `json:"retrieved_gold,omitempty"`
	RetrievedGoldRate float64 `json:"retrieved_gold_rate,omitempty"`
}

// AnswersReport is the figures of `annalist eval answers`: development
// and held-out splits apart, and every demonstration's.
type AnswersReport struct {
	Dev     AnswersSplit  `json:"dev"`
	HeldOut AnswersSplit  `json:"held_out"`
	Demos   []AnswerScore `json:"demos"`
}

// Answers answers every demonstration with answerer and scores the answers
// and the hand-written ones with supports, a document of a demonstration
// judged as passage makes it; step, when not nil, is called after each
// demonstration.
func Answers(ctx context.Context, demos []ALCEDemo, answerer AnswerFunc, supports Supports,
	passage func(schemas.AnswerDocument) string, step func()) (AnswersReport, error) {
	var rep AnswersReport
	retrieval := false
	for _, d := range demos {
		a, err := answerer(ctx, d)
		if err != nil {
			return AnswersReport{}, fmt.Errorf("%s#%d %q: %w", d.File, d.Index, d.Question, err)
		}
		docs := make([]string, len(d.Docs))
		for i, doc := range d.Docs {
			docs[i] = passage(doc)
		}
		sc := AnswerScore{File: d.File, Index: d.Index, Question: d.Question, HeldOut: d.HeldOut,
			System: ScoreCitations(a.Sentences, a.Passages, supports), Gold: ScoreCitations(GoldSentences(d), docs, supports),
			Dropped: a.Dropped, GateFired: a.GateFired}
		split := &rep.Dev
		if d.HeldOut {
			split = &rep.HeldOut
		}
		split.Demos++
		if len(a.Sentences) == 0 {
			split.Empty++
		}
		split.System.add(sc.System)
		split.Gold.add(sc.Gold)
		split.Dropped += a.Dropped
		if a.GateFired {
			split.GateFired++
		}
		if a.Retrieved != nil {
			retrieval = true
			sc.Retrieved = a.Retrieved
			cited := map[int]bool{}
			for _, s := range GoldSentences(d) {
				for _, k := range s.Citations {
					cited[k] = true
				}
			}
			hit := slices.ContainsFunc(a.Retrieved, func(k int) bool { return cited[k] })
			sc.RetrievedGold = &hit
			if hit {
				split.RetrievedGold++
			}
		}
		rep.Demos = append(rep.Demos, sc)
		if step != nil {
			step()
		}
	}
	for _, s := range []*AnswersSplit{&rep.Dev, &rep.HeldOut} {
		s.System.finish(s.Demos)
		s.Gold.finish(s.Demos)
		if retrieval && s.Demos > 0 {
			s.RetrievedGoldRate = float64(s.RetrievedGold) / float64(s.Demos)
		}
	}
	return rep, nil
}
