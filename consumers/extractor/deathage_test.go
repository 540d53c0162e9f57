package extractor_test

import (
	"strings"
	"testing"
)

// An age at death is a relation of its own: a death's tail is a time.
func TestDeathAgeIsNotADeath(t *testing.T) {
	cases := []struct {
		name, entry, text string
		want              []string
	}{
		{"age alone", "林安", "林安，字子静，莆田人。家居十年，卒，年七十一。\n",
			[]string{"林安 death_age 七十一"}},
		{"year then age", "林安", "林安，字子静，莆田人。万历五年卒，年七十一。\n",
			[]string{"林安 death 万历五年 {age=七十一 time=万历五年}", "林安 death_age 七十一 {time=万历五年}"}},
		{"age before death", "林安", "林安，字子静，莆田人。年七十一卒。\n",
			[]string{"林安 death_age 七十一"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := facts(extract(t, chunk("c-1", tc.entry, tc.text)))
			var deaths []string
			for k := range got {
				if strings.Contains(k, " death") {
					deaths = append(deaths, k)
				}
			}
			for _, w := range tc.want {
				if _, ok := got[w]; !ok {
					t.Errorf("missing %q in %v", w, deaths)
				}
			}
			if len(deaths) != len(tc.want) {
				t.Errorf("death facts %v, want %v", deaths, tc.want)
			}
		})
	}
	for text, want := range map[string][]string{
		"Lu Wenyuan was a scholar. He died in 1571, aged 71.": {"Lu Wenyuan death 1571", "Lu Wenyuan death_age 71"},
		"Lu Wenyuan was a scholar. He died at 71 in Suzhou.":  {"Lu Wenyuan death_age 71"},
	} {
		got := facts(extract(t, englishChunk("e-1", text)))
		for _, w := range want {
			if _, ok := got[w]; !ok {
				t.Errorf("%s: missing %q in %v", text, w, keys(got))
			}
		}
	}
}
