package verifier_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/internal/evaluation/inject"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/schemas"
)

// corpusPerson is one entry person of the corpus with the reference set a
// retriever would give: the entry's own chunks, the chunks of the volume
// that mention the name, then other entries of the volume (neighbours and
// distractors) up to maxRefs; Facts are the triplets whose head is the
// person, from chunks in the set.
type corpusPerson struct {
	name  string
	refs  *schemas.ReferenceSet
	entry []schemas.Chunk
}

const maxRefs = 30

// loadCorpus chunks and extracts the volumes in-process, as the chunker
// and extractor stages do.
func loadCorpus(t testing.TB, vols []string) []*corpusPerson {
	t.Helper()
	dir := datasettest.Require(t, "mingshi-liezhuan")
	ctx := context.Background()
	ch := chunker.New(chunker.Config{})
	ex := extractor.New(extractor.Config{})
	var out []*corpusPerson
	for _, vol := range vols {
		b, err := os.ReadFile(filepath.Join(dir, vol+".txt"))
		if err != nil {
			t.Fatalf("read volume %s: %v", vol, err)
		}
		chunks, err := ch.Chunk(ctx, schemas.Document{DocID: "mingshi-" + vol, Text: string(b), Profile: "liezhuan"})
		if err != nil {
			t.Fatalf("chunk %s: %v", vol, err)
		}
		trips := map[string][]schemas.Triplet{}
		for _, c := range chunks {
			ts, err := ex.Extract(ctx, "", c)
			if err != nil {
				t.Fatalf("extract %s: %v", c.ChunkID, err)
			}
			trips[c.ChunkID] = ts
		}
		for _, c := range chunks {
			if c.Subject == "" || c.Subject != c.Entry {
				continue
			}
			p := &corpusPerson{name: c.Subject}
			in := map[string]bool{}
			var refs []schemas.Reference
			add := func(c schemas.Chunk, source string) {
				if in[c.ChunkID] || len(refs) >= maxRefs {
					return
				}
				in[c.ChunkID] = true
				refs = append(refs, schemas.Reference{ChunkID: c.ChunkID, DocID: c.DocID, Text: c.Text, Source: source})
			}
			for _, o := range chunks {
				if o.Entry == p.name {
					p.entry = append(p.entry, o)
					add(o, schemas.SourceEntity)
				}
			}
			for _, o := range chunks {
				if strings.Contains(o.Text, p.name) {
					add(o, schemas.SourceEntity)
				}
			}
			for _, o := range chunks {
				if o.Subject != "" {
					add(o, schemas.SourceNeighbour)
				}
			}
			rs := &schemas.ReferenceSet{Subject: p.name, Name: p.name, EntityID: p.name, Lang: "zh",
				Aliases: []string{p.name}, References: refs}
			for _, r := range refs {
				for _, tr := range trips[r.ChunkID] {
					if tr.Head != p.name || tr.Relation == schemas.RelMention {
						continue
					}
					rs.Facts = append(rs.Facts, schemas.KGFact{EdgeID: tr.TripletID, Relation: tr.Relation, Value: tr.Tail,
						ChunkID: tr.ChunkID, Span: tr.Span, Evidence: tr.Evidence, Qualifiers: tr.Qualifiers, Confidence: tr.Confidence})
					if schemas.AliasRelation(tr.Relation) && !slices.Contains(rs.Aliases, tr.Tail) {
						rs.Aliases = append(rs.Aliases, tr.Tail)
					}
				}
			}
			p.refs = rs
			out = append(out, p)
		}
	}
	return out
}

// corpusVolumes picks n volumes spread over the corpus.
func corpusVolumes(t testing.TB, n int) []string {
	t.Helper()
	dir := datasettest.Require(t, "mingshi-liezhuan")
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no volumes in %s: %v", dir, err)
	}
	sort.Strings(files)
	var out []string
	for i := 0; i < n && i < len(files); i++ {
		f := files[i*len(files)/n]
		out = append(out, strings.TrimSuffix(filepath.Base(f), ".txt"))
	}
	return out
}

