package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/annalist-dev/annalist/schemas"
)

// Discussion summaries (`annalist eval kgds`) are scored against KGDS
// samples (KGDS): a discussion (SBK background paragraphs, KGD turns)
// with its gold background-supporting paragraphs (BSP) and gold clear
// atomic opinions (CAO, the background entities they name in **bold**).
// The rules, exactly:
//
//   - BSP, per sample, at paragraph level as the paper computes it (ξ = the
//     paragraph index is selected; S the gold supporting paragraphs):
//     recall = selected gold paragraphs / gold paragraphs; precision =
//     selected gold paragraphs / selected paragraphs (0 when nothing is
//     selected); F1 their harmonic mean (0 when both are 0). P, R and F1
//     are each macro-averaged over samples, as in the paper.
//   - Entity names are compared normalised: lower case, curly quotes made
//     straight, a leading "the " and every possessive ending ('s, or ' after
//     a final s) removed, runs of space and punctuation other than "&" and "." inside
//     a name collapsed to one space. A name matches another when the two
//     are equal after normalising or when one is a whole-word part of the
//     other ("halep" matches "simona halep"), since a summary that names
//     Halep names the entity the gold calls Simona Halep.
//   - Entity recall, per sample with at least one bold entity: the gold's
//     distinct bold entities that match an entity of the summary's
//     opinion sentences / the gold's distinct bold entities;
//     macro-averaged over those samples.
//   - Entity precision, per sample whose opinions name at least one
//     entity: the summary's distinct opinion entities that the gold
//     opinions name / the summary's distinct opinion entities;
//     macro-averaged over those samples. The gold opinions name an entity
//     when it matches one of their bold entities or is written, as a whole
//     normalised phrase, in their text: the gold bolds only the references
//     it resolved, and writes a name the turn itself says (Toomaj Salehi,
//     the WNBA's Western Conference) in plain text, so bold alone would
//     count a name the turn says as an error. EntityPrecisionBold is the
//     stricter share that matches a bold entity, kept for comparison.
//   - Pronoun share: opinion sentences holding a bare third-person
//     personal pronoun (he, him, his, himself, she, her, hers, herself,
//     they, them, their, theirs, themselves; "it" is left out, being
//     mostly expletive: "it is unfair") as a whole word, outside **bold**
//     marks / opinion sentences, over all samples (micro). The gold CAO
//     sentences are measured the same way (gold_pronoun_share).
//   - Held out: a sample whose id's FNV-1a 32-bit hash is 4 modulo 5
//     (HeldOut). dev is every other sample; overall all of them.

// KGDSSample is one KGDS record: the discussion, its gold supporting
// paragraphs (their indices) and its gold clear atomic opinions.
type KGDSSample struct {
	schemas.Discussion
	BSP []int
	CAO []string
}

