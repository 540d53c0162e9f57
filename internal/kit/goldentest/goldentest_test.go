package goldentest_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/annalist-dev/annalist/internal/kit/goldentest"
)

type reading struct {
	Name string `json:"name"`
	In   string `json:"in"`
	Want int    `json:"want"`
}

func TestRead(t *testing.T) {
	fsys := fstest.MapFS{"g.jsonl": {Data: []byte("# a header\n\n{\"name\": \"one\", \"in\": \"a\", \"want\": 1}\n{\"name\": \"two\", \"in\": \"bb\", \"want\": 2}\n")}}
	cases, err := goldentest.Read[reading](fsys, "g.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 || cases[1].Line != 4 || cases[1].Name != "two" || cases[1].Value.In != "bb" || cases[1].Value.Want != 2 {
		t.Errorf("Read = %+v", cases)
	}
}

func TestReadRefuses(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{`{"in": "a"}`, `g.jsonl:1: a case needs a "name"`},
		{`{"name": "x", "inn": "a"}`, `g.jsonl:1: x: json: unknown field "inn"`},
		{`{"name": "x"} {"name": "y"}`, `g.jsonl:1: x: data after the case`},
		{"{\"name\": \"x\"}\n{\"name\": \"x\"}", `g.jsonl:2: case "x" is also on line 1`},
		{"# only a header\n", `g.jsonl: no cases`},
		{`not json`, `g.jsonl:1: a case needs a "name"`},
	} {
		_, err := goldentest.Read[reading](fstest.MapFS{"g.jsonl": {Data: []byte(tt.text)}}, "g.jsonl")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Read(%q) = %v, want an error with %q", tt.text, err, tt.want)
		}
	}
}
