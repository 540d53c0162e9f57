package solver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"
	"github.com/annalist-dev/annalist/topology"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/consumers/solver"
	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/schemas"
)

// corpusRefs builds one reference set per entry person of the volumes: the
// entry's chunks and the person's extracted facts, as retrieval would give
// them for the entry alone.
func corpusRefs(t *testing.T, files []string) ([]string, map[string]*schemas.ReferenceSet) {
	t.Helper()
	ctx := context.Background()
	ch := chunker.New(chunker.Config{})
	ex := extractor.New(extractor.Config{})
	sets := map[string]*schemas.ReferenceSet{}
	var names []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		chunks, err := ch.Chunk(ctx, schemas.Document{DocID: filepath.Base(f), Text: string(b), Profile: chunker.ProfileLiezhuan})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			if c.Entry == "" {
				continue
			}
			key := c.Entry + "@" + c.EntryChunk
			rs := sets[key]
			if rs == nil {
				rs = &schemas.ReferenceSet{Subject: c.Entry, Name: c.Entry, EntityID: "person:" + key, Lang: "zh", Aliases: []string{c.Entry}}
				sets[key] = rs
				names = append(names, key)
			}
			rs.References = append(rs.References, schemas.Reference{ChunkID: c.ChunkID, DocID: c.DocID, Text: c.Text, Score: 1, Source: schemas.SourceEntity})
			ts, err := ex.Extract(ctx, "", c)
			if err != nil {
				t.Fatal(err)
			}
			for _, tr := range ts {
				if tr.Head != c.Entry || tr.Relation == schemas.RelMention {
					continue
				}
				rs.Facts = append(rs.Facts, schemas.KGFact{Relation: tr.Relation, Value: tr.Tail, ChunkID: tr.ChunkID,
					Span: tr.Span, Evidence: tr.Evidence, Qualifiers: tr.Qualifiers})
				if schemas.AliasRelation(tr.Relation) && !slices.Contains(rs.Aliases, tr.Tail) {
					rs.Aliases = append(rs.Aliases, tr.Tail)
				}
			}
		}
	}
	sort.Strings(names)
	return names, sets
}

// injection is one error put into a supported sentence: the wrong text
// that must be gone from the final sentence.
type injection struct {
	kind, text, wrong string
}

var reRank = regexp.MustCompile(`进士第([一二三])`)

// inject makes the injections of the eval's error types that the sentence
// allows; k varies the values deterministically.
func inject(tab *era.Table, rs *schemas.ReferenceSet, s string, k int, places, courtesies []string) []injection {
	var out []injection
	if ds := tab.Find(s); len(ds) > 0 && ds[0].Year > 0 {
		w := ds[0].Era + era.FormatNumeral(ds[0].Year+1+k%3) + "年"
		out = append(out, injection{"era", strings.Replace(s, ds[0].Text, w, 1), w})
	}
	if ys := era.FindGregorian(s); len(ys) > 0 {
		w := fmt.Sprint(ys[0].Value + 2 + k%5)
		out = append(out, injection{"gregorian", strings.Replace(s, fmt.Sprint(ys[0].Value), w, 1), w})
	}
	if f := rs.FactsOf(schemas.RelNativePlace); len(f) > 0 && strings.Contains(s, f[0].Value+"人") {
		if p := places[k%len(places)]; p != f[0].Value && !strings.Contains(s, p) {
			out = append(out, injection{"place", strings.Replace(s, f[0].Value+"人", p+"人", 1), p + "人"})
		}
	}
	if f := rs.FactsOf(schemas.RelCourtesyName); len(f) > 0 && strings.Contains(s, "字"+f[0].Value) {
		if c := courtesies[k%len(courtesies)]; c != f[0].Value && !slices.Contains(rs.Aliases, c) {
			out = append(out, injection{"courtesy", strings.Replace(s, "字"+f[0].Value, "字"+c, 1), "字" + c})
		}
	}
	if m := reRank.FindStringSubmatch(s); m != nil {
		w := "进士第" + map[string]string{"一": "二", "二": "三", "三": "一"}[m[1]]
		out = append(out, injection{"rank", strings.Replace(s, m[0], w, 1), w})
	}
	if k%3 == 0 {
		out = append(out, injection{"fabricated", strings.TrimSuffix(s, "。") + "，尝游日本。", "日本"})
	}
	return out
}

