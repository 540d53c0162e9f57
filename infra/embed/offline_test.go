package embed_test

import (
	"bufio"
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"

	"github.com/annalist-dev/annalist/infra/embed"
	"github.com/annalist-dev/annalist/infra/hnsw"
)

func offline(t testing.TB, dim int) *embed.Offline {
	t.Helper()
	o, err := embed.NewOffline(embed.OfflineConfig{Dim: dim})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func cosine(a, b []float32) float64 {
	var d float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
	}
	return d
}

func norm(v []float32) float64 { return math.Sqrt(cosine(v, v)) }

func TestOfflineIsDeterministicAndNormalised(t *testing.T) {
	o := offline(t, 0)
	if o.Dim() != embed.DefaultOfflineDim {
		t.Fatalf("dim = %d, want the default %d", o.Dim(), embed.DefaultOfflineDim)
	}
	texts := []string{"叶向高，字进卿，福清人。", "Ye Xianggao was a native of Fuqing.", "混合 mixed 文本 text"}
	a, err := o.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := offline(t, 0).Embed(context.Background(), texts)
	for i := range texts {
		if len(a[i]) != o.Dim() {
			t.Fatalf("vector %d has %d components", i, len(a[i]))
		}
		if n := norm(a[i]); math.Abs(n-1) > 1e-5 {
			t.Fatalf("vector %d has norm %v, want 1", i, n)
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				t.Fatalf("text %d embeds differently in two embedders", i)
			}
		}
	}
}

func TestOfflineZeroVectorWithoutText(t *testing.T) {
	o := offline(t, 64)
	for _, s := range []string{"", "，。！ ...", "   \n\t"} {
		if n := norm(o.Vector(s)); n != 0 {
			t.Errorf("%q has norm %v, want the zero vector", s, n)
		}
	}
}

func TestOfflineSimilarity(t *testing.T) {
	o := offline(t, 0)
	tests := []struct {
		name             string
		query, near, far string
	}{
		{"classical chinese name and place",
			"叶向高 福清人",
			"叶向高，字进卿，福清人。万历十一年进士。",
			"齐泰，溧水人。初名德。洪武十七年，举应天乡试第一。"},
		{"english topic",
			"appointed governor of the province",
			"He was appointed the governor of Fujian province in 1583.",
			"The recipe calls for two cups of flour and an egg."},
		{"english inflection shares trigrams",
			"examinations",
			"He passed the examination.",
			"He sailed across the sea."},
		{"case does not matter",
			"MING DYNASTY",
			"the ming dynasty",
			"the tang dynasty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := o.Vector(tc.query)
			near, far := cosine(q, o.Vector(tc.near)), cosine(q, o.Vector(tc.far))
			if near <= far {
				t.Fatalf("cos(query, near) = %.3f ≤ cos(query, far) = %.3f", near, far)
			}
		})
	}
}

func TestOfflineRejectsBadDimension(t *testing.T) {
	for _, d := range []int{-1, 1} {
		if _, err := embed.NewOffline(embed.OfflineConfig{Dim: d}); err == nil {
			t.Errorf("dimension %d accepted", d)
		}
	}
}

func TestOfflineHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := offline(t, 0).Embed(ctx, []string{"a"}); err == nil {
		t.Fatal("embedding with a cancelled context succeeded")
	}
}

// entryHead matches the opening of a biography in the History of Ming:
// "Name，字X，Place人" with the courtesy name optional.
var entryHead = regexp.MustCompile(`^(\p{Han}{2,4})，(?:字\p{Han}{1,3}，)?[^，。]{0,8}?(\p{Han}{2,3})人`)

type bio struct{ name, place, text string }

// biographies splits every volume into entries: an entry runs from a
// paragraph that opens like a biography to the next one. Line 1 of a volume
// is its table of contents and is skipped.
func biographies(t testing.TB, dir string) []bio {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no volumes in %s: %v", dir, err)
	}
	var out []bio
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		var cur *strings.Builder
		for line := 0; sc.Scan(); line++ {
			if line == 0 {
				continue
			}
			text := sc.Text()
			if m := entryHead.FindStringSubmatch(text); m != nil {
				out = append(out, bio{name: m[1], place: m[2]})
				cur = &strings.Builder{}
			}
			if cur != nil {
				if cur.Len() > 0 {
					cur.WriteByte('\n')
				}
				cur.WriteString(text)
				out[len(out)-1].text = cur.String()
			}
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestOfflineFindsOwnBiography embeds every biography of the History of
// Ming and asks, for each person, "Name Place人": how often is the person's
// own entry among the 10 nearest of all entries? Chance is 10/entries.
func TestOfflineFindsOwnBiography(t *testing.T) {
	dir := datasettest.Require(t, "mingshi-liezhuan")
	bios := biographies(t, dir)
	if len(bios) < 500 {
		t.Fatalf("found only %d biographies", len(bios))
	}
	o := offline(t, 0)
	texts := make([]string, len(bios))
	for i, b := range bios {
		texts[i] = b.text
	}
	vecs, err := o.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	// Exact search through the vector index: its dot product is the
	// vectorised one, which keeps this test fast under the race detector.
	ix, err := hnsw.NewIndex(o.Dim(), hnsw.Params{})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		if err := ix.Upsert(strconv.Itoa(i), "", v); err != nil {
			t.Fatal(err)
		}
	}
	hit1, hit10, mrr := 0, 0, 0.0
	for i, b := range bios {
		hits, err := ix.Exact(o.Vector(b.name+" "+b.place+"人"), len(bios))
		if err != nil {
			t.Fatal(err)
		}
		for r, h := range hits {
			if h.ChunkID == strconv.Itoa(i) {
				if r == 0 {
					hit1++
				}
				if r < 10 {
					hit10++
				}
				mrr += 1 / float64(r+1)
				break
			}
		}
	}
	n := float64(len(bios))
	chance := 10 / n
	t.Logf("%d biographies: hit@1 %.3f, hit@10 %.3f, MRR %.3f; chance hit@10 %.4f",
		len(bios), float64(hit1)/n, float64(hit10)/n, mrr/n, chance)
	if got := float64(hit10) / n; got < 0.6 || got < 50*chance {
		t.Fatalf("hit@10 = %.3f, want ≥ 0.6 and ≥ 50× chance (%.4f)", got, chance)
	}
}

func benchText(b *testing.B, text string) {
	o := offline(b, 0)
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		o.Vector(text)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "texts/s")
	b.ReportMetric(float64(b.N*len([]rune(text)))/b.Elapsed().Seconds(), "chars/s")
}

// A biography-sized chunk of classical Chinese (about 1,000 characters).
func BenchmarkOfflineChinese(b *testing.B) {
	unit := "叶向高，字进卿，福清人。万历十一年进士。改庶吉士，进编修，迁南京国子司业。"
	benchText(b, strings.Repeat(unit, 1000/len([]rune(unit))+1))
}

// An English paragraph of about 1,000 characters.
func BenchmarkOfflineEnglish(b *testing.B) {
	unit := "Ye Xianggao, courtesy name Jinqing, was a native of Fuqing who passed the palace examination in 1583. "
	benchText(b, strings.Repeat(unit, 1000/len(unit)+1))
}
