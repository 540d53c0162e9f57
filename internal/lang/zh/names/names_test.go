package names

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/lang/profile"
)

func liezhuanWords(t *testing.T) *Words {
	t.Helper()
	p, ok := profile.Default().Get(profile.Liezhuan)
	if !ok {
		t.Fatal("no liezhuan profile")
	}
	return WordsOf(p)
}

// A volume labels the runs that open its lines for free: a name its
// listing writes, a name followed by a courtesy name or a native place, a
// clause the listing does not write and after which no one is presented;
// a relative written with the kinship word, and a sentence inside a line
// followed by words that could present a person, are left out.
func TestRunsLabels(t *testing.T) {
	vol := "高山(子琮)吴安\n" +
		"高山，字仲岳，临川人。洪武中为御史，有直声。\n" +
		"帝怒，下狱。\n" +
		"子琮，由荫授官。琮，字季玉，亦有声。\n" +
		"久之，山还朝。时有周德，亦临川人。\n" +
		"宋濂，字景濂，浦江人。\n" +
		"吴安，守静其字也。\n"
	got := map[string]Label{}
	for _, r := range Runs(vol, "v", liezhuanWords(t)) {
		got[string(r.Run)] = r.Label
	}
	want := map[string]Label{
		"高山": Name, "帝怒": Other, "子琮": Unknown, "琮": Name, "时有周德": Unknown, "久之": Other,
		"宋濂": Name, "吴安": Name,
	}
	for run, l := range want {
		if g, ok := got[run]; !ok || g != l {
			t.Errorf("run %s: label %v (found %v), want %v", run, g, ok, l)
		}
	}
	if len(Runs("◎循吏\n高山，字仲岳，临川人。\n", "v", liezhuanWords(t))) != 0 {
		t.Error("a volume without a listing gave runs")
	}
}

// The shipped judge reads back to the file it was written as, and turns
// down, in the words of a volume, a clause that begins with the name of
// the volume's person while it takes a name followed by a courtesy name.
func TestShippedJudge(t *testing.T) {
	j := For(profile.Liezhuan)
	if j == nil {
		t.Fatal("no liezhuan judge")
	}
	if For(profile.Generic) != nil {
		t.Error("the generic profile has a judge")
	}
	shipped, err := os.ReadFile(filepath.Join("data", profile.Liezhuan+".tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var comments []string
	for _, line := range strings.Split(string(shipped), "\n") {
		if c, ok := strings.CutPrefix(line, "# "); ok {
			comments = append(comments, c)
		}
	}
	var buf bytes.Buffer
	if err := j.Write(&buf, comments...); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), shipped) {
		t.Error("the shipped judge does not write back as its file")
	}
	vol := []rune("顾成\n顾成，字叔时，无锡人。万历中举进士，授户部主事，以直谏闻。\n" +
		"叔时既废，名益高，中外荐者百十疏，皆不报。\n" +
		"钱一本，字国瑞，武进人。\n")
	d := NewDoc(vol, liezhuanWords(t))
	at := func(s string) (int, int) {
		p := strings.Index(string(vol), s)
		p = len([]rune(string(vol)[:p]))
		return p, p + len([]rune(s))
	}
	if p, e := at("叔时既废"); j.Named(d, []rune("叔时既废"), p, e) {
		t.Error("叔时既废 taken for a name")
	}
	if p, e := at("钱一本"); !j.Named(d, []rune("钱一本"), p, e) {
		t.Error("钱一本 turned down")
	}
}

func TestReadJudgeErrors(t *testing.T) {
	for _, bad := range []string{
		"chars\tbias\t1\n", // no judge bias
		"chars\tbias\t1\njudge\tbias\t0\njudge\tnope\t1\n", // unknown feature
		"chars\tbias\t1\njudge\tbias\t0\nlexicon\t山水\t1\n", // two characters
		"chars\tbias\t1\njudge\tbias\t0\nchars\tbias\t2\n", // twice
		"chars\tbias\tx\n", // not a number
		"chars\tbias\n",    // two fields
		"chars\tbias\t1\njudge\tbias\t0\nprior\tsome\t1\n",  // unknown context
		"chars\tbias\t1\njudge\tbias\t0\nsurname\t李\t0.5\n", // not a count
	} {
		if _, err := ReadJudge(strings.NewReader(bad)); err == nil {
			t.Errorf("%q read without an error", bad)
		}
	}
}

// Fitted on a random half of the development volumes, the judge is
// scored on the other half: it keeps nearly every name there and turns
// down nearly every other run, and the character model alone tells most
// of them apart.
func TestJudgeOnUnseenVolumes(t *testing.T) {
	texts, groups := devVolumes(t)
	words := liezhuanWords(t)
	rng := rand.New(rand.NewPCG(7, 11))
	var train, test []Run
	trainLex := map[string]Lexicon{}
	for i, s := range texts {
		runs := Runs(s, groups[i], words)
		if rng.IntN(2) == 0 {
			train = append(train, runs...)
			trainLex[groups[i]] = Lexicon{}
			trainLex[groups[i]].Add(s)
		} else {
			test = append(test, runs...)
		}
	}
	j, _ := FitJudge(train, trainLex, Lexicon{}, fitFolds, fitOptions)
	var names, others, kept, turned int
	var labelled []Example
	var scores []float64
	for _, r := range test {
		if r.Label == Unknown {
			continue
		}
		labelled = append(labelled, Example{Run: r.Run, Name: r.Label == Name})
		scores = append(scores, j.chars.Score(r.Run))
		named := j.Named(r.Doc, r.Run, r.At, r.End)
		if r.Label == Name {
			names++
			kept += b2i(named)
		} else {
			others++
			turned += b2i(!named)
		}
	}
	m := metricsOf(labelled, scores)
	t.Logf("unseen half: %d names, %d others; judge keeps %.4f of names, turns down %.4f of others; characters alone: %+v",
		names, others, ratio(kept, names), ratio(turned, others), m)
	if ratio(kept, names) < 0.97 || ratio(turned, others) < 0.97 || m.Accuracy < 0.9 {
		t.Errorf("on unseen volumes the judge keeps %.4f of names and turns down %.4f of others, characters %.4f",
			ratio(kept, names), ratio(turned, others), m.Accuracy)
	}
}
