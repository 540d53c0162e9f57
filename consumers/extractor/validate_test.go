package extractor_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/ports/regexmem"

	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/schemas"
)

func TestCheckRegexRules(t *testing.T) {
	text := "林远，表字子文，吴县人。举万历五年进士，授吴江知县。迁南京户部主事。"
	tail := map[string]int{"tail": 1}
	tests := []struct {
		name, rel, src string
		groups         map[string]int
		text           string
		reason         string // "" means accepted
	}{
		{"valid", schemas.RelCourtesyName, `表字(\p{Han}{2})`, tail, text, ""},
		{"valid with qualifier group", schemas.RelOffice, `(授|迁)(\p{Han}{2,8}?(?:知县|主事))`,
			map[string]int{"verb": 1, "tail": 2}, text, ""},
		{"empty", schemas.RelCourtesyName, ``, tail, text, "1–300 bytes"},
		{"too long", schemas.RelCourtesyName, strings.Repeat("表", 120) + `(\p{Han})`, tail, text, "1–300 bytes"},
		{"backreference", schemas.RelCourtesyName, `表字(\p{Han})\1`, tail, text, "does not compile"},
		{"lookahead", schemas.RelCourtesyName, `(?=表)表字(\p{Han}{2})`, tail, text, "does not compile"},
		{"lookbehind", schemas.RelCourtesyName, `(?<=表)字(\p{Han}{2})`, tail, text, "does not compile"},
		{"no group", schemas.RelCourtesyName, `表字\p{Han}{2}`, tail, text, "capture groups"},
		{"no tail role", schemas.RelCourtesyName, `表字(\p{Han}{2})`, map[string]int{"year": 1}, text, `no "tail" role`},
		{"group out of range", schemas.RelCourtesyName, `表字(\p{Han}{2})`, map[string]int{"tail": 2}, text, "names group 2"},
		{"two roles on a group", schemas.RelJinshi, `举(\p{Han}{2,6}年)进士`, map[string]int{"tail": 1, "year": 1}, text, "two roles"},
		{"unknown role", schemas.RelCourtesyName, `表字(\p{Han}{2})`, map[string]int{"tail": 1, "rank": 1}, text, "not a qualifier"},
		{"relation without patterns", schemas.RelMention, `表字(\p{Han}{2})`, tail, text, "cannot be extracted"},
		{"matches empty", schemas.RelCourtesyName, `(表?字?)`, tail, text, "empty string"},
		{"no anchor", schemas.RelCourtesyName, `(\p{Han}{2})，`, tail, text, "no anchor"},
		{"anchor only inside the tail", schemas.RelCourtesyName, `(表字\p{Han}{2})`, tail, text, "no anchor"},
		{"optional anchor", schemas.RelCourtesyName, `(?:表字)?(\p{Han}{2})，`, tail, text, "no anchor"},
		{"dot star", schemas.RelCourtesyName, `表字(.*)`, tail, text, "without bound"},
		{"dot plus elsewhere", schemas.RelCourtesyName, `表字(\p{Han}{2}).+`, tail, text, "without bound"},
		{"class across sentences", schemas.RelCourtesyName, `表字([^，]+)`, tail, text, "without bound"},
		{"no match", schemas.RelCourtesyName, `别字(\p{Han}{2})`, tail, text, "does not match"},
		{"control sentence", schemas.RelCourtesyName, `字(\p{Han}{2})`, tail, text, "control sentences"},
		{"tail too long", schemas.RelCourtesyName, `表字(\p{Han}{2}，\p{Han}{3})`, tail, text, "at most 4"},
		{"empty group in a match", schemas.RelJinshi, `举(\p{Han}{2})?(\p{Han}{2,4}年)进士`,
			map[string]int{"era": 1, "tail": 2}, "举万历五年进士", "is empty"},
		{"too many matches", schemas.RelCourtesyName, `表字(\p{Han}{2})`, tail,
			strings.Repeat("甲，表字子文。", 4), "matches 4 times"},
		{"match too long", schemas.RelOffice, `授(\p{Han}{2})\p{Han}{0,130}知县`, tail,
			"授" + strings.Repeat("甲", 130) + "知县", "spans"},
		{"covers the chunk", schemas.RelOffice, `授(\p{Han}{2})\p{Han}{0,100}知县`, tail,
			strings.Repeat("授"+strings.Repeat("乙", 60)+"知县。", 5), "cover"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := regexmem.Pattern{Relation: tt.rel, Source: tt.src, Groups: tt.groups}
			ms, err := extractor.CheckRegex(p, tt.text)
			if tt.reason == "" {
				if err != nil || len(ms) == 0 {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted %q with %d matches; want rejection for %q", tt.src, len(ms), tt.reason)
			}
			if !errors.Is(err, extractor.ErrRejected) || !strings.Contains(err.Error(), tt.reason) {
				t.Fatalf("error %q; want ErrRejected mentioning %q", err, tt.reason)
			}
		})
	}
}

func TestCheckRegexMatches(t *testing.T) {
	text := "林远，表字子文，吴县人。举万历五年进士，授吴江知县。迁南京户部主事。"
	p := regexmem.Pattern{Relation: schemas.RelOffice, Source: `(授|迁)(\p{Han}{2,8}?(?:知县|主事))`,
		Groups: map[string]int{"verb": 1, "tail": 2}}
	ms, err := extractor.CheckRegex(p, text)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Tail != "吴江知县" || ms[0].Qualifiers["verb"] != "授" ||
		ms[1].Tail != "南京户部主事" || ms[1].Qualifiers["verb"] != "迁" || text[ms[1].TailStart:ms[1].TailEnd] != "南京户部主事" {
		t.Fatalf("matches = %+v", ms)
	}
}

// FuzzCheckRegex holds the validator to its contract on any input: it never
// panics, and what it accepts has a non-empty tail inside the text within
// the relation's bound, in matches no longer than 120 characters.
func FuzzCheckRegex(f *testing.F) {
	f.Add(`表字(\p{Han}{2})`, "林远，表字子文，吴县人。")
	f.Add(`(.*)`, "anything at all")
	f.Add(`born in ([A-Z]\w+)`, "He was born in Swansea in 1788.")
	f.Add(`(a|b)*(c)`, "abababc")
	f.Add(`\1(x)`, "xx")
	f.Add(`(?i)(字)`, "字")
	f.Fuzz(func(t *testing.T, src, text string) {
		for _, rel := range []string{schemas.RelCourtesyName, schemas.RelBirth, schemas.RelOffice} {
			p := regexmem.Pattern{Relation: rel, Source: src, Groups: map[string]int{"tail": 1}}
			ms, err := extractor.CheckRegex(p, text)
			if err != nil {
				if !errors.Is(err, extractor.ErrRejected) {
					t.Fatalf("error %v is not ErrRejected", err)
				}
				continue
			}
			if len(ms) == 0 {
				t.Fatal("accepted without a match")
			}
			for _, m := range ms {
				if m.Start < 0 || m.End > len(text) || m.TailStart < m.Start || m.TailEnd > m.End ||
					text[m.TailStart:m.TailEnd] != m.Tail || strings.TrimSpace(m.Tail) == "" {
					t.Fatalf("bad match %+v in %q", m, text)
				}
				if utf8.RuneCountInString(text[m.Start:m.End]) > 120 {
					t.Fatalf("match longer than 120 characters accepted: %q", text[m.Start:m.End])
				}
			}
		}
	})
}