// biography writes the person's page in the offline-biography form the
// writer produces (identity, examination with its Gregorian year, career,
// highest office, notable acts copied from the entry, death). Each
// sentence is written from the reference set only.
func biography(tab *era.Table, p *corpusPerson) []string {
	var out []string
	first := func(rel string) (schemas.KGFact, bool) {
		for _, f := range p.refs.Facts {
			if f.Relation == rel {
				return f, true
			}
		}
		return schemas.KGFact{}, false
	}
	var entryText strings.Builder
	for _, c := range p.entry {
		entryText.WriteString(c.Text)
	}
	sents := text.SplitSentences(entryText.String())
	used := map[string]bool{}
	if len(sents) > 0 && text.RuneLen(strings.TrimSpace(sents[0])) <= 60 {
		out = append(out, strings.TrimSpace(sents[0]))
		used[sents[0]] = true
	} else {
		var b strings.Builder
		b.WriteString(p.name)
		if f, ok := first(schemas.RelCourtesyName); ok {
			b.WriteString("，字" + f.Value)
		}
		if f, ok := first(schemas.RelArtName); ok {
			b.WriteString("，号" + f.Value)
		}
		if f, ok := first(schemas.RelNativePlace); ok {
			b.WriteString("，" + f.Value + "人")
		}
		if b.Len() > len(p.name) {
			out = append(out, b.String()+"。")
		}
	}
	if f, ok := first(schemas.RelJinshi); ok {
		if ds := tab.Find(f.Value); len(ds) == 1 && ds[0].Gregorian != 0 {
			if r := f.Qualifiers["rank"]; r != "" {
				out = append(out, fmt.Sprintf("%s（%d年）进士%s。", f.Value, ds[0].Gregorian, r))
			} else {
				out = append(out, fmt.Sprintf("%s（%d年），%s举进士。", f.Value, ds[0].Gregorian, p.name))
			}
		}
	}
	var offices []string
	for _, f := range p.refs.FactsOf(schemas.RelOffice) {
		if f.ChunkID == p.entry[0].ChunkID && !slices.Contains(offices, f.Value) {
			offices = append(offices, f.Value)
		}
	}
	if len(offices) >= 2 {
		n := min(3, len(offices)-1)
		out = append(out, "历官"+strings.Join(offices[:n], "、")+"。")
		out = append(out, "官至"+offices[len(offices)-1]+"。")
	}
	notable := 0
	for _, s := range sents[1:] {
		s = strings.TrimSpace(s)
		if notable >= 4 || used[s] || text.RuneLen(s) > 80 || text.RuneLen(s) < 8 {
			continue
		}
		if strings.Contains(s, "卒") || strings.Contains(s, "「") || strings.Contains(s, "“") {
			continue
		}
		if len(tab.Find(s)) > 0 || strings.Contains(s, "疏") || strings.Contains(s, "谥") || strings.Contains(s, "进士") {
			out = append(out, s)
			used[s] = true
			notable++
		}
	}
	for _, s := range sents {
		s = strings.TrimSpace(s)
		if !used[s] && strings.Contains(s, "卒") && text.RuneLen(s) <= 80 && text.RuneLen(s) >= 4 {
			out = append(out, s)
			break
		}
	}
	return out
}

// Injected error types and the verdict each must get.
var injectTypes = []struct {
	name, status, etype string
}{
	{"era", schemas.StatusNotSupported, schemas.ErrorEra},
	{"gregorian", schemas.StatusNotSupported, schemas.ErrorEra},
	{"place", schemas.StatusNotSupported, schemas.ErrorOther},
	{"courtesy", schemas.StatusNotSupported, schemas.ErrorAlias},
	{"rank", schemas.StatusNotSupported, schemas.ErrorKnowledge},
	{"fabricated", schemas.StatusNotIncluded, ""},
}

// madeUp are clauses written for this test that no source gives.
var madeUp = []string{
	"尝奉使高丽而还", "晚岁筑室东皋以著书自娱", "尝修《三吴水利考》四卷", "弱冠以诗名于江左",
	"尝督造战船百艘于福州", "少孤而事母至孝", "尝于县中立义仓以济贫民", "好收藏宋刻书数千卷",
	"尝与同里诸老结耆英会", "尝奏请增设河南驿站十处", "其书法得钟王遗意", "尝浚吴淞江以泄太湖之水",
}

