package summary

import (
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/schemas"
)

// SectionBackground is the title of the page's first section, the
// background a reader needs; every other section is a participant's.
const SectionBackground = "Background"

// MaxSentences bounds a summary: a background of thirty paragraphs has
// about a hundred sentences, and the opinions come after them.
const MaxSentences = 240

// Layout is the summary's layout: its sections come from the plan
// (SectionBackground, then the participants).
func Layout() kind.Layout { return kind.Layout{Sectioned: true} }

// Spec is the discussion_summary kind: p plans, off drafts with the
// offline engine and llm, when not nil, with the LLM engine. No review
// loop: the summary's structure is the discussion's. p and off must not
// be nil.
func Spec(p *Planner, off *Offline, llm *LLM) kind.Spec {
	s := kind.Spec{
		Name:         schemas.KindDiscussionSummary,
		Planner:      p,
		Drafters:     map[string]kind.Drafter{kind.EngineOffline: off},
		Layout:       Layout(),
		MaxSentences: MaxSentences,
	}
	if llm != nil {
		s.Drafters[kind.EngineLLM] = llm
	}
	return s
}
