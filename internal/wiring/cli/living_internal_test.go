package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// livingVolume writes a biographical volume of n entries in the shape of
// the liezhuan profile: a first line listing the names, then one entry per
// paragraph opening with name, courtesy name and native place, an
// examination, offices and a death.
func livingVolume(n int) (string, []string) {
	surnames := []string{"王", "李", "张", "刘", "陈", "杨", "黄", "赵", "周", "吴", "徐", "孙", "马", "朱", "胡", "郭", "何", "高", "林", "罗", "郑", "梁"}
	given := []string{"希文", "伯安", "仲明", "季常", "子厚", "廷玉", "汝成", "士贞", "景和", "允中", "时泰", "宗道",
		"克让", "用宾", "思诚", "梦麟", "如圭", "世卿", "元礼", "德辉", "国祥", "承恩"}
	courtesy := []string{"文叔", "静甫", "孟坚", "子和", "伯固", "惟诚", "汝砺", "德甫", "子充", "仲纯", "文蔚", "伯循",
		"子静", "叔献", "季方", "汝器", "元之", "子逊", "宗鲁", "德夫", "廷仪", "君实"}
	places := []string{"苏州吴县", "松江华亭", "福州福清", "绍兴山阴", "苏州长洲", "宁波鄞县", "绍兴余姚", "泉州晋江", "兴化莆田", "南昌丰城"}
	years := []string{"二", "五", "八", "十一", "十四", "十七", "二十", "二十三", "二十六", "二十九", "三十二"}
	offices := []string{"户部主事", "刑部主事", "行人", "庶吉士", "工部主事", "兵部主事"}
	later := []string{"南京礼部右侍郎", "右佥都御史", "大理寺卿", "浙江按察副使", "国子监祭酒", "吏部左侍郎"}
	// A third of the names have a one-character given name: two-character
	// names are common, and the linker must find them as it finds the
	// others.
	single := []string{"琦", "谦", "瓒", "宪", "纶", "鉴", "昂", "锦", "瑄", "濂", "玑", "璇"}
	var names []string
	var b strings.Builder
	for i := 0; i < n; i++ {
		g := given[i%len(given)]
		if i%3 == 2 {
			g = single[i%len(single)]
		}
		names = append(names, surnames[i%len(surnames)]+g)
	}
	b.WriteString(strings.Join(names, "") + "\n")
	for i, name := range names {
		fmt.Fprintf(&b, "%s，字%s，%s人。少好学，事母以孝闻。举嘉靖%s年进士，授%s。迁员外郎，擢%s。%s居官廉，所至有声。以疾乞归，家居数年，卒。\n",
			name, courtesy[i%len(courtesy)], places[i%len(places)], years[i%len(years)], offices[i%len(offices)],
			later[i%len(later)], name[len(surnames[i%len(surnames)]):])
	}
	return b.String(), names
}

