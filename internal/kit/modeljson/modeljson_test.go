package modeljson_test

import (
	"errors"
	"testing"

	"github.com/annalist-dev/annalist/internal/kit/modeljson"
)

func TestDecode(t *testing.T) {
	type answer struct {
		Text string `json:"text"`
	}
	for _, tc := range []struct {
		name, in string
		want     string
		trailing bool
		fails    bool
	}{
		{"plain", `{"text":"甲"}`, "甲", false, false},
		{"fenced", "```json\n{\"text\":\"乙\"}\n```", "乙", false, false},
		{"bare fence", "```\n{\"text\":\"丙\"}\n```", "丙", false, false},
		{"unknown field", `{"text":"甲","x":1}`, "", false, true},
		{"prose", "The answer is 甲.", "", false, true},
		{"two values", `{"text":"甲"} {}`, "", true, true},
		{"text after", `{"text":"甲"} hope this helps`, "", true, true},
	} {
		var a answer
		err := modeljson.Decode(tc.in, &a)
		if (err != nil) != tc.fails || errors.Is(err, modeljson.ErrTrailing) != tc.trailing {
			t.Errorf("%s: err = %v; want failure %v, trailing %v", tc.name, err, tc.fails, tc.trailing)
			continue
		}
		if !tc.fails && a.Text != tc.want {
			t.Errorf("%s: text %q; want %q", tc.name, a.Text, tc.want)
		}
	}
}
