package topic

import (
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/schemas"
)

// MaxSentences bounds a topic page: a place names every native the
// sources give it.
const MaxSentences = 200

// Engine is an LLM engine of the topic kind: a drafter that words the
// offline plan's items, and the model's reviewer and editor.
type Engine interface {
	kind.Drafter
	Reviewer() kind.Reviewer
	Editor() kind.Editor
}

// Layout is the topic page's layout: its sections come from the outline.
func Layout() kind.Layout { return kind.Layout{Sectioned: true} }

// Spec is the topic kind: c plans, off drafts with the offline engine, the
// offline Reviewer and Editor run the review loop, and llm, when not nil,
// drafts, reviews and edits with the LLM engine. c and off must not be
// nil.
func Spec(c *Curator, off *Offline, llm Engine) kind.Spec {
	s := kind.Spec{
		Name:         schemas.KindTopicPage,
		Planner:      c,
		Drafters:     map[string]kind.Drafter{kind.EngineOffline: off},
		Layout:       Layout(),
		Reviewers:    map[string]kind.Reviewer{kind.EngineOffline: Reviewer{}},
		Editors:      map[string]kind.Editor{kind.EngineOffline: Editor{}},
		MaxSentences: MaxSentences,
	}
	if llm != nil {
		s.Drafters[kind.EngineLLM] = llm
		s.Reviewers[kind.EngineLLM] = llm.Reviewer()
		s.Editors[kind.EngineLLM] = llm.Editor()
	}
	return s
}
