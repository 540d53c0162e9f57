package writer_test

import (
	"slices"
	"testing"

	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/internal/lang/profile"
)

// The reference set's profile decides the plan, not the characters of the
// sources: the same Chinese entry under the english profile gets the
// English plan (no templated identity, examination, highest office or
// posthumous name), under generic in Chinese the Chinese one.
func TestOfflinePlanFromProfile(t *testing.T) {
	o := writer.NewOffline(writer.OfflineConfig{})
	zh := shen(t).rs
	zh.Profile = profile.Generic
	got := kinds(t, o, zh)
	for _, k := range []string{writer.ItemIdentity, writer.ItemExamination, writer.ItemHighest, writer.ItemPosthumous} {
		if !slices.Contains(got, k) {
			t.Errorf("generic in Chinese: no %s item in %v", k, got)
		}
	}
	en := *zh
	en.Profile, en.Lang = profile.English, "en"
	got = kinds(t, o, &en)
	for _, k := range []string{writer.ItemExamination, writer.ItemHighest, writer.ItemPosthumous} {
		if slices.Contains(got, k) {
			t.Errorf("english: %s item in %v", k, got)
		}
	}
	for _, it := range o.Plan(&en) {
		if it.Kind == writer.ItemIdentity && it.Text == "沈元亮，字子明，号东冈，浙江山阴人。" {
			t.Errorf("english: identity templated with the Chinese formula: %s", it.Text)
		}
	}
}
