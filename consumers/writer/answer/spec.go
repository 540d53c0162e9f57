package answer

import (
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/schemas"
)

// SectionAnswer is the one section of an answer.
const SectionAnswer = "answer"

// Layout is the answer's layout: one section.
func Layout() kind.Layout {
	return kind.Layout{Sections: []kind.Section{{Name: SectionAnswer, Order: "relevance"}}}
}

// Spec is the answer kind: p plans, off drafts with the offline engine
// and llm, when not nil, with the LLM engine. No review loop: an answer
// is as long as its evidence. p and off must not be nil.
func Spec(p *Planner, off *Offline, llm *LLM) kind.Spec {
	s := kind.Spec{
		Name:     schemas.KindAnswer,
		Planner:  p,
		Drafters: map[string]kind.Drafter{kind.EngineOffline: off},
		Layout:   Layout(),
	}
	if llm != nil {
		s.Drafters[kind.EngineLLM] = llm
	}
	return s
}
