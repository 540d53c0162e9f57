package verifier

import (
	"testing"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/schemas"
)

// The reference set's profile decides how a sentence is read, not the
// characters of the sentence; a set that names neither profile nor
// language (made by hand) is read in the sentence's language.
func TestProfileDecidesTheReading(t *testing.T) {
	o := NewOffline(Config{})
	english := "Ye Xianggao passed the jinshi in 1583; he was appointed minister of rites."
	chinese := "叶向高，字进卿，福清人。"
	for _, tt := range []struct {
		refs     schemas.ReferenceSet
		sentence string
		english  bool
	}{
		{schemas.ReferenceSet{Profile: profile.Liezhuan, Lang: "zh"}, english, false},
		{schemas.ReferenceSet{Profile: profile.English, Lang: "en"}, chinese, true},
		{schemas.ReferenceSet{Profile: profile.Generic, Lang: "en"}, chinese, true},
		{schemas.ReferenceSet{Profile: profile.Generic, Lang: "zh"}, english, false},
		{schemas.ReferenceSet{}, english, true},
		{schemas.ReferenceSet{}, chinese, false},
	} {
		if got := o.lexiconOf(&tt.refs, tt.sentence).English(); got != tt.english {
			t.Errorf("%s/%s %q: english %v, want %v", tt.refs.Profile, tt.refs.Lang, tt.sentence, got, tt.english)
		}
	}
}
