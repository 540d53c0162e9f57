package extractor_test

import (
	"context"
	"slices"
	"testing"

	"github.com/annalist-dev/annalist/internal/lang/profile/profiletest"

	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/schemas"
)

func factKeys(m map[string]schemas.Triplet) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// A corpus added as profile files only (internal/lang/profile/profiletest/testdata/qingshi: it
// extends liezhuan with a Qing office table) is read by the extractor
// with its own lexicon: an office of its table is taken, one only
// liezhuan's table knows is not.
func TestProfileAddedAsFiles(t *testing.T) {
	set := profiletest.Set(t)
	ex := extractor.New(extractor.Config{Profiles: set})
	c := chunk("q1", "阿桂", "阿桂，字广廷，满洲正蓝旗人。乾隆四年举人，授军机大臣，迁礼部主事。")
	c.Profile = "qingshi"
	ts, err := ex.Extract(context.Background(), "", c)
	if err != nil {
		t.Fatal(err)
	}
	got := facts(ts)
	for _, want := range []string{"阿桂 courtesy_name 广廷", "阿桂 office 军机大臣 {verb=授}"} {
		if _, ok := got[want]; !ok {
			t.Errorf("no %q among %v", want, factKeys(got))
		}
	}
	if _, ok := got["阿桂 office 礼部主事 {verb=迁}"]; ok {
		t.Errorf("office of liezhuan's table taken under qingshi's")
	}
}
