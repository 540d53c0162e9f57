package writer_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"

	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/consumers/writer/biography"
	"github.com/annalist-dev/annalist/consumers/writer/internal/writertest"
	"github.com/annalist-dev/annalist/schemas"
)

// draftAll drafts every sentence of the page, accepting each as written.
func draftAll(t testing.TB, d writer.Drafter, refs *schemas.ReferenceSet) []schemas.Draft {
	t.Helper()
	var out []schemas.Draft
	var accepted []schemas.PageSentence
	for k := 0; k < 50; k++ {
		dr, done, err := d.Draft(context.Background(), refs, accepted, k)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			return out
		}
		out = append(out, dr)
		accepted = append(accepted, schemas.PageSentence{Text: dr.Text, Status: schemas.StatusSupported})
	}
	t.Fatal("the drafter never finished the page")
	return nil
}

// TestOfflineYeXiangGao checks the offline engine on the real
// volume 128: 叶向高's page states his courtesy name 进卿, his native place
// 福清, his jinshi year 万历十一年 with the Gregorian year 1583 and his
// highest office, each sentence citing the chunk it comes from.
func TestOfflineYeXiangGao(t *testing.T) {
	dir := datasettest.Require(t, "mingshi-liezhuan")
	w := writertest.NewWorld(t)
	ingest(t, w, writertest.VolumeDocs(t, dir, "128.txt"))
	refs, err := biography.NewRetriever(w.G, w.Chunks).Retrieve(context.Background(), tenant, "叶向高")
	if err != nil {
		t.Fatal(err)
	}
	o := writer.NewOffline(writer.OfflineConfig{})
	ds := draftAll(t, o, refs)
	page := strings.Join(texts(ds), "\n")
	t.Logf("叶向高, %d sentences (%v):\n%s", len(ds), o.PlanStats(refs), page)
	notable := 0
	for _, it := range o.Plan(refs) {
		if it.Kind == writer.ItemNotable {
			notable++
		}
	}
	// A long entry: the budget of its length in notable acts, all of them
	// used.
	if b := o.PlanStats(refs)[writer.StatLifeBudget]; b < 5 || int64(notable) != b {
		t.Errorf("%d notable acts, life budget %d; want the budget of a long entry, used", notable, b)
	}
	checkDrafts(t, refs, ds)
	for _, want := range []string{"字进卿", "福清人", "万历十一年（1583年）", "官至礼部尚书兼东阁大学士。"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not state %q", want)
		}
	}
	if !strings.HasPrefix(ds[0].Text, "叶向高，字进卿，福清人。") {
		t.Errorf("the page opens with %q", ds[0].Text)
	}
}

// TestOfflineCorpusVerified drafts the page of every entry's subject in
// the History of Ming biographies and checks each sentence with the
// offline verifier: the extractive engine's guarantee is that what it
// writes is supported by the sentence's citations.
func TestOfflineCorpusVerified(t *testing.T) {
	dir := datasettest.Require(t, "mingshi-liezhuan")
	if testing.Short() {
		t.Skip("drafts and verifies some ten thousand sentences")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range files {
		files[i] = filepath.Base(files[i])
	}
	w := writertest.NewWorld(t)
	var subjects []string
	for _, c := range ingest(t, w, writertest.VolumeDocs(t, dir, files...)) {
		if c.Subject != "" && !slices.Contains(subjects, c.Subject) {
			subjects = append(subjects, c.Subject)
		}
	}
	ctx := context.Background()
	r := biography.NewRetriever(w.G, w.Chunks)
	o := writer.NewOffline(writer.OfflineConfig{})
	ck := verifier.NewOffline(verifier.Config{})
	sentences, supported, pages, inRange := 0, 0, 0, 0
	byKind := map[string][2]int{}
	for _, s := range subjects {
		refs, err := r.Retrieve(ctx, tenant, s)
		if err != nil {
			t.Fatal(err)
		}
		plan := o.Plan(refs)
		ds := draftAll(t, o, refs)
		pages++
		if len(ds) >= 6 && len(ds) <= 12 {
			inRange++
		}
		for i, d := range ds {
			d.RequestID = "r-" + s
			v, err := ck.Check(ctx, refs, d)
			if err != nil {
				t.Fatal(err)
			}
			sentences++
			k := byKind[plan[i].Kind]
			k[1]++
			if v.Status == schemas.StatusSupported {
				supported++
				k[0]++
			} else {
				t.Logf("%s: %q is %s (%s)", s, d.Text, v.Status, v.ErrorType)
			}
			byKind[plan[i].Kind] = k
		}
	}
	rate := float64(supported) / float64(sentences)
	t.Logf("%d pages (%d of 6–12 sentences), %d sentences, %d supported (%.4f); by kind (supported, drafted): %v",
		pages, inRange, sentences, supported, rate, byKind)
	if rate < 0.99 {
		t.Errorf("%.4f of the offline sentences verified supported, want ≥ 0.99", rate)
	}
}
