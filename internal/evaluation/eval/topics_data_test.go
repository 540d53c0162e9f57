package eval_test

import (
	"slices"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/schemas"
)

// TestTopicGoldMingshi reads the topic gold of the History of Ming volumes
// and checks it against entries read by hand. Run it with -v to see the
// topics.
func TestTopicGoldMingshi(t *testing.T) {
	dir := datasettest.Require(t, "mingshi-liezhuan")
	gold, names, err := eval.TopicGold([]string{dir}, 3)
	if err != nil {
		t.Fatal(err)
	}
	byTopic := map[string]eval.GoldTopic{}
	count := map[string]int{}
	held := 0
	for _, g := range gold {
		byTopic[g.Topic] = g
		count[g.Type]++
		if g.HeldOut {
			held++
		}
		t.Logf("%s %s %d %v", g.Type, g.Topic, len(g.People), g.People)
	}
	t.Logf("%d topics (%v), %d held out, %d entry names", len(gold), count, held, len(names))
	// Read by hand from the volumes.
	for topic, people := range map[string][]string{
		"松江华亭":  {"徐阶"},
		"青田":    nil,
		"吉水":    {"王艮", "周忱", "钱习礼", "周叙"},
		"万历十一年": nil,
		"建文二年":  {"王艮", "金幼孜", "顾佐"},
		"永乐二年":  {"王英", "周忱", "段民"},
	} {
		g, ok := byTopic[topic]
		if !ok {
			if people != nil || topic != "青田" {
				t.Errorf("no topic %s", topic)
			}
			continue
		}
		for _, p := range people {
			if !slices.Contains(g.People, p) {
				t.Errorf("%s: %s missing from %v", topic, p, g.People)
			}
		}
	}
	for _, n := range []string{"刘基", "杨靖", "卓敬", "柯潜"} {
		if !slices.Contains(names, n) {
			t.Errorf("entry %s not read", n)
		}
	}
	if count[schemas.TopicPlace] < 60 || count[schemas.TopicTime] < 40 {
		t.Errorf("topics %v: fewer than the volumes hold", count)
	}
	if held == 0 || held*3 > len(gold) {
		t.Errorf("%d of %d topics held out", held, len(gold))
	}
}
