package inject_test

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/inject"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/schemas"
)

// Fixture sentences in the forms the offline drafter writes, about people
// of the demo corpus and restated facts.
const (
	identity   = "叶向高，字进卿，福清人。"
	withArt    = "陆文渊，字静之，号松岩，苏州吴县人。"
	exam       = "万历十一年（1583年），叶向高举进士。"
	rankLine   = "嘉靖二十年（1541年）进士二甲。"
	relative   = "子琮，字季玉，以荫为中书舍人，能守家法。"
	plain      = "少孤，母授之书，过目成诵。"
	english    = "Thomas Harrow was born in Swansea in 1788."
	quotedStop = "帝曰：「善。」"
)

func testPool() inject.Pool {
	var p inject.Pool
	p.Add(&schemas.ReferenceSet{Facts: []schemas.KGFact{
		{Relation: schemas.RelNativePlace, Value: "福清"},
		{Relation: schemas.RelNativePlace, Value: "晋江"},
		{Relation: schemas.RelNativePlace, Value: "松江华亭"},
		{Relation: schemas.RelNativePlace, Value: "吴县"},
		{Relation: schemas.RelNativePlace, Value: "not a place"},
		{Relation: schemas.RelCourtesyName, Value: "进卿"},
		{Relation: schemas.RelCourtesyName, Value: "伯润"},
		{Relation: schemas.RelCourtesyName, Value: "鸣远"},
		{Relation: schemas.RelCourtesyName, Value: "伯润"},
		{Relation: schemas.RelOffice, Value: "礼部尚书"},
	}})
	return p
}

func TestPoolAdd(t *testing.T) {
	p := testPool()
	if want := []string{"福清", "晋江", "松江华亭", "吴县"}; !slices.Equal(p.Places, want) {
		t.Errorf("places %v, want %v", p.Places, want)
	}
	if want := []string{"进卿", "伯润", "鸣远"}; !slices.Equal(p.Courtesy, want) {
		t.Errorf("courtesy names %v, want %v", p.Courtesy, want)
	}
}

