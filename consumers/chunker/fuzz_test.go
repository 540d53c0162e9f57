package chunker_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/schemas"
)

// FuzzChunk: whatever the text and profile, the chunks tile the document,
// validate, and stay within the hard maximum.
func FuzzChunk(f *testing.F) {
	for _, s := range []string{volListed, volOpen, "A. B? C!\n\nD", "甲(乙)丙\n甲，字丁，戊人。\n乙，字己。", "\n\n\n", "x", "。。。，，，", "刘\u3000基，字\xe4伯温"} {
		for _, p := range []string{"", chunker.ProfileLiezhuan, chunker.ProfileGeneric} {
			f.Add(s, p)
		}
	}
	cfg := chunker.Config{MaxEntryChars: 40, TargetChars: 30, HardMaxChars: 60}
	c := chunker.New(cfg)
	f.Fuzz(func(t *testing.T, text, profile string) {
		if profile != chunker.ProfileLiezhuan && profile != chunker.ProfileGeneric {
			profile = ""
		}
		doc := schemas.Document{DocID: "f", Text: text, Profile: profile}
		chunks, err := c.Chunk(context.Background(), doc)
		if text == "" || !utf8.ValidString(text) {
			if err == nil {
				t.Fatal("invalid document chunked without error")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		checkTiles(t, doc, chunks)
		for i, ch := range chunks {
			if n := ch.End - ch.Start; n > cfg.HardMaxChars {
				t.Fatalf("chunk %d has %d runes > hard max %d", i, n, cfg.HardMaxChars)
			}
		}
	})
}

// FuzzLLMAnswer: whatever the model answers, the chunker either uses a
// valid answer or falls back, and the chunks tile the document.
func FuzzLLMAnswer(f *testing.F) {
	f.Add(validListedAnswer)
	f.Add(`{"entries":[{"subject":"许德明","anchor":"许德明，吴江人"},{"subject":"林思远","anchor":"林思远，字子久"}]}`)
	f.Add(`{"entries":[{"subject":"韩正","anchor":"韩"}]}`)
	f.Add("```json\n{\"entries\":[]}\n```")
	f.Add(`{"entries":null}`)
	f.Add(`[`)
	f.Fuzz(func(t *testing.T, answer string) {
		m := always(answer)
		c := chunker.New(chunker.Config{LLMAttempts: 1}, chunker.WithModel(m))
		doc := schemas.Document{DocID: "f", Text: volListed, Profile: chunker.ProfileLiezhuan}
		res, err := c.Segment(context.Background(), doc)
		if err != nil {
			t.Fatal(err)
		}
		checkTiles(t, doc, res.Chunks)
		switch res.Method {
		case chunker.MethodLLM:
			if res.Fallback != "" {
				t.Fatalf("llm method with fallback %q", res.Fallback)
			}
		case chunker.MethodPattern:
			if !strings.Contains(res.Fallback, "window 0") {
				t.Fatalf("fallback %q does not name the window", res.Fallback)
			}
		default:
			t.Fatalf("method %q", res.Method)
		}
	})
}
