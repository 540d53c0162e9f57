package verifier_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/lang/en/discourse"
	"github.com/annalist-dev/annalist/internal/lang/en/support"
	"github.com/annalist-dev/annalist/schemas"
)

var kgdsHeldOut = flag.Bool("kgds.heldout", false, "TestKGDSSupport: measure the held-out fifth of KGDS instead of dev")

// kgdsFacts are a KGDS record's gold atomic facts (BSPAF and BNPAF), each
// with the paragraph it was written from.
type kgdsFacts struct {
	ID    json.RawMessage `json:"id"`
	BSPAF []struct {
		Paragraph int `json:"paragraph_index"`
		Facts     []struct {
			Text string `json:"atomic_fact"`
		} `json:"atomic_facts"`
	} `json:"BSPAF"`
	BNPAF []struct {
		Paragraph int `json:"paragraph_index"`
		Facts     []struct {
			Text string `json:"atomic_fact"`
		} `json:"atomic_facts"`
	} `json:"BNPAF"`
}

// discussionRefs is a discussion's reference set as the summary kind's
// planner makes it: the paragraphs, then the turns.
func discussionRefs(d schemas.Discussion) *schemas.ReferenceSet {
	rs := &schemas.ReferenceSet{Subject: d.ID, Name: d.ID, Lang: "en", Discussion: &d}
	for _, p := range d.Background {
		rs.References = append(rs.References, schemas.Reference{ChunkID: schemas.ParagraphRef(d.ID, p.Index), Text: p.Text,
			Source: schemas.SourceParagraph})
	}
	for i, tn := range d.Turns {
		rs.References = append(rs.References, schemas.Reference{ChunkID: schemas.TurnRef(d.ID, i), Text: tn.Utterance,
			Source: schemas.SourceTurn})
	}
	return rs
}

var (
	numberRE = regexp.MustCompile(`\d+`)
	nameRE   = regexp.MustCompile(`\b[A-Z][a-z]+ [A-Z][a-z]+\b`)
)

// corruptions are a gold fact made false by one edit, each with its
// kind: its first number plus one ("number"), another record's fact added
// ("added"), its first two-word name replaced by the first of that fact
// ("name").
func corruptions(fact, other string) map[string]string {
	out := map[string]string{}
	if m := numberRE.FindStringIndex(fact); m != nil {
		n, _ := strconv.Atoi(fact[m[0]:m[1]])
		out["number"] = fact[:m[0]] + strconv.Itoa(n+1) + fact[m[1]:]
	}
	if o := strings.TrimSuffix(other, "."); o != "" {
		out["added"] = strings.TrimSuffix(fact, ".") + ", and " + strings.ToLower(o[:1]) + o[1:] + "."
	}
	if m := nameRE.FindStringIndex(fact); m != nil {
		if n := nameRE.FindString(other); n != "" && n != fact[m[0]:m[1]] {
			out["name"] = fact[:m[0]] + n + fact[m[1]:]
		}
	}
	return out
}

// tally counts one kind of sentence: how many there are, how many the
// verifier accepts without the judge and with it, and how many the
// offline judge alone calls complete and missing.
type tally struct{ n, without, with, complete, missing int }

func (t *tally) share(k int) float64 {
	if t.n == 0 {
		return 0
	}
	return float64(k) / float64(t.n)
}

