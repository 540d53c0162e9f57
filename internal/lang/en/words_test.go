package en

import (
	"io/fs"
	"strings"
	"testing"
)

// TestWordLists checks every embedded word list: it has a header, then
// at least one word, one a line, with no blank line, no duplicate and no
// white space around a word or doubled inside a phrase.
func TestWordLists(t *testing.T) {
	entries, err := fs.ReadDir(wordFiles, "data")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 {
		t.Fatal("no word lists embedded")
	}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".txt")
		if !ok {
			t.Errorf("%s: not a .txt word list", e.Name())
			continue
		}
		b, err := wordFiles.ReadFile("data/" + e.Name())
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		text := string(b)
		if !strings.HasPrefix(text, "# ") {
			t.Errorf("%s: no header comment", name)
		}
		if !strings.HasSuffix(text, "\n") {
			t.Errorf("%s: no newline at the end", name)
		}
		seen := map[string]int{}
		words := 0
		for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			n := i + 1
			if strings.HasPrefix(line, "#") {
				if words > 0 {
					t.Errorf("%s:%d: comment line after the words", name, n)
				}
				continue
			}
			switch {
			case line == "":
				t.Errorf("%s:%d: blank line", name, n)
			case strings.TrimSpace(line) != line:
				t.Errorf("%s:%d: white space around %q", name, n, line)
			case strings.Join(strings.Fields(line), " ") != line:
				t.Errorf("%s:%d: stray white space inside %q", name, n, line)
			}
			if first, dup := seen[line]; dup {
				t.Errorf("%s:%d: %q repeats line %d", name, n, line, first)
			}
			seen[line] = n
			words++
		}
		if words == 0 {
			t.Errorf("%s: no words", name)
		}
		if got := wordList(name); len(got) != words {
			t.Errorf("%s: wordList gives %d words, the file has %d", name, len(got), words)
		}
		if got := wordSet(name); len(got) != words {
			t.Errorf("%s: wordSet gives %d words, the file has %d", name, len(got), words)
		}
	}
}