// mutate puts one error of the type into the sentence with generic edits
// that know nothing of the checker: change an era year, move a Gregorian
// year, swap a native place or courtesy name with another person's, swap an
// examination degree or rank, append a clause. ok is false when the
// sentence has no slot for the type.
func mutate(tab *era.Table, s, typ string, places, courtesy []string, rng *rand.Rand) (string, bool) {
	rs := []rune(s)
	switch typ {
	case "era":
		ds := tab.Find(s)
		rng.Shuffle(len(ds), func(i, j int) { ds[i], ds[j] = ds[j], ds[i] })
		for _, d := range ds {
			e, ok := tab.Resolve(d.Era, d.Year)
			if d.Year < 1 || !ok || e.Len() < 2 {
				continue
			}
			y := d.Year
			for y == d.Year {
				y = 1 + rng.IntN(e.Len())
			}
			name := string(rs[d.Start : d.Start+text.RuneLen(d.Era)])
			return string(rs[:d.Start]) + name + era.FormatNumeral(y) + "年" + string(rs[d.End:]), true
		}
	case "gregorian":
		if ys := era.FindGregorian(s); len(ys) > 0 {
			y := ys[0]
			d := 1 + rng.IntN(9)
			if rng.IntN(2) == 0 {
				d = -d
			}
			digits := strconv.Itoa(y.Value)
			k := y.Start + len(digits)
			return string(rs[:y.Start]) + strconv.Itoa(y.Value+d) + string(rs[k:]), true
		}
	case "place", "courtesy":
		cl := strings.Split(strings.TrimSuffix(s, "。"), "，")
		if len(cl) < 2 || text.RuneLen(cl[0]) > 4 {
			return "", false
		}
		for i := 1; i < len(cl); i++ {
			switch {
			case strings.HasPrefix(cl[i], "字") && typ == "courtesy":
				cl[i] = "字" + pick(courtesy, strings.TrimPrefix(cl[i], "字"), rng)
				return strings.Join(cl, "，") + "。", true
			case strings.HasPrefix(cl[i], "字") || strings.HasPrefix(cl[i], "号"):
				continue
			case strings.HasSuffix(cl[i], "人") && typ == "place" && text.RuneLen(cl[i]) >= 3 && text.RuneLen(cl[i]) <= 7 &&
				!strings.ContainsAny(cl[i], "举舍为以之其有无诸者所余数一二三四五六七八九十"):
				cl[i] = pick(places, strings.TrimSuffix(cl[i], "人"), rng) + "人"
				return strings.Join(cl, "，") + "。", true
			}
			break
		}
	case "rank":
		swaps := [][2]string{{"举进士", "中举人"}, {"进士", "举人"}, {"举人", "进士"}, {"状元", "榜眼"}, {"榜眼", "探花"},
			{"探花", "状元"}, {"一甲", "二甲"}, {"二甲", "三甲"}, {"三甲", "二甲"}, {"会试", "乡试"}, {"乡试", "会试"},
			{"进士第一", "进士第三"}, {"会元", "解元"}, {"解元", "会元"}}
		for _, sw := range swaps {
			if i := strings.Index(s, sw[0]); i >= 0 {
				return s[:i] + sw[1] + s[i+len(sw[0]):], true
			}
		}
	case "fabricated":
		body := strings.TrimRight(s, "。")
		return body + "，" + madeUp[rng.IntN(len(madeUp))] + "。", true
	}
	return "", false
}

// pick takes a value of vs that differs from not and does not contain it.
func pick(vs []string, not string, rng *rand.Rand) string {
	for range 100 {
		v := vs[rng.IntN(len(vs))]
		if v != not && !strings.Contains(v, not) && !strings.Contains(not, v) {
			return v
		}
	}
	return not + "甲"
}

