package extractor

import "testing"

// The hand-made demonstrations are held to the rules the model's regexes
// must pass, on their own examples.
func TestHandDemosPassValidation(t *testing.T) {
	for han, byRel := range handDemos {
		for rel, demos := range byRel {
			for _, d := range demos {
				d.Relation = rel
				if _, err := CheckRegex(d, d.Example); err != nil {
					t.Errorf("han=%v %s demo %q on %q: %v", han, rel, d.Source, d.Example, err)
				}
			}
			if relationText[rel] == "" {
				t.Errorf("relation %s has no description for prompts", rel)
			}
		}
	}
}

func TestPromptsRender(t *testing.T) {
	for _, name := range []string{PromptRegex, PromptPlanB} {
		var data any = regexPromptData{Relation: "courtesy_name", Text: "x"}
		if name == PromptPlanB {
			data = planBPromptData{Relations: "courtesy_name", Text: "x"}
		}
		s, u, err := render(name, data)
		if err != nil || s == "" || u == "" {
			t.Errorf("%s: %q %q %v", name, s, u, err)
		}
	}
}
