// Package wordlist reads the word lists the language packages keep as data
// files rather than Go literals: one file a list, named after it
// (data/office_verbs.txt), holding header lines that start with '#' and
// say what the list is and which rule reads it, then one word or phrase a
// line. Adding a word is adding a line; Check says what is wrong with a
// file, so each package's test can hold its lists to that shape.
package wordlist

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// Lists is a folder of word lists in a file system, usually the data/
// folder a package embeds.
type Lists struct {
	fsys  fs.FS
	dir   string
	owner string
}

// New reads the lists under dir of fsys. owner names the package in the
// panic of a missing list.
func New(fsys fs.FS, dir, owner string) Lists {
	return Lists{fsys: fsys, dir: dir, owner: owner}
}

// List returns the words of <dir>/<name>.txt in file order, without its
// header and blank lines. A list the package names and does not embed is
// a build mistake, so it panics.
func (l Lists) List(name string) []string {
	b, err := fs.ReadFile(l.fsys, path.Join(l.dir, name+".txt"))
	if err != nil {
		panic(l.owner + ": word list " + name + ": " + err.Error())
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	return out
}

// Set returns the words of <dir>/<name>.txt as a set.
func (l Lists) Set(name string) map[string]bool {
	m := map[string]bool{}
	for _, w := range l.List(name) {
		m[w] = true
	}
	return m
}

// Check reads every .txt file under dir and reports each way it departs
// from the shape: a header first, at least one word, no blank line, no
// comment after the words, no duplicate, no white space around a word or
// doubled inside a phrase, a newline at the end. No error means every
// list is well formed.
func (l Lists) Check() []error {
	entries, err := fs.ReadDir(l.fsys, l.dir)
	if err != nil {
		return []error{fmt.Errorf("%s: %w", l.dir, err)}
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	lists := 0
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".txt")
		if !ok || e.IsDir() {
			continue
		}
		lists++
		b, err := fs.ReadFile(l.fsys, path.Join(l.dir, e.Name()))
		if err != nil {
			bad("%s: %w", e.Name(), err)
			continue
		}
		text := string(b)
		if !strings.HasPrefix(text, "# ") {
			bad("%s: no header comment", e.Name())
		}
		if !strings.HasSuffix(text, "\n") {
			bad("%s: no newline at the end", e.Name())
		}
		seen := map[string]int{}
		words := 0
		for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			n := i + 1
			if strings.HasPrefix(line, "#") {
				if words > 0 {
					bad("%s:%d: comment line after the words", e.Name(), n)
				}
				continue
			}
			switch {
			case line == "":
				bad("%s:%d: blank line", e.Name(), n)
			case strings.TrimSpace(line) != line:
				bad("%s:%d: white space around %q", e.Name(), n, line)
			case strings.Join(strings.Fields(line), " ") != line:
				bad("%s:%d: stray white space inside %q", e.Name(), n, line)
			}
			if first, dup := seen[line]; dup {
				bad("%s:%d: %q repeats line %d", e.Name(), n, line, first)
			}
			seen[line] = n
			words++
		}
		if words == 0 {
			bad("%s: no words", e.Name())
		}
		if got := len(l.List(name)); got != words {
			bad("%s: List gives %d words, the file has %d", e.Name(), got, words)
		}
	}
	if lists == 0 {
		bad("%s: no word lists", l.dir)
	}
	return errs
}
