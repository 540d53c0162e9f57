package solver_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/solver"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/glossary"
	"github.com/annalist-dev/annalist/schemas"
)

// The fixtures restate a few facts in the manner of Ming biographies:
// 叶向高's opening (the real figure, facts restated), an archive note that
// disagrees on his native place, and 陆文渊, an invented official.
const (
	chunkYe      = "c-ye"
	chunkYe2     = "c-ye2"
	chunkArchive = "c-arch"
	chunkLu      = "c-lu"
	chunkOther   = "c-other"

	textYe      = "叶向高，字进卿，号台山，福清人。举万历十一年进士，授庶吉士，进编修。"
	textYe2     = "天启元年，向高复入阁为首辅。天启七年卒，年六十九。"
	textArchive = "叶相国向高，侯官人，以文章名。"
	textLu      = "陆文渊，字静之，苏州吴县人。举嘉靖二十年进士第二，授翰林院编修。官至南京礼部尚书。"
	textOther   = "王恕，字宗贯，三原人。"
)

func kgFact(rel, value, chunk, chunkText, evidence string, quals map[string]string) schemas.KGFact {
	start := strings.Index(chunkText, evidence)
	s := text.RuneLen(chunkText[:max(start, 0)])
	return schemas.KGFact{Relation: rel, Value: value, ChunkID: chunk, Evidence: evidence,
		Span: schemas.Span{Start: s, End: s + text.RuneLen(evidence)}, Qualifiers: quals}
}

// yeRefs is 叶向高's reference set; withArchive adds the archive chunk and
// its disagreeing native place.
func yeRefs(withArchive bool) *schemas.ReferenceSet {
	rs := &schemas.ReferenceSet{
		Subject: "叶向高", Name: "叶向高", EntityID: "person:叶向高@1a2b3c4d",
		Aliases: []string{"叶向高", "进卿", "台山"}, Lang: "zh",
		Facts: []schemas.KGFact{
			kgFact(schemas.RelCourtesyName, "进卿", chunkYe, textYe, "字进卿", nil),
			kgFact(schemas.RelArtName, "台山", chunkYe, textYe, "号台山", nil),
			kgFact(schemas.RelNativePlace, "福清", chunkYe, textYe, "福清人", nil),
			kgFact(schemas.RelJinshi, "万历十一年", chunkYe, textYe, "举万历十一年进士", map[string]string{"era": "万历", "year": "万历十一年"}),
			kgFact(schemas.RelOffice, "庶吉士", chunkYe, textYe, "授庶吉士", nil),
			kgFact(schemas.RelOffice, "编修", chunkYe, textYe, "进编修", nil),
			kgFact(schemas.RelDeath, "天启七年", chunkYe2, textYe2, "天启七年卒", nil),
		},
		References: []schemas.Reference{
			{ChunkID: chunkYe, Text: textYe, Score: 1, Source: schemas.SourceEntity},
			{ChunkID: chunkYe2, Text: textYe2, Score: 0.9, Source: schemas.SourceEntity},
			{ChunkID: chunkOther, Text: textOther, Score: 0.2, Source: schemas.SourceNeighbour},
		},
	}
	if withArchive {
		rs.Facts = append(rs.Facts, kgFact(schemas.RelNativePlace, "侯官", chunkArchive, textArchive, "侯官人", nil))
		rs.References = append(rs.References, schemas.Reference{ChunkID: chunkArchive, Text: textArchive, Score: 0.8, Source: schemas.SourceEntity})
	}
	return rs
}

func luRefs() *schemas.ReferenceSet {
	return &schemas.ReferenceSet{
		Subject: "陆文渊", Name: "陆文渊", EntityID: "person:陆文渊@5e6f7a8b",
		Aliases: []string{"陆文渊", "静之"}, Lang: "zh",
		Facts: []schemas.KGFact{
			kgFact(schemas.RelCourtesyName, "静之", chunkLu, textLu, "字静之", nil),
			kgFact(schemas.RelNativePlace, "吴县", chunkLu, textLu, "苏州吴县人", nil),
			kgFact(schemas.RelJinshi, "嘉靖二十年", chunkLu, textLu, "举嘉靖二十年进士第二", map[string]string{"era": "嘉靖", "year": "嘉靖二十年", "rank": "第二"}),
			kgFact(schemas.RelOffice, "翰林院编修", chunkLu, textLu, "授翰林院编修", nil),
			kgFact(schemas.RelOffice, "南京礼部尚书", chunkLu, textLu, "官至南京礼部尚书", nil),
		},
		References: []schemas.Reference{
			{ChunkID: chunkLu, Text: textLu, Score: 1, Source: schemas.SourceEntity},
			{ChunkID: chunkOther, Text: textOther, Score: 0.2, Source: schemas.SourceNeighbour},
		},
	}
}

// ev is evidence: a passage of a chunk, with its rune span.
func ev(chunk, chunkText, passage string) schemas.Evidence {
	start := strings.Index(chunkText, passage)
	if start < 0 {
		panic("passage " + passage + " not in chunk " + chunk)
	}
	s := text.RuneLen(chunkText[:start])
	return schemas.Evidence{ChunkID: chunk, Span: schemas.Span{Start: s, End: s + text.RuneLen(passage)}, Text: passage}
}

func fv(status, errType, rel, value, factText string, evs ...schemas.Evidence) schemas.FactVerdict {
	return schemas.FactVerdict{Fact: schemas.Fact{Text: factText, Relation: rel, Value: value},
		Status: status, ErrorType: errType, Evidence: evs,
		Message: "checked against the references"}
}