// UnmarshalJSON reads a KGDS record: SBK, KGD and id into the discussion,
// BSP (paragraph objects or bare indices) into indices, CAO as strings.
func (s *KGDSSample) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &s.Discussion); err != nil {
		return err
	}
	var raw struct {
		BSP []json.RawMessage `json:"BSP"`
		CAO []string          `json:"CAO"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	s.BSP, s.CAO = nil, raw.CAO
	for _, r := range raw.BSP {
		var p schemas.Paragraph
		if err := json.Unmarshal(r, &p); err == nil {
			s.BSP = append(s.BSP, p.Index)
			continue
		}
		var n int
		if err := json.Unmarshal(r, &n); err != nil {
			return fmt.Errorf("BSP entry %s is neither a paragraph nor an index", r)
		}
		s.BSP = append(s.BSP, n)
	}
	return nil
}

// ReadKGDS reads KGDS samples from a file holding a JSON array of records
// or JSON lines, one record a line. Every sample must be a valid
// discussion (schemas.Discussion.Validate); a sample without id gets its
// 1-based position as id.
func ReadKGDS(path string) ([]KGDSSample, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var samples []KGDSSample
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &samples); err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
	} else {
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for line := 1; sc.Scan(); line++ {
			l := bytes.TrimSpace(sc.Bytes())
			if len(l) == 0 {
				continue
			}
			var s KGDSSample
			if err := json.Unmarshal(l, &s); err != nil {
				return nil, fmt.Errorf("read %s line %d: %w", path, line, err)
			}
			samples = append(samples, s)
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("read %s: no sample", path)
	}
	for i := range samples {
		if samples[i].ID == "" {
			samples[i].ID = fmt.Sprint(i + 1)
		}
		if err := samples[i].Validate(); err != nil {
			return nil, fmt.Errorf("read %s: sample %s: %w", path, samples[i].ID, err)
		}
	}
	return samples, nil
}

// BSPScore is the paragraph-level precision, recall and F1 of one
// selection against the gold supporting paragraphs.
func BSPScore(selected, gold []int) (p, r, f1 float64) {
	sel := map[int]bool{}
	for _, i := range selected {
		sel[i] = true
	}
	g := map[int]bool{}
	for _, i := range gold {
		g[i] = true
	}
	hit := 0
	for i := range sel {
		if g[i] {
			hit++
		}
	}
	if len(sel) > 0 {
		p = float64(hit) / float64(len(sel))
	}
	if len(g) > 0 {
		r = float64(hit) / float64(len(g))
	}
	if p+r > 0 {
		f1 = 2 * p * r / (p + r)
	}
	return p, r, f1
}

var boldRe = regexp.MustCompile(`\*\*(.+?)\*\*`)

// BoldEntities returns the distinct **bold** names of gold opinions, as
// written (first spelling kept), in order of first appearance.
func BoldEntities(opinions []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, o := range opinions {
		for _, m := range boldRe.FindAllStringSubmatch(o, -1) {
			n := NormEntity(m[1])
			if n == "" || seen[n] {
				continue
			}
			seen[n] = true
			out = append(out, strings.TrimSpace(m[1]))
		}
	}
	return out
}

// NormEntity normalises an entity name for comparison (see the rules
// above).
func NormEntity(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer("’", "'", "‘", "'", "“", "", "”", "", "\"", "").Replace(s)
	s = possessiveRe.ReplaceAllString(strings.TrimSpace(s), "${1}")
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '&' || r == '.' || r == '\'' {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
			continue
		}
		space = true
	}
	s = b.String()
	s = strings.TrimPrefix(s, "the ")
	return strings.Trim(s, ". ")
}

// EntityMatch says whether two names denote the same entity under the
// rules above: equal when normalised, or one a whole-word part of the
// other.
func EntityMatch(a, b string) bool {
	a, b = NormEntity(a), NormEntity(b)
	if a == "" || b == "" {
		return false
	}
	if a == b {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	return strings.Contains(" "+b+" ", " "+a+" ")
}

// possessiveRe is a possessive ending: 's at the end of a word, or a
// lone apostrophe after a word's final s ("the Reds'").
var possessiveRe = regexp.MustCompile(`'s\b|(s)'\B`)

var thirdPerson = map[string]bool{
	"he": true, "him": true, "his": true, "himself": true,
	"she": true, "her": true, "hers": true, "herself": true,
	"they": true, "them": true, "their": true, "theirs": true, "themselves": true,
}

// HasBarePronoun says whether a sentence holds a third-person personal
// pronoun as a whole word outside **bold** marks.
func HasBarePronoun(sentence string) bool {
	s := boldRe.ReplaceAllString(sentence, " ")
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\''
	}) {
		w = strings.Trim(strings.ToLower(w), "'")
		if thirdPerson[w] {
			return true
		}
	}
	return false
}

// KGDSScore is the scores of one split.
type KGDSScore struct {
	Samples      int     `json:"samples"`
	BSPPrecision float64 `json:"bsp_precision"`
	BSPRecall    float64 `json:"bsp_recall"`
	BSPF1        float64 `json:"bsp_f1"`
	// SelectedShare is selected paragraphs / paragraphs (the paper's
	// paragraph retrieval ratio), GoldShare the same for the gold.
	SelectedShare   float64 `json:"selected_share"`
	GoldShare       float64 `json:"gold_share"`
	EntityRecall    float64 `json:"entity_recall"`
	EntityPrecision float64 `json:"entity_precision"`
	// EntityPrecisionBold counts only matches of bold gold entities.
	EntityPrecisionBold float64 `json:"entity_precision_bold"`
	PronounShare        float64 `json:"pronoun_share"`
	// GoldPronounShare is the pronoun share of the gold opinions.
	GoldPronounShare float64 `json:"gold_pronoun_share"`
	OpinionSentences int     `json:"opinion_sentences"`
	GoldOpinions     int     `json:"gold_opinions"`

	recallN, precisionN                      int
	paragraphs, selected, gold, pron, goldPr int
}

func (s *KGDSScore) add(r KGDSResult, sample KGDSSample) {
	s.Samples++
	s.BSPPrecision += r.BSPPrecision
	s.BSPRecall += r.BSPRecall
	s.BSPF1 += r.BSPF1
	s.paragraphs += len(sample.Background)
	s.selected += len(r.Selected)
	s.gold += len(sample.BSP)
	if r.EntityRecall != nil {
		s.EntityRecall += *r.EntityRecall
		s.recallN++
	}
	if r.EntityPrecision != nil {
		s.EntityPrecision += *r.EntityPrecision
		s.EntityPrecisionBold += *r.EntityPrecisionBold
		s.precisionN++
	}
	s.OpinionSentences += r.OpinionSentences
	s.pron += r.PronounSentences
	s.GoldOpinions += len(sample.CAO)
	for _, o := range sample.CAO {
		if HasBarePronoun(o) {
			s.goldPr++
		}
	}
}

func (s *KGDSScore) rates() {
	div := func(a float64, n int) float64 {
		if n == 0 {
			return 0
		}
		return a / float64(n)
	}
	s.BSPPrecision = div(s.BSPPrecision, s.Samples)
	s.BSPRecall = div(s.BSPRecall, s.Samples)
	s.BSPF1 = div(s.BSPF1, s.Samples)
	s.SelectedShare = div(float64(s.selected), s.paragraphs)
	s.GoldShare = div(float64(s.gold), s.paragraphs)
	s.EntityRecall = div(s.EntityRecall, s.recallN)
	s.EntityPrecision = div(s.EntityPrecision, s.precisionN)
	s.EntityPrecisionBold = div(s.EntityPrecisionBold, s.precisionN)
	s.PronounShare = div(float64(s.pron), s.OpinionSentences)
	s.GoldPronounShare = div(float64(s.goldPr), s.GoldOpinions)
}

// KGDSResult is one sample's scores and what the summary got wrong.
type KGDSResult struct {
	ID           string  `json:"id"`
	HeldOut      bool    `json:"held_out,omitempty"`
	Selected     []int   `json:"selected"`
	Gold         []int   `json:"gold"`
	BSPPrecision float64 `json:"bsp_precision"`
	BSPRecall    float64 `json:"bsp_recall"`
	BSPF1        float64 `json:"bsp_f1"`
	// EntityRecall and EntityPrecision are nil when undefined (no gold
	// bold entity; no opinion entity).
	EntityRecall        *float64 `json:"entity_recall,omitempty"`
	EntityPrecision     *float64 `json:"entity_precision,omitempty"`
	EntityPrecisionBold *float64 `json:"entity_precision_bold,omitempty"`
	MissedEntities      []string `json:"missed_entities,omitempty"`
	// ExtraEntities are the opinion entities the gold opinions do not
	// name; PlainEntities those they name in plain text only.
	ExtraEntities    []string `json:"extra_entities,omitempty"`
	PlainEntities    []string `json:"plain_entities,omitempty"`
	OpinionSentences int      `json:"opinion_sentences"`
	PronounSentences int      `json:"pronoun_sentences"`
}

// KGDSReport is the report of `annalist eval kgds`.
type KGDSReport struct {
	Overall KGDSScore    `json:"overall"`
	Dev     KGDSScore    `json:"dev"`
	HeldOut KGDSScore    `json:"held_out"`
	Results []KGDSResult `json:"results,omitempty"`
}

// ScoreKGDS scores one sample's summary.
func ScoreKGDS(sample KGDSSample, sum schemas.DiscussionSummary) KGDSResult {
	r := KGDSResult{ID: sample.ID, HeldOut: HeldOut(sample.ID), Gold: slices.Clone(sample.BSP)}
	r.Selected = slices.Clone(sum.Background.Paragraphs)
	r.BSPPrecision, r.BSPRecall, r.BSPF1 = BSPScore(r.Selected, r.Gold)
	var ours []string
	seen := map[string]bool{}
	for _, po := range sum.Opinions {
		for _, s := range po.Sentences {
			r.OpinionSentences++
			if HasBarePronoun(s.Text) {
				r.PronounSentences++
			}
			for _, e := range s.Entities {
				if n := NormEntity(e); n != "" && !seen[n] {
					seen[n] = true
					ours = append(ours, e)
				}
			}
		}
	}
	gold := BoldEntities(sample.CAO)
	matchAny := func(name string, in []string) bool {
		for _, o := range in {
			if EntityMatch(name, o) {
				return true
			}
		}
		return false
	}
	if len(gold) > 0 {
		hit := 0
		for _, g := range gold {
			if matchAny(g, ours) {
				hit++
			} else {
				r.MissedEntities = append(r.MissedEntities, g)
			}
		}
		v := float64(hit) / float64(len(gold))
		r.EntityRecall = &v
	}
	if len(ours) > 0 {
		goldText := " " + NormEntity(strings.Join(sample.CAO, " \n ")) + " "
		hit, bold := 0, 0
		for _, o := range ours {
			switch {
			case matchAny(o, gold):
				hit++
				bold++
			case strings.Contains(goldText, " "+NormEntity(o)+" "):
				hit++
				r.PlainEntities = append(r.PlainEntities, o)
			default:
				r.ExtraEntities = append(r.ExtraEntities, o)
			}
		}
		v, vb := float64(hit)/float64(len(ours)), float64(bold)/float64(len(ours))
		r.EntityPrecision, r.EntityPrecisionBold = &v, &vb
	}
	return r
}

// KGDS summarises every sample with summarize and scores the summaries;
// results are kept in the report (the caller drops them if unwanted).
func KGDS(samples []KGDSSample, summarize func(schemas.Discussion) schemas.DiscussionSummary) KGDSReport {
	var rep KGDSReport
	for _, s := range samples {
		r := ScoreKGDS(s, summarize(s.Discussion))
		rep.Results = append(rep.Results, r)
		rep.Overall.add(r, s)
		if r.HeldOut {
			rep.HeldOut.add(r, s)
		} else {
			rep.Dev.add(r, s)
		}
	}
	rep.Overall.rates()
	rep.Dev.rates()
	rep.HeldOut.rates()
	return rep
}
