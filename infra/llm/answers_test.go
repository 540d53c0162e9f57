package llm_test

import (
	"testing"

	"github.com/annalist-dev/annalist/infra/llm"
)

func TestExtractJSON(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     string
		kind     llm.AnswerKind
	}{
		{"object", `{"text":"甲","citations":["c1"]}`, `{"text":"甲","citations":["c1"]}`, llm.AnswerJSON},
		{"spaced object", " \n{\"text\":\"甲\"}\n", " \n{\"text\":\"甲\"}\n", llm.AnswerJSON},
		{"fenced", "```json\n{\"text\":\"乙\"}\n```", "```json\n{\"text\":\"乙\"}\n```", llm.AnswerJSON},
		{"prose around", "Sure! Here is the JSON:\n{\"text\":\"丙\"}\nHope this helps.", `{"text":"丙"}`, llm.AnswerRepaired},
		{"fence then remarks", "```json\n{\"text\":\"丁\"}\n```\nThe sentence cites chunk c1.", `{"text":"丁"}`, llm.AnswerRepaired},
		{"two objects", `{"text":"甲"} {"text":"乙"}`, `{"text":"甲"}`, llm.AnswerRepaired},
		{"braces in strings", `Answer: {"text":"a } b { c \"}\"","n":{"m":1}} done`, `{"text":"a } b { c \"}\"","n":{"m":1}}`, llm.AnswerRepaired},
		{"unclosed outer, complete inner", `{"facts": [{"status":"supported"}`, `{"status":"supported"}`, llm.AnswerRepaired},
		{"template placeholder before", `Format {text} then {"text":"戊"}`, `{"text":"戊"}`, llm.AnswerRepaired},
		{"prose", "The subject was a famous official.", "The subject was a famous official.", llm.AnswerUnusable},
		{"empty", "", "", llm.AnswerUnusable},
		{"cut off", `{"text":"万历十四年，叶向高举`, `{"text":"万历十四年，叶向高举`, llm.AnswerUnusable},
		{"array", `[{"text":"甲"}]`, `{"text":"甲"}`, llm.AnswerRepaired},
		{"chat tokens", "<|im_start|>assistant\n{\"text\":\"己\"}<|im_end|>", `{"text":"己"}`, llm.AnswerRepaired},
	} {
		got, kind := llm.ExtractJSON(tc.in)
		if got != tc.want || kind != tc.kind {
			t.Errorf("%s: ExtractJSON(%q) = %q, %v; want %q, %v", tc.name, tc.in, got, kind, tc.want, tc.kind)
		}
	}
}

func FuzzExtractJSON(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "x {\"a\":\"}\"} y", "{{{", `"{"`, "```json\n{}\n```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, kind := llm.ExtractJSON(s)
		switch kind {
		case llm.AnswerRepaired:
			if _, again := llm.ExtractJSON(got); again != llm.AnswerJSON {
				t.Fatalf("repaired %q to %q, which is not one object", s, got)
			}
		default:
			if got != s {
				t.Fatalf("%v answer %q changed to %q", kind, s, got)
			}
		}
	})
}