// TestLivingPagesFollowTheirDocuments is the end-to-end check of living
// pages on the real stages (embedded kfake over TCP, a child
// redis-server): 20 pages; a plain note about each of 10 subjects (the
// name and a new statement, as an archive receives them, names of two
// and three characters) reaches that subject's page by itself as exactly
// one new version citing it, and
// the other 10 keep their version; a new version of each document
// (same source) supersedes it and the page follows; the retraction
// takes it out, and no current page cites a retracted chunk.
func TestLivingPagesFollowTheirDocuments(t *testing.T) {
	if testing.Short() {
		t.Skip("end to end")
	}
	redistest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// The debounce window is ten times the offline default: what is
	// checked is that one document's changes (its facts, its mentions,
	// the retraction of the version it supersedes) make one version, and
	// on a loaded machine one stage can lag another by more than 100 ms.
	// How short the window can be is `bench regenerate`'s to measure.
	cfg := app.Config{DataDir: t.TempDir(), Kafka: kafka.Config{SessionTimeout: 6 * time.Second, RebalanceTimeout: 6 * time.Second},
		Generate: app.GenerateConfig{ScheduleWindow: time.Second}}
	a, err := app.Open(ctx, cfg, zerolog.Nop(), app.NeedsFor(app.AllStages()))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	tenant := schemas.DefaultTenant
	vol, names := livingVolume(20)
	it, err := producers.NewItem(schemas.Document{Source: "vol/001.txt", Collection: "mingshi", Text: vol})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Ingest(ctx, tenant, true, true, func(ctx context.Context, sink producers.Sink) (producers.Summary, error) {
		return producers.Summary{Documents: 1}, sink.Send(ctx, tenant, []producers.Item{it})
	}); err != nil {
		t.Fatal(err)
	}
	stageCtx, stop := context.WithCancel(ctx)
	stageErr := make(chan error, 1)
	go func() { stageErr <- a.RunStages(stageCtx, app.AllStages(), nil) }()
	defer func() {
		stop()
		if err := <-stageErr; err != nil {
			t.Errorf("stages: %v", err)
		}
	}()

	versions := func(subject string) []int {
		vs, err := a.Pages.Versions(ctx, tenant, subject)
		if err != nil {
			t.Fatal(err)
		}
		var out []int
		for _, v := range vs {
			out = append(out, v.Version)
		}
		return out
	}
	var rounds []string
	sc := livingScenario{a: a, tenant: tenant, log: zerolog.Nop(), timeout: time.Minute,
		afterRound: func(reason string, ups []*regenUpdate) {
			rounds = append(rounds, reason)
			// Debounced: one version per round, however many updates the
			// document made (its facts, its mentions); give a late second
			// one the time to show (a window and the regeneration).
			time.Sleep(cfg.Generate.ScheduleWindow + 1500*time.Millisecond)
			for _, u := range ups {
				p, err := a.Pages.Current(ctx, tenant, u.subject)
				if err != nil {
					t.Fatal(err)
				}
				if p.Version != u.version {
					t.Errorf("%s after %s: version %d, want exactly one new version (%d)", u.subject, reason, p.Version, u.version)
				}
				if p.Reason != reason {
					t.Errorf("%s after %s: reason %q", u.subject, reason, p.Reason)
				}
				cites := func(doc string) bool {
					return slices.ContainsFunc(p.Sentences, func(s schemas.PageSentence) bool {
						return slices.ContainsFunc(s.Citations, func(c schemas.Citation) bool { return strings.HasPrefix(c.ChunkID, doc+"-") })
					})
				}
				switch reason {
				case schemas.ReasonRetracted:
					if cites(u.docID) {
						t.Errorf("%s cites the retracted %s: %+v", u.subject, u.docID, p.Sentences)
					}
				default:
					if !cites(u.docID) {
						t.Errorf("%s after %s does not cite %s: %+v", u.subject, reason, u.docID, p.Sentences)
					}
				}
				if reason == schemas.ReasonSuperseded && cites(u.previous) {
					t.Errorf("%s cites the superseded %s", u.subject, u.previous)
				}
			}
		}}
	out, err := runLiving(ctx, sc, names, 30)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d pages, %d updates, %d regenerated; doc → page p50 %.0f ms, p95 %.0f ms; kept %d, rewritten %d, added %d, removed %d; stale citations %d",
		out.Pages, out.Updates, out.Regenerated, out.DocToPageP50Ms, out.DocToPageP95Ms, out.SentencesKept,
		out.SentencesRewritten, out.SentencesAdded, out.SentencesRemoved, out.StaleCitations)
	if want := []string{schemas.ReasonNewEvidence, schemas.ReasonSuperseded, schemas.ReasonRetracted}; !slices.Equal(rounds, want) {
		t.Fatalf("rounds %v, want %v", rounds, want)
	}
	if out.Pages != 20 || out.Updates != 30 || out.Regenerated != 30 || out.Untouched != 10 || out.StaleCitations != 0 || out.Missed != 0 {
		t.Fatalf("living pages: %+v", out)
	}
	if len(out.Subjects) != 10 {
		t.Fatalf("updates about %v, want 10 subjects", out.Subjects)
	}
	for _, s := range names {
		vs := versions(s)
		switch updated := slices.Contains(out.Subjects, s); {
		case updated && len(vs) != 4:
			t.Errorf("%s has versions %v, want one per round", s, vs)
		case !updated && len(vs) != 1:
			t.Errorf("%s has versions %v without a changed dependency", s, vs)
		}
	}
	// Ingesting the volume again regenerates nothing: the edge publishes
	// nothing for a text it has, and even the same document delivered
	// again (past that check, as a redelivery would) changes nothing in
	// the graph, so no kg-update reaches the scheduler.
	before := map[string][]int{}
	for _, s := range names {
		before[s] = versions(s)
	}
	if err := a.SendVersions(ctx, tenant, []producers.Item{it}); err != nil {
		t.Fatal(err)
	}
	again := it
	again.EventID += "-again"
	if err := a.Send(ctx, tenant, []producers.Item{again}); err != nil {
		t.Fatal(err)
	}
	if err := a.WaitIdle(ctx, app.AllStages()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	for _, s := range names {
		if vs := versions(s); !slices.Equal(vs, before[s]) {
			t.Errorf("%s: versions %v after re-ingesting, %v before", s, vs, before[s])
		}
	}
	if n, err := a.Pages.StaleCount(ctx, tenant); err != nil || n != 0 {
		t.Errorf("%d stale pages after re-ingesting (%v)", n, err)
	}
	if out.SentencesKept == 0 || out.KeptShare < 0.8 {
		t.Errorf("kept %d, rewritten %d: share %.2f", out.SentencesKept, out.SentencesRewritten, out.KeptShare)
	}
}
