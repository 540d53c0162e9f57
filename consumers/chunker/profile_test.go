package chunker_test

import (
	"context"
	"errors"
	"testing"

	"github.com/annalist-dev/annalist/internal/lang/profile/profiletest"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/schemas"
)

// volQing is written for this test in the manner of the Draft History of
// Qing; the people are invented.
const volQing = `阿克敦张廷瓒
阿克敦，字仲和，满洲正蓝旗人。康熙四十八年进士，授编修。卒，谥文勤。
张廷瓒，字卣臣，桐城人。乾隆十年进士，授检讨。
评曰：二人皆以文学受知。
`

// A corpus added as profile files only (internal/lang/profile/profiletest/testdata/qingshi,
// which extends liezhuan and may open its closing judgement with 评曰) is
// chunked by entries when a document names it, with its own appraisal
// opener; no chunker code knows it.
func TestProfileAddedAsFiles(t *testing.T) {
	set := profiletest.Set(t)
	c := chunker.New(chunker.Config{Profiles: set})
	res, err := c.Segment(context.Background(), schemas.Document{DocID: "q", Text: volQing, Profile: "qingshi"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Profile != "qingshi" || res.Method != chunker.MethodPattern {
		t.Fatalf("profile %q method %q", res.Profile, res.Method)
	}
	var subjects []string
	appraisal := false
	for _, ch := range res.Chunks {
		if ch.Subject != "" {
			subjects = append(subjects, ch.Subject)
		}
		if ch.Entry == "" && len(ch.Text) > 0 && []rune(ch.Text)[0] == '评' {
			appraisal = true
		}
	}
	if len(subjects) != 2 || subjects[0] != "阿克敦" || subjects[1] != "张廷瓒" {
		t.Errorf("entries %v, want 阿克敦 and 张廷瓒", subjects)
	}
	if !appraisal {
		t.Errorf("the 评曰 paragraph is not a chunk outside the entries: %+v", res.Chunks)
	}
	// Under liezhuan the same line stays in the last entry.
	res, err = c.Segment(context.Background(), schemas.Document{DocID: "q", Text: volQing, Profile: chunker.ProfileLiezhuan})
	if err != nil {
		t.Fatal(err)
	}
	if last := res.Chunks[len(res.Chunks)-1]; last.Entry != "张廷瓒" {
		t.Errorf("liezhuan: the 评曰 line is outside the entries: %+v", last)
	}
	// The profile does not ask to be detected, so a document naming none
	// is read as liezhuan, as before.
	if got := c.Detect(volQing); got != chunker.ProfileLiezhuan {
		t.Errorf("Detect = %q, want %q", got, chunker.ProfileLiezhuan)
	}
	if _, err := chunker.New(chunker.Config{}).Segment(context.Background(),
		schemas.Document{DocID: "q", Text: volQing, Profile: "qingshi"}); !errors.Is(err, chunker.ErrUnknownProfile) {
		t.Errorf("embedded profiles chunked a qingshi document: %v", err)
	}
}

// A named profile's language is the profile's: an English profile cuts
// windows of its own size whatever the text holds.
func TestNamedProfileWindows(t *testing.T) {
	res, err := chunker.New(chunker.Config{}).Segment(context.Background(),
		schemas.Document{DocID: "e", Text: volQing, Profile: profile.English})
	if err != nil {
		t.Fatal(err)
	}
	if res.Method != chunker.MethodWindow || len(res.Chunks) != 1 {
		t.Errorf("method %q, %d chunks; want one window", res.Method, len(res.Chunks))
	}
}