func TestInject(t *testing.T) {
	x := inject.New(era.Default())
	pool := testPool()
	ye := pool.For(&schemas.ReferenceSet{Name: "叶向高", Aliases: []string{"叶向高", "进卿", "台山"},
		Facts: []schemas.KGFact{{Relation: schemas.RelNativePlace, Value: "福清"}}})
	tests := []struct {
		name     string
		sentence string
		typ      string
		pool     inject.Pool
		ok       bool
		// right is the value replaced; wrongs the values that may be put in
		// (nil: checked by check).
		right  string
		wrongs []string
		check  func(t *testing.T, in inject.Injection)
	}{
		{name: "era year changed, Gregorian kept", sentence: exam, typ: inject.Era, ok: true, right: "万历十一年",
			check: func(t *testing.T, in inject.Injection) {
				d := era.Default().Find(in.Wrong)
				if len(d) != 1 || d[0].Era != "万历" || d[0].Year == 11 || d[0].Year < 1 || d[0].Year > 48 {
					t.Errorf("wrong date %q is not another year of 万历", in.Wrong)
				}
				if !strings.Contains(in.Mutated, "（1583年）") {
					t.Errorf("Gregorian annotation lost: %q", in.Mutated)
				}
			}},
		{name: "era 元年 is a year too", sentence: "建文元年，召为翰林院编修。", typ: inject.Era, ok: true, right: "建文元年",
			wrongs: []string{"建文二年", "建文三年", "建文四年"}},
		{name: "approximate era date has no year to change", sentence: "隆庆初，召复故官。", typ: inject.Era},
		{name: "gregorian moved by 1-9", sentence: exam, typ: inject.Gregorian, ok: true, right: "1583",
			check: func(t *testing.T, in inject.Injection) {
				v, err := strconv.Atoi(in.Wrong)
				if d := v - 1583; err != nil || d == 0 || d < -9 || d > 9 {
					t.Errorf("wrong year %q is not 1583±1..9", in.Wrong)
				}
				if !strings.Contains(in.Mutated, "万历十一年（"+in.Wrong+"年）") {
					t.Errorf("mutated %q", in.Mutated)
				}
			}},
		{name: "gregorian in English", sentence: english, typ: inject.Gregorian, ok: true, right: "1788"},
		{name: "place swapped, own place excluded", sentence: identity, typ: inject.Place, pool: ye, ok: true,
			right: "福清", wrongs: []string{"晋江", "松江华亭", "吴县"}},
		{name: "place of four characters", sentence: withArt, typ: inject.Place, pool: pool, ok: true,
			right: "苏州吴县", wrongs: []string{"福清", "晋江", "松江华亭"}},
		{name: "courtesy swapped, own names excluded", sentence: identity, typ: inject.Courtesy, pool: ye, ok: true,
			right: "进卿", wrongs: []string{"伯润", "鸣远"}},
		{name: "courtesy after an art name is still found", sentence: withArt, typ: inject.Courtesy, pool: pool, ok: true,
			right: "静之", wrongs: []string{"进卿", "伯润", "鸣远"}},
		{name: "a relative's courtesy name", sentence: relative, typ: inject.Courtesy, pool: pool, ok: true, right: "季玉"},
		{name: "an office ending in 人 is no place", sentence: relative, typ: inject.Place, pool: pool},
		{name: "an unknown origin is no place", sentence: "丁瑄，不知何许人。", typ: inject.Place, pool: pool},
		{name: "empty pool", sentence: identity, typ: inject.Place},
		{name: "举进士 becomes 中举人", sentence: exam, typ: inject.Rank, ok: true, right: "进士", wrongs: []string{"举人"},
			check: func(t *testing.T, in inject.Injection) {
				if want := "万历十一年（1583年），叶向高中举人。"; in.Mutated != want {
					t.Errorf("mutated %q, want %q", in.Mutated, want)
				}
			}},
		{name: "rank 二甲 or degree", sentence: rankLine, typ: inject.Rank, ok: true,
			check: func(t *testing.T, in inject.Injection) {
				if !(in.Right == "二甲" && in.Wrong == "三甲") && !(in.Right == "进士" && in.Wrong == "举人") {
					t.Errorf("right %q wrong %q", in.Right, in.Wrong)
				}
			}},
		{name: "fabricated before the full stop", sentence: exam, typ: inject.Fabricated, ok: true,
			check: func(t *testing.T, in inject.Injection) {
				if want := "万历十一年（1583年），叶向高举进士，" + in.Wrong + "。"; in.Mutated != want {
					t.Errorf("mutated %q, want %q", in.Mutated, want)
				}
				if !slices.Contains(inject.Clauses("zh"), in.Wrong) {
					t.Errorf("clause %q not from the pool", in.Wrong)
				}
			}},
		{name: "fabricated before a closing quote's full stop", sentence: quotedStop, typ: inject.Fabricated, ok: true,
			check: func(t *testing.T, in inject.Injection) {
				if want := "帝曰：「善，" + in.Wrong + "。」"; in.Mutated != want {
					t.Errorf("mutated %q, want %q", in.Mutated, want)
				}
			}},
		{name: "fabricated in English", sentence: english, typ: inject.Fabricated, ok: true,
			check: func(t *testing.T, in inject.Injection) {
				if want := "Thomas Harrow was born in Swansea in 1788, " + in.Wrong + "."; in.Mutated != want {
					t.Errorf("mutated %q, want %q", in.Mutated, want)
				}
			}},
		{name: "fabricated without a full stop", sentence: "官至礼部尚书", typ: inject.Fabricated, ok: true,
			check: func(t *testing.T, in inject.Injection) {
				if want := "官至礼部尚书，" + in.Wrong + "。"; in.Mutated != want {
					t.Errorf("mutated %q, want %q", in.Mutated, want)
				}
			}},
		{name: "nothing to change: era", sentence: plain, typ: inject.Era},
		{name: "nothing to change: gregorian", sentence: plain, typ: inject.Gregorian},
		{name: "nothing to change: place", sentence: plain, typ: inject.Place, pool: pool},
		{name: "nothing to change: courtesy", sentence: plain, typ: inject.Courtesy, pool: pool},
		{name: "nothing to change: rank", sentence: plain, typ: inject.Rank},
		{name: "unknown type", sentence: exam, typ: "calendar"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(20) {
				in, ok := x.Inject(tc.sentence, tc.typ, tc.pool, rand.New(rand.NewPCG(seed, 7)))
				if ok != tc.ok {
					t.Fatalf("seed %d: ok %v, want %v (%+v)", seed, ok, tc.ok, in)
				}
				if !ok {
					return
				}
				if in.Type != tc.typ || in.Original != tc.sentence || in.Mutated == tc.sentence {
					t.Fatalf("seed %d: %+v", seed, in)
				}
				if strings.Contains(tc.sentence, in.Wrong) || !strings.Contains(in.Mutated, in.Wrong) {
					t.Errorf("seed %d: wrong value %q must be new to the sentence and in the mutation %q", seed, in.Wrong, in.Mutated)
				}
				if !in.Residual(in.Mutated) || in.Residual(in.Original) {
					t.Errorf("seed %d: Residual disagrees with the mutation", seed)
				}
				if tc.right != "" && in.Right != tc.right {
					t.Errorf("seed %d: right %q, want %q", seed, in.Right, tc.right)
				}
				if tc.wrongs != nil && !slices.Contains(tc.wrongs, in.Wrong) {
					t.Errorf("seed %d: wrong %q not in %v", seed, in.Wrong, tc.wrongs)
				}
				if tc.right != "" && tc.typ != inject.Rank {
					// A swap replaces the value and nothing else.
					if got := strings.Replace(in.Mutated, in.Wrong, in.Right, 1); got != tc.sentence {
						t.Errorf("seed %d: mutation %q is more than the swap", seed, in.Mutated)
					}
				}
				if tc.check != nil {
					tc.check(t, in)
				}
			}
		})
	}
}

