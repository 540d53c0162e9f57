package wordlist_test

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/annalist-dev/annalist/internal/lang/wordlist"
)

func file(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }

func TestListAndSet(t *testing.T) {
	l := wordlist.New(fstest.MapFS{
		"data/verbs.txt": file("# verbs the rule tries, longest first\n# read by officeAt\n召为\n授\n"),
	}, "data", "test")
	if got := l.List("verbs"); !slices.Equal(got, []string{"召为", "授"}) {
		t.Errorf("List = %q", got)
	}
	if s := l.Set("verbs"); len(s) != 2 || !s["授"] {
		t.Errorf("Set = %v", s)
	}
	if errs := l.Check(); len(errs) != 0 {
		t.Errorf("a well-formed list: %v", errs)
	}
}

func TestMissingListPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "test: word list nouns") {
			t.Errorf("recover() = %v", r)
		}
	}()
	wordlist.New(fstest.MapFS{}, "data", "test").List("nouns")
}

func TestCheckFindsEachFault(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"授\n", "no header comment"},
		{"# x\n授", "no newline at the end"},
		{"# x\n", "no words"},
		{"# x\n授\n\n除\n", "blank line"},
		{"# x\n授\n# y\n", "comment line after the words"},
		{"# x\n授 \n", "white space around"},
		{"# x\nborn  in\n", "stray white space inside"},
		{"# x\n授\n授\n", "repeats line 2"},
	} {
		errs := wordlist.New(fstest.MapFS{"data/l.txt": file(tt.text)}, "data", "test").Check()
		var msgs []string
		for _, e := range errs {
			msgs = append(msgs, e.Error())
		}
		if !strings.Contains(strings.Join(msgs, "; "), tt.want) {
			t.Errorf("Check(%q) = %q, want an error with %q", tt.text, msgs, tt.want)
		}
	}
	if errs := wordlist.New(fstest.MapFS{}, "data", "test").Check(); len(errs) == 0 {
		t.Error("Check of a missing folder reported nothing")
	}
}