// TestCorpusCorrection measures the solvers on real data: pages written by
// the writer's offline drafter from mingshi-liezhuan volumes, each
// supported sentence with one error injected, then verified, routed and
// solved until the verifier supports it or it is dropped (at most
// DefaultMaxAttempts attempts). A sentence is corrected when its final
// wording is supported and the injected value is gone. Misses of the
// verifier (an injection it does not detect) are not the solvers' to fix
// and are counted apart.
func TestCorpusCorrection(t *testing.T) {
	dir := datasettest.Require(t, "mingshi-liezhuan")
	files, err := filepath.Glob(filepath.Join(dir, "1[0-2]*.txt"))
	if err != nil || len(files) == 0 {
		t.Skipf("no volumes 100-129 in %s", dir)
	}
	if testing.Short() {
		files = files[:3]
	}
	names, sets := corpusRefs(t, files)
	var places, courtesies []string
	for _, n := range names {
		for _, f := range sets[n].FactsOf(schemas.RelNativePlace) {
			places = append(places, f.Value)
		}
		for _, f := range sets[n].FactsOf(schemas.RelCourtesyName) {
			courtesies = append(courtesies, f.Value)
		}
	}
	tab := era.Default()
	ctx := context.Background()
	chk := verifier.NewOffline(verifier.Config{Era: tab})
	drafter := writer.NewOffline(writer.OfflineConfig{Era: tab})
	solvers := map[string]solver.Solver{}
	for _, s := range []solver.Solver{solver.NewEra(solver.Config{Era: tab}), solver.NewAlias(solver.Config{}), solver.NewRefConflict(solver.Config{}),
		solver.NewKnowledge(solver.Config{Glossary: newFakeGlossary()}), solver.NewRegenerate(solver.RegenerateConfig{})} {
		solvers[s.Name()] = s
	}
	type tally struct{ n, detected, corrected, clauseDropped, sentenceDropped int }
	per := map[string]*tally{}
	var misses []string
	k := 0
	for _, name := range names {
		rs := sets[name]
		for i, it := range drafter.Plan(rs) {
			d := schemas.Draft{RequestID: "r", Kind: schemas.KindBiography, Subject: rs.Subject, Index: i,
				Text: it.Text, Citations: it.Citations, Facts: it.Facts, Origin: "writer"}
			if v, err := chk.Check(ctx, rs, d); err != nil || v.Status != schemas.StatusSupported {
				continue
			}
			k++
			for _, in := range inject(tab, rs, it.Text, k, places, courtesies) {
				tl := per[in.kind]
				if tl == nil {
					tl = &tally{}
					per[in.kind] = tl
				}
				tl.n++
				d := d
				d.Text = in.text
				final, trail, detected := "", []string{}, false
				for attempt := 0; attempt < solver.DefaultMaxAttempts; attempt++ {
					d.Attempt = attempt
					v, err := chk.Check(ctx, rs, d)
					if err != nil {
						t.Fatal(err)
					}
					if v.Status == schemas.StatusSupported {
						final = d.Text
						break
					}
					detected = true
					_, sname := topology.RouteVerdict(v)
					c, _, err := solvers[sname].Solve(ctx, "t1", rs, schemas.Repair{RequestID: "r", Solver: sname, Verdict: v})
					if err != nil {
						t.Fatal(err)
					}
					if err := c.Validate(); err != nil {
						t.Fatalf("%s: invalid correction: %v", sname, err)
					}
					trail = append(trail, fmt.Sprintf("%s/%s → %s: %s %q", v.Status, v.ErrorType, sname, c.Outcome, c.Text))
					if c.Outcome == schemas.OutcomeDropped {
						break
					}
					d.Text, d.Citations, d.Facts, d.Conflict = c.Text, c.Citations, c.Facts, c.Outcome == schemas.OutcomeConflict
				}
				if !detected {
					continue
				}
				tl.detected++
				switch {
				case final == "":
					tl.sentenceDropped++
					misses = append(misses, fmt.Sprintf("%s %s: %q dropped: %s", in.kind, rs.Subject, in.text, strings.Join(trail, " | ")))
				case strings.Contains(final, in.wrong):
					misses = append(misses, fmt.Sprintf("%s %s: %q kept the error: %s", in.kind, rs.Subject, in.text, strings.Join(trail, " | ")))
				default:
					tl.corrected++
					if text := strings.TrimSuffix(final, "。"); !strings.Contains(in.text, text) && len([]rune(final)) < len([]rune(it.Text))-2 {
						tl.clauseDropped++
					}
				}
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d people, %d supported sentences\n%-11s %5s %9s %10s %12s\n", len(names), k, "type", "n", "detected", "corrected", "shortened")
	kinds := make([]string, 0, len(per))
	for kind := range per {
		kinds = append(kinds, kind)
	}
	sort.Strings(kinds)
	for _, kind := range kinds {
		tl := per[kind]
		fmt.Fprintf(&b, "%-11s %5d %9d %10.3f %12d\n", kind, tl.n, tl.detected, ratio(tl.corrected, tl.detected), tl.clauseDropped)
	}
	t.Log("\n" + b.String())
	for i, m := range misses {
		if i >= 20 {
			t.Logf("… %d more", len(misses)-i)
			break
		}
		t.Log(m)
	}
	for _, kind := range kinds {
		if tl := per[kind]; tl.detected >= 10 && ratio(tl.corrected, tl.detected) < 0.9 {
			t.Errorf("%s: corrected %.3f of the detected, want ≥ 0.90", kind, ratio(tl.corrected, tl.detected))
		}
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
