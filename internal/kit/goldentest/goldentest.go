// Package goldentest reads the golden files of table tests: one case a
// line, each a JSON object with a "name" saying what the case shows, its
// input and its expected reading; blank lines and lines opening with "#"
// are comments. Adding a case is adding a line, and a failure names the
// file, the line and the case.
package goldentest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"
)

// Case is one case of a golden file and where it is written.
type Case[T any] struct {
	File  string
	Line  int
	Name  string
	Value T
}

// Fail reports a failed expectation of one case.
type Fail = func(format string, args ...any)

// Read decodes every case of path in fsys into a T, whose fields must
// include the "name". It refuses, naming file:line, a line that is not one
// JSON object, an unknown field, a case without a name, a name written
// twice, and a file without a case.
func Read[T any](fsys fs.FS, path string) ([]Case[T], error) {
	data, err := fs.ReadFile(fsys, path)
	if err != nil {
		return nil, err
	}
	var out []Case[T]
	names := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		var head struct {
			Name string `json:"name"`
		}
		if err := json.NewDecoder(strings.NewReader(text)).Decode(&head); err != nil || head.Name == "" {
			return nil, fmt.Errorf("%s:%d: a case needs a \"name\" (%v)", path, line, err)
		}
		var v T
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %w", path, line, head.Name, err)
		}
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s:%d: %s: data after the case", path, line, head.Name)
		}
		if first, ok := names[head.Name]; ok {
			return nil, fmt.Errorf("%s:%d: case %q is also on line %d", path, line, head.Name, first)
		}
		names[head.Name] = line
		out = append(out, Case[T]{File: path, Line: line, Name: head.Name, Value: v})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no cases", path)
	}
	return out, nil
}

// Run reads path (Read) and runs check on every case as a subtest named
// after it; what fail reports is prefixed with file:line: name. A file
// that cannot be read fails the test.
func Run[T any](t *testing.T, fsys fs.FS, path string, check func(t *testing.T, c T, fail Fail)) {
	t.Helper()
	cases, err := Read[T](fsys, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			check(t, c.Value, func(format string, args ...any) {
				t.Helper()
				t.Errorf("%s:%d: %s: %s", c.File, c.Line, c.Name, fmt.Sprintf(format, args...))
			})
		})
	}
}