// TestKGDSSupport measures the claim-support judge as the discussion
// verifier's second opinion on KGDS dev (the held-out fifth with
// -kgds.heldout): background sentences are the gold atomic facts cited to
// the paragraph they were written from ("own", true), to the paragraph
// half the background away ("other") and, cited to their own paragraph,
// each corruption of them (false); opinions are the offline summary's,
// cited to their turn (true) and to another turn of the same participant
// (false). The verifier with the judge must accept no false sentence the
// one without it refuses, and keep all but a hundredth of the true ones
// it accepts.
func TestKGDSSupport(t *testing.T) {
	path := filepath.Join(datasettest.Require(t, "kgds"), "dev.json")
	samples, err := eval.ReadKGDS(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var facts []kgdsFacts
	if err := json.Unmarshal(b, &facts); err != nil {
		t.Fatal(err)
	}
	if len(facts) != len(samples) {
		t.Fatalf("%d records of facts, %d samples", len(facts), len(samples))
	}
	// first[i] is record i's first gold fact, the one its neighbour's
	// corruptions borrow
	first := make([]string, len(facts))
	for i, f := range facts {
		if len(f.BSPAF) > 0 && len(f.BSPAF[0].Facts) > 0 {
			first[i] = f.BSPAF[0].Facts[0].Text
		}
	}
	ctx := context.Background()
	without := verifier.WithDiscussions(verifier.NewOffline(verifier.Config{}))
	with := verifier.WithDiscussions(verifier.NewOffline(verifier.Config{}), verifier.JudgeBackground(verifier.OfflineClaims{}))
	tallies := map[string]*tally{}
	count := func(kind string, refs *schemas.ReferenceSet, d schemas.Draft, passage string) {
		t.Helper()
		x := tallies[kind]
		if x == nil {
			x = &tally{}
			tallies[kind] = x
		}
		x.n++
		for _, c := range []struct {
			c verifier.Checker
			n *int
		}{{without, &x.without}, {with, &x.with}} {
			v, err := c.c.Check(ctx, refs, d)
			if err != nil {
				t.Fatal(err)
			}
			if v.Status == schemas.StatusSupported {
				*c.n++
			}
		}
		switch support.Judge(d.Text, []string{passage}).Label {
		case support.Complete:
			x.complete++
		case support.Missing:
			x.missing++
		}
	}
	for i, s := range samples {
		if eval.HeldOut(s.ID) != *kgdsHeldOut {
			continue
		}
		d := s.Discussion
		refs := discussionRefs(d)
		draft := func(text string, cite string) schemas.Draft {
			return schemas.Draft{RequestID: "kgds-" + d.ID, Kind: schemas.KindDiscussionSummary, Subject: d.ID,
				Text: text, Citations: []string{cite}}
		}
		for _, po := range discourse.Summarize(d).Opinions {
			for _, o := range po.Sentences {
				own := o.Citations[0].Turn
				dr := draft(o.Text, schemas.TurnRef(d.ID, own))
				dr.Entities = o.Entities
				count("opinion own turn", refs, dr, d.Turns[own].Utterance)
				for k := 1; k < len(d.Turns); k++ {
					if o := (own + k) % len(d.Turns); o != own && d.Turns[o].Participant == d.Turns[own].Participant {
						dr.Citations = []string{schemas.TurnRef(d.ID, o)}
						count("opinion other turn", refs, dr, d.Turns[o].Utterance)
						break
					}
				}
			}
		}
		text := map[int]string{}
		var order []int
		for _, p := range d.Background {
			text[p.Index] = p.Text
			order = append(order, p.Index)
		}
		f := facts[i]
		if id := strings.Trim(string(f.ID), `"`); id != d.ID && len(f.ID) > 0 {
			t.Fatalf("record %d: facts of %s, sample %q", i, id, d.ID)
		}
		for _, g := range append(f.BSPAF, f.BNPAF...) {
			at := -1
			for j, x := range order {
				if x == g.Paragraph {
					at = j
				}
			}
			if at < 0 {
				t.Fatalf("sample %s: a fact of paragraph %d, which it lacks", d.ID, g.Paragraph)
			}
			ownRef := schemas.ParagraphRef(d.ID, g.Paragraph)
			for _, af := range g.Facts {
				count("background own paragraph", refs, draft(af.Text, ownRef), text[g.Paragraph])
				if o := order[(at+len(order)/2)%len(order)]; o != g.Paragraph {
					count("background other paragraph", refs, draft(af.Text, schemas.ParagraphRef(d.ID, o)), text[o])
				}
				for kind, c := range corruptions(af.Text, first[(i+1)%len(first)]) {
					count("background "+kind+" corrupted", refs, draft(c, ownRef), text[g.Paragraph])
				}
			}
		}
	}
	split := "dev"
	if *kgdsHeldOut {
		split = "held-out"
	}
	kinds := []string{"background own paragraph", "background other paragraph", "background number corrupted",
		"background name corrupted", "background added corrupted", "opinion own turn", "opinion other turn"}
	for _, k := range kinds {
		x := tallies[k]
		if x == nil || x.n == 0 {
			t.Fatalf("no %s sentence measured", k)
		}
		t.Logf("%s %-28s n=%5d accepted without the judge %.3f, with it %.3f; the judge alone: complete %.3f missing %.3f",
			split, k, x.n, x.share(x.without), x.share(x.with), x.share(x.complete), x.share(x.missing))
	}
	for _, k := range kinds {
		x := tallies[k]
		switch {
		case strings.HasSuffix(k, "own paragraph") || strings.HasSuffix(k, "own turn"):
			if x.with < x.without*99/100 {
				t.Errorf("%s: the judge refuses %d of the %d the verifier accepts", k, x.without-x.with, x.without)
			}
		case x.with > x.without:
			t.Errorf("%s (false): %d accepted with the judge, %d without", k, x.with, x.without)
		}
	}
}