func TestInjectDeterministic(t *testing.T) {
	x := inject.New(era.Default())
	pool := testPool()
	for _, typ := range inject.Types() {
		a, okA := x.Inject(withArt+exam, typ, pool, rand.New(rand.NewPCG(3, 4)))
		b, okB := x.Inject(withArt+exam, typ, pool, rand.New(rand.NewPCG(3, 4)))
		if okA != okB || a != b {
			t.Errorf("%s: %+v and %+v from the same seed", typ, a, b)
		}
	}
}

func TestInjectVaries(t *testing.T) {
	// Over seeds the injector reaches more than one wrong value.
	x := inject.New(era.Default())
	seen := map[string]bool{}
	for seed := range uint64(30) {
		if in, ok := x.Inject(exam, inject.Era, inject.Pool{}, rand.New(rand.NewPCG(seed, 1))); ok {
			seen[in.Wrong] = true
		}
	}
	if len(seen) < 10 {
		t.Errorf("30 seeds gave %d distinct era years: %v", len(seen), seen)
	}
}

func TestApplicable(t *testing.T) {
	x := inject.New(era.Default())
	pool := testPool()
	tests := []struct {
		sentence string
		want     []string
	}{
		{identity, []string{inject.Place, inject.Courtesy, inject.Fabricated}},
		{exam, []string{inject.Era, inject.Gregorian, inject.Rank, inject.Fabricated}},
		{plain, []string{inject.Fabricated}},
		{english, []string{inject.Gregorian, inject.Fabricated}},
		{"", nil},
	}
	for _, tc := range tests {
		if got := x.Applicable(tc.sentence, pool); !slices.Equal(got, tc.want) {
			t.Errorf("Applicable(%q) = %v, want %v", tc.sentence, got, tc.want)
		}
	}
}

func TestClauses(t *testing.T) {
	zh, en := inject.Clauses("zh"), inject.Clauses("en")
	if len(zh) < 30 || len(en) < 15 {
		t.Fatalf("%d Chinese and %d English clauses; want at least 30 and 15", len(zh), len(en))
	}
	for _, list := range [][]string{zh, en} {
		seen := map[string]bool{}
		for _, c := range list {
			if seen[c] || strings.ContainsAny(c, "，。,.") {
				t.Errorf("clause %q is repeated or more than one clause", c)
			}
			seen[c] = true
		}
	}
}

func BenchmarkInject(b *testing.B) {
	x := inject.New(era.Default())
	pool := testPool()
	rng := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	for b.Loop() {
		for _, typ := range inject.Types() {
			x.Inject(withArt+exam, typ, pool, rng)
		}
	}
}
