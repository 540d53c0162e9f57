package schemas_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/schemas"
)

// The wire format checks that a kind is a well-formed name, not that it is
// one of a closed list: a kind added by registration decodes everywhere.
func TestRequestKindIsAWellFormedName(t *testing.T) {
	for _, k := range []string{schemas.KindBiography, schemas.KindTopicPage, "quotation", "q2"} {
		r := schemas.Request{RequestID: "r", Kind: k, Subject: "s"}
		if err := r.Validate(); err != nil {
			t.Errorf("kind %q: %v", k, err)
		}
	}
	for _, k := range []string{"", "Topic", "topic page", "topic:page", "2nd", "_x", strings.Repeat("a", 65)} {
		r := schemas.Request{RequestID: "r", Kind: k, Subject: "s"}
		if err := r.Validate(); !errors.Is(err, schemas.ErrInvalid) {
			t.Errorf("kind %q: err = %v; want ErrInvalid", k, err)
		}
	}
}

// A biography is keyed by its subject alone, as before there were other
// kinds; a page of another kind about the same subject has a key of its
// own, so the compacted pages topic keeps both.
func TestPageKeyByKind(t *testing.T) {
	for _, tc := range []struct{ kind, want string }{
		{schemas.KindBiography, "叶向高"},
		{"", "叶向高"},
		{schemas.KindAnswer, "answer:叶向高"},
		{schemas.KindTopicPage, "topic_page:叶向高"},
	} {
		p := schemas.Page{Kind: tc.kind, Subject: "叶向高"}
		if p.PartitionKey() != tc.want || p.Key() != tc.want {
			t.Errorf("kind %q: key %q, partition key %q; want %q", tc.kind, p.Key(), p.PartitionKey(), tc.want)
		}
	}
}
