package kind_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/schemas"
)

type planner struct{}

func (planner) Plan(_ context.Context, _ string, r schemas.Request) (*schemas.ReferenceSet, error) {
	return &schemas.ReferenceSet{Subject: r.Subject, Name: r.Subject}, nil
}

type drafter struct{ name string }

func (drafter) Draft(context.Context, *schemas.ReferenceSet, []schemas.PageSentence, int) (schemas.Draft, bool, error) {
	return schemas.Draft{}, true, nil
}

func spec(name string) kind.Spec {
	return kind.Spec{Name: name, Planner: planner{},
		Drafters: map[string]kind.Drafter{kind.EngineOffline: drafter{"offline"}},
		Layout:   kind.Layout{Sections: []kind.Section{{Name: "all"}}}}
}

func TestRegisterRejectsIncompleteAndDuplicateKinds(t *testing.T) {
	var r kind.Registry
	if err := r.Register(spec(schemas.KindBiography)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(*kind.Spec)
	}{
		{"duplicate", func(*kind.Spec) {}},
		{"no name", func(s *kind.Spec) { s.Name = "" }},
		{"name with a separator", func(s *kind.Spec) { s.Name = "topic:page" }},
		{"upper-case name", func(s *kind.Spec) { s.Name = "Answer" }},
		{"no planner", func(s *kind.Spec) { s.Name, s.Planner = "a1", nil }},
		{"no drafters", func(s *kind.Spec) { s.Name, s.Drafters = "a2", nil }},
		{"only an LLM drafter", func(s *kind.Spec) {
			s.Name, s.Drafters = "a3", map[string]kind.Drafter{kind.EngineLLM: drafter{}}
		}},
		{"a nil drafter", func(s *kind.Spec) { s.Name, s.Drafters[kind.EngineLLM] = "a4", nil }},
		{"no section", func(s *kind.Spec) { s.Name, s.Layout.Sections = "a5", nil }},
		{"two sections", func(s *kind.Spec) {
			s.Name, s.Layout.Sections = "a6", []kind.Section{{Name: "background"}, {Name: "opinions"}}
		}},
	} {
		s := spec(schemas.KindBiography)
		tc.edit(&s)
		if err := r.Register(s); err == nil {
			t.Errorf("%s: registered; want an error", tc.name)
		}
	}
	if got := r.Kinds(); !slices.Equal(got, []string{schemas.KindBiography}) {
		t.Fatalf("kinds after the refusals = %v; want only biography", got)
	}
}

func TestLookupNamesTheRegisteredKinds(t *testing.T) {
	var r kind.Registry
	_, err := r.Lookup(schemas.KindTopicPage)
	if !errors.Is(err, kind.ErrUnregistered) || err.Error() != "kind topic_page is not registered (registered: none)" {
		t.Fatalf("lookup in an empty registry: %v", err)
	}
	for _, n := range []string{schemas.KindBiography, schemas.KindAnswer} {
		if err := r.Register(spec(n)); err != nil {
			t.Fatal(err)
		}
	}
	_, err = r.Lookup(schemas.KindTopicPage)
	if !errors.Is(err, kind.ErrUnregistered) || err.Error() != "kind topic_page is not registered (registered: answer, biography)" {
		t.Fatalf("lookup of an unregistered kind: %v", err)
	}
	s, err := r.Lookup(schemas.KindAnswer)
	if err != nil || s.Name != schemas.KindAnswer {
		t.Fatalf("lookup of answer = %+v, %v", s, err)
	}
}

// A Spec's drafter for an engine falls back to the offline one, and the
// registry keeps its own copy of the drafters: a caller that changes its
// map after registering changes nothing.
func TestDrafterByEngine(t *testing.T) {
	var r kind.Registry
	s := spec(schemas.KindBiography)
	s.Drafters[kind.EngineLLM] = drafter{"llm"}
	if err := r.Register(s); err != nil {
		t.Fatal(err)
	}
	delete(s.Drafters, kind.EngineLLM)
	got, err := r.Lookup(schemas.KindBiography)
	if err != nil {
		t.Fatal(err)
	}
	if d := got.Drafter(kind.EngineLLM); d != (drafter{"llm"}) {
		t.Errorf("LLM drafter = %v", d)
	}
	if d := got.Drafter(kind.EngineOffline); d != (drafter{"offline"}) {
		t.Errorf("offline drafter = %v", d)
	}
	if d := spec(schemas.KindAnswer).Drafter(kind.EngineLLM); d != (drafter{"offline"}) {
		t.Errorf("LLM drafter of a kind without one = %v; want the offline one", d)
	}
}

// Validate is the check of every entry point: the request's structure,
// then its kind's registration; both are invalid requests.
func TestValidate(t *testing.T) {
	var r kind.Registry
	if err := r.Register(spec(schemas.KindBiography)); err != nil {
		t.Fatal(err)
	}
	ok := schemas.Request{RequestID: "r1", Kind: schemas.KindBiography, Subject: "叶向高"}
	if err := r.Validate(ok); err != nil {
		t.Fatalf("valid request: %v", err)
	}
	for _, tc := range []struct {
		name         string
		req          schemas.Request
		unregistered bool
		says         string
	}{
		{"unregistered kind", schemas.Request{RequestID: "r1", Kind: schemas.KindTopicPage, Subject: "翰林院"}, true,
			"kind topic_page is not registered (registered: biography)"},
		{"unknown kind", schemas.Request{RequestID: "r1", Kind: "poem", Subject: "x"}, true,
			"kind poem is not registered (registered: biography)"},
		{"no subject", schemas.Request{RequestID: "r1", Kind: schemas.KindBiography}, false, "subject is required"},
		{"no kind", schemas.Request{RequestID: "r1", Subject: "x"}, false, "kind is required"},
		{"malformed kind", schemas.Request{RequestID: "r1", Kind: "topic page", Subject: "x"}, false, "lower-case name"},
	} {
		err := r.Validate(tc.req)
		if !errors.Is(err, schemas.ErrInvalid) || errors.Is(err, kind.ErrUnregistered) != tc.unregistered ||
			!strings.Contains(fmtErr(err), tc.says) {
			t.Errorf("%s: err = %v; want invalid (unregistered %v) saying %q", tc.name, err, tc.unregistered, tc.says)
		}
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