func ok(rel, value, factText string, evs ...schemas.Evidence) schemas.FactVerdict {
	return fv(schemas.StatusSupported, "", rel, value, factText, evs...)
}

// repair builds the repair of a draft sentence with the given fact
// verdicts; the overall status and error type follow the spec's rule.
func repair(subject, sentence string, cites []string, facts []schemas.Fact, attempt int, fvs ...schemas.FactVerdict) schemas.Repair {
	status, errType := schemas.StatusSupported, ""
	for _, f := range fvs {
		if f.Status == schemas.StatusNotSupported {
			status, errType = schemas.StatusNotSupported, f.ErrorType
			break
		}
		if f.Status == schemas.StatusNotIncluded {
			status = schemas.StatusNotIncluded
		}
	}
	d := schemas.Draft{RequestID: "req-1", Kind: schemas.KindBiography, Subject: subject, Index: 3, Attempt: attempt,
		Text: sentence, Citations: cites, Facts: facts, Engine: "offline", Origin: "writer"}
	v := schemas.Verdict{RequestID: "req-1", Kind: schemas.KindBiography, Subject: subject, Index: 3, Attempt: attempt,
		Draft: d, Status: status, ErrorType: errType, Facts: fvs}
	return schemas.Repair{RequestID: "req-1", Solver: "", Verdict: v}
}

// want says what a correction must look like.
type want struct {
	outcome string
	// has must be in the text, gone must not be.
	has, gone []string
	// cites must be among the citations.
	cites []string
}

// check validates a correction against w and the invariants every
// correction keeps: valid, the verdict's identity and error type, facts
// citing cited chunks.
func check(t *testing.T, r schemas.Repair, c schemas.Correction, w want) {
	t.Helper()
	if err := c.Validate(); err != nil {
		t.Fatalf("invalid correction %+v: %v", c, err)
	}
	if c.Outcome != w.outcome {
		t.Fatalf("outcome %s (text %q, reason %q), want %s", c.Outcome, c.Text, c.Reason, w.outcome)
	}
	v := r.Verdict
	if c.RequestID != v.RequestID || c.Index != v.Index || c.Attempt != v.Attempt || c.Subject != v.Subject || c.Kind != v.Kind {
		t.Errorf("correction identity %s/%d/%d/%s/%s, want the verdict's", c.RequestID, c.Index, c.Attempt, c.Subject, c.Kind)
	}
	wantType := ""
	if v.Status == schemas.StatusNotSupported {
		wantType = v.ErrorType
	}
	if c.ErrorType != wantType {
		t.Errorf("error type %q, want %q", c.ErrorType, wantType)
	}
	if c.Outcome == schemas.OutcomeDropped {
		if c.Reason == "" {
			t.Error("dropped without a reason")
		}
		return
	}
	for _, h := range w.has {
		if !strings.Contains(c.Text, h) {
			t.Errorf("text %q lacks %q", c.Text, h)
		}
	}
	for _, g := range w.gone {
		if strings.Contains(c.Text, g) {
			t.Errorf("text %q still has %q", c.Text, g)
		}
	}
	for _, ch := range w.cites {
		if !slices.Contains(c.Citations, ch) {
			t.Errorf("citations %v lack %s", c.Citations, ch)
		}
	}
	for _, f := range c.Facts {
		if f.ChunkID != "" && !slices.Contains(c.Citations, f.ChunkID) {
			t.Errorf("fact %+v cites %s, which the correction does not", f, f.ChunkID)
		}
	}
	if len(c.Citations) == 0 {
		t.Error("no citations")
	}
}

// fakeGlossary serves the shipped glossary from memory: chunk ids are
// "gl-<term>", the text the entry line.
type fakeGlossary struct {
	entries []glossary.Entry
	lines   []string
	lookups []string
}

func newFakeGlossary() *fakeGlossary {
	g := &fakeGlossary{}
	src := glossary.Text()
	for _, e := range glossary.Parse(src) {
		g.entries = append(g.entries, e)
		g.lines = append(g.lines, text.Substr(src, e.Line.Start, e.Line.End))
	}
	return g
}

func (g *fakeGlossary) Lookup(_ context.Context, tenant, term string) ([]schemas.Reference, error) {
	g.lookups = append(g.lookups, tenant+"/"+term)
	var out []schemas.Reference
	for i, e := range g.entries {
		if e.Has(term) {
			out = append(out, schemas.Reference{ChunkID: "gl-" + e.Term(), Text: g.lines[i], Score: 1,
				Source: schemas.SourceGlossary, Entity: "term:" + e.Term()})
		}
	}
	return out, nil
}

var (
	_ solver.Glossary = (*fakeGlossary)(nil)
	// The glossary the pipeline ingests is the one the solver reads.
	_ solver.Glossary = (*glossary.Store)(nil)
)

func solve(t *testing.T, s solver.Solver, refs *schemas.ReferenceSet, r schemas.Repair) (schemas.Correction, []schemas.Review) {
	t.Helper()
	r.Solver = s.Name()
	c, rvs, err := s.Solve(context.Background(), "t1", refs, r)
	if err != nil {
		t.Fatal(err)
	}
	if c.Solver != s.Name() {
		t.Errorf("correction by %q, want %q", c.Solver, s.Name())
	}
	return c, rvs
}