// writerBiography drafts the person's page with the writer's offline
// drafter, each sentence drafted after the ones before it as if accepted.
func writerBiography(t testing.TB, p *corpusPerson) []string {
	t.Helper()
	d := writer.NewOffline(writer.OfflineConfig{})
	var accepted []schemas.PageSentence
	var out []string
	for k := range 24 {
		dr, done, err := d.Draft(context.Background(), p.refs, accepted, k)
		if err != nil {
			t.Fatalf("draft %s/%d: %v", p.name, k, err)
		}
		if done {
			break
		}
		cites := make([]schemas.Citation, len(dr.Citations))
		for i, c := range dr.Citations {
			cites[i] = schemas.Citation{ChunkID: c}
		}
		accepted = append(accepted, schemas.PageSentence{Text: dr.Text, Status: schemas.StatusSupported, Citations: cites, Facts: dr.Facts})
		out = append(out, dr.Text)
	}
	return out
}

// TestCorpusInjection is the development measure of the offline checker on
// real data: biographies written in the offline form from reference sets
// built out of mingshi-liezhuan volumes — by this test's own generator and
// by the writer's offline drafter —, each sentence checked untouched (it
// must stay supported: precision) and with each error type injected (it
// must be detected, and routed by its error type).
func TestCorpusInjection(t *testing.T) {
	vols := corpusVolumes(t, *corpusVolumeCount)
	if testing.Short() {
		vols = vols[:3]
	}
	people := loadCorpus(t, vols)
	tab := era.Default()
	t.Run("generator", func(t *testing.T) {
		measureInjection(t, tab, people, func(p *corpusPerson) []string { return biography(tab, p) })
	})
	t.Run("writer", func(t *testing.T) {
		measureInjection(t, tab, people, func(p *corpusPerson) []string { return writerBiography(t, p) })
	})
	// The evaluation's own injector (internal/evaluation/inject) on the writer's
	// pages: a second, independent set of mutations.
	t.Run("writer+inject", func(t *testing.T) {
		measureWith(t, people, func(p *corpusPerson) []string { return writerBiography(t, p) }, injectMutator(tab, people))
	})
}

// Flags of TestCorpusInjection: how many volumes it reads, how many
// misses it logs.
var (
	corpusVolumeCount = flag.Int("verifier.volumes", 12, "mingshi-liezhuan volumes the corpus injection test reads")
	corpusMisses      = flag.Int("verifier.misses", 60, "misses the corpus injection test logs per sentence source")
)

// mutator puts an error of a type into a sentence of a person's page.
type mutator func(p *corpusPerson, s, typ string, rng *rand.Rand) (string, bool)

// injectMutator is internal/evaluation/inject with a pool of every person's native
// places and courtesy names, without the subject's own.
func injectMutator(tab *era.Table, people []*corpusPerson) mutator {
	var pool inject.Pool
	for _, p := range people {
		pool.Add(p.refs)
	}
	x := inject.New(tab)
	return func(p *corpusPerson, s, typ string, rng *rand.Rand) (string, bool) {
		in, ok := x.Inject(s, typ, pool.For(p.refs), rng)
		return in.Mutated, ok
	}
}

// measureInjection checks every sentence of every page untouched and
// with each error type injected, logs the rates and the misses, and fails
// below the targets.
func measureInjection(t *testing.T, tab *era.Table, people []*corpusPerson, pages func(*corpusPerson) []string) {
	measureWith(t, people, pages, ownMutator(tab, people))
}

// ownMutator is mutate with the native places and courtesy names of every
// person, without the subject's own.
func ownMutator(tab *era.Table, people []*corpusPerson) mutator {
	var places, courtesy []string
	for _, p := range people {
		for _, f := range p.refs.Facts {
			if f.Relation == schemas.RelNativePlace && !slices.Contains(places, f.Value) {
				places = append(places, f.Value)
			}
			if f.Relation == schemas.RelCourtesyName && !slices.Contains(courtesy, f.Value) {
				courtesy = append(courtesy, f.Value)
			}
		}
	}
	return func(p *corpusPerson, s, typ string, rng *rand.Rand) (string, bool) {
		own := slices.Clone(p.refs.Aliases)
		for _, f := range p.refs.FactsOf(schemas.RelNativePlace) {
			own = append(own, f.Value)
		}
		pl := slices.DeleteFunc(slices.Clone(places), func(v string) bool { return slices.Contains(own, v) })
		ct := slices.DeleteFunc(slices.Clone(courtesy), func(v string) bool { return slices.Contains(own, v) })
		return mutate(tab, s, typ, pl, ct, rng)
	}
}

