package extractor

import (
	"testing"

	"github.com/annalist-dev/annalist/internal/lang/profile"
)

// The hand-made demonstrations of every profile are held to the rules the
// model's regexes must pass, on their own examples.
func TestHandDemosPassValidation(t *testing.T) {
	profiles := profile.Default()
	for _, name := range profiles.Names() {
		p, _ := profiles.Get(name)
		for _, d := range p.RegexDemos {
			for _, pat := range handDemos(p, d.Relation) {
				if _, err := CheckRegex(pat, pat.Example); err != nil {
					t.Errorf("%s %s demo %q on %q: %v", name, d.Relation, pat.Source, pat.Example, err)
				}
			}
			if relationText[d.Relation] == "" {
				t.Errorf("%s: relation %s has no description for prompts", name, d.Relation)
			}
		}
	}
	for _, lang := range []string{profile.LangChinese, profile.LangEnglish} {
		if len(profiles.For(profile.Generic, lang).RegexDemos) == 0 {
			t.Errorf("generic text in %s has no hand-made regexes", lang)
		}
	}
}

func TestPromptsRender(t *testing.T) {
	for _, name := range []string{PromptRegex, PromptPlanB} {
		var data any = regexPromptData{Relation: "courtesy_name", Text: "x"}
		if name == PromptPlanB {
			data = planBPromptData{Relations: "courtesy_name", Text: "x"}
		}
		msgs, err := prompts[name].Render(data)
		if err != nil || msgs[0].Content == "" || msgs[1].Content == "" {
			t.Errorf("%s: %v %v", name, msgs, err)
		}
	}
}