// measureWith checks every sentence of every page untouched and with each
// error type put in by mut.
func measureWith(t *testing.T, people []*corpusPerson, pages func(*corpusPerson) []string, mut mutator) {
	ctx := context.Background()
	chk := verifier.NewOffline(verifier.Config{})
	rng := rand.New(rand.NewPCG(1, 2))
	type tally struct{ n, detected, routed int }
	per := map[string]*tally{}
	clean, cleanOK := 0, 0
	var misses []string
	for _, p := range people {
		for i, s := range pages(p) {
			d := schemas.Draft{RequestID: "r-" + p.name, Subject: p.name, Index: i, Text: s}
			v, err := chk.Check(ctx, p.refs, d)
			if err != nil {
				t.Fatal(err)
			}
			clean++
			if v.Status == schemas.StatusSupported {
				cleanOK++
			} else {
				misses = append(misses, fmt.Sprintf("FALSE ALARM %s: %s → %s/%s %s", p.name, s, v.Status, v.ErrorType, firstMessage(v)))
			}
			for _, it := range injectTypes {
				m, ok := mut(p, s, it.name, rng)
				if !ok || m == s {
					continue
				}
				d.Text = m
				v, err := chk.Check(ctx, p.refs, d)
				if err != nil {
					t.Fatal(err)
				}
				tl := per[it.name]
				if tl == nil {
					tl = &tally{}
					per[it.name] = tl
				}
				tl.n++
				if v.Status != schemas.StatusSupported {
					tl.detected++
				}
				if v.Status == it.status && v.ErrorType == it.etype {
					tl.routed++
				} else {
					misses = append(misses, fmt.Sprintf("%s %s: %s → %s/%s %s", it.name, p.name, m, v.Status, v.ErrorType, firstMessage(v)))
				}
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d people, %d sentences; untouched supported %d/%d = %.3f\n",
		len(people), clean, cleanOK, clean, ratio(cleanOK, clean))
	fmt.Fprintf(&b, "%-11s %6s %9s %8s\n", "type", "n", "detected", "routed")
	totalDetected, totalN, totalRouted := 0, 0, 0
	for _, it := range injectTypes {
		tl := per[it.name]
		if tl == nil {
			continue
		}
		fmt.Fprintf(&b, "%-11s %6d %9.3f %8.3f\n", it.name, tl.n, ratio(tl.detected, tl.n), ratio(tl.routed, tl.n))
		totalDetected += tl.detected
		totalN += tl.n
		totalRouted += tl.routed
	}
	// Precision: of the sentences flagged, how many carry an injected error.
	falseAlarms := clean - cleanOK
	fmt.Fprintf(&b, "detection precision %.3f (flagged %d injected, %d untouched); routing %.3f\n",
		ratio(totalDetected, totalDetected+falseAlarms), totalDetected, falseAlarms, ratio(totalRouted, totalN))
	t.Log("\n" + b.String())
	sort.Strings(misses)
	for i, m := range misses {
		if i >= *corpusMisses {
			t.Logf("… %d more", len(misses)-i)
			break
		}
		t.Log(m)
	}
	if ratio(cleanOK, clean) < 0.95 {
		t.Errorf("untouched sentences supported %.3f, want ≥ 0.95", ratio(cleanOK, clean))
	}
	for _, it := range injectTypes {
		if tl := per[it.name]; tl != nil && ratio(tl.detected, tl.n) < 0.95 {
			t.Errorf("%s: detection %.3f, want ≥ 0.95", it.name, ratio(tl.detected, tl.n))
		}
	}
	if ratio(totalRouted, totalN) < 0.90 {
		t.Errorf("routing %.3f, want ≥ 0.90", ratio(totalRouted, totalN))
	}
}

func firstMessage(v schemas.Verdict) string {
	for _, f := range v.Facts {
		if f.Status != schemas.StatusSupported {
			return "[" + f.Fact.Text + ": " + f.Message + "]"
		}
	}
	return ""
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
