package solver_test

import (
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/solver"
	"github.com/annalist-dev/annalist/schemas"
)

const (
	ns       = schemas.StatusNotSupported
	ni       = schemas.StatusNotIncluded
	relDate  = "date"
	relText  = "text"
	yeOpen   = "叶向高，字进卿，号台山，福清人。"
	yeJinshi = "举万历十一年进士"
)

type solverCase struct {
	name string
	refs *schemas.ReferenceSet
	r    schemas.Repair
	want want
}

func runCases(t *testing.T, s solver.Solver, cases []solverCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := solve(t, s, tc.refs, tc.r)
			check(t, tc.r, c, tc.want)
			t.Logf("%s → %q %v (%s)", tc.r.Verdict.Draft.Text, c.Text, c.Citations, c.Reason)
		})
	}
}

func TestEra(t *testing.T) {
	jinshiFact := schemas.Fact{Text: "叶向高举进士", Relation: schemas.RelJinshi, Value: "万历十一年", ChunkID: chunkYe}
	runCases(t, solver.NewEra(solver.Config{}), []solverCase{
		{"era year changed", yeRefs(false),
			repair("叶向高", "万历十二年（1583年），叶向高举进士。", []string{chunkYe}, []schemas.Fact{jinshiFact}, 0,
				fv(ns, schemas.ErrorEra, relDate, "万历十二年", "万历十二年", ev(chunkYe, textYe, yeJinshi)),
				ok(relDate, "1583", "1583年"),
				ok(schemas.RelJinshi, "进士", "叶向高举进士", ev(chunkYe, textYe, yeJinshi))),
			want{outcome: schemas.OutcomeCorrected, has: []string{"万历十一年（1583年）", "叶向高举进士"}, gone: []string{"万历十二年"}, cites: []string{chunkYe}}},
		{"Gregorian year changed", yeRefs(false),
			repair("叶向高", "万历十一年（1585年），叶向高举进士。", []string{chunkYe}, nil, 0,
				ok(relDate, "万历十一年", "万历十一年", ev(chunkYe, textYe, yeJinshi)),
				fv(ns, schemas.ErrorEra, relDate, "1585", "1585年"),
				ok(schemas.RelJinshi, "进士", "叶向高举进士", ev(chunkYe, textYe, yeJinshi))),
			want{outcome: schemas.OutcomeCorrected, has: []string{"万历十一年（1583年）"}, gone: []string{"1585"}}},
		{"both wrong, evidence by span only", yeRefs(false),
			repair("叶向高", "万历十三年（1590年），叶向高举进士。", []string{chunkYe}, nil, 1,
				fv(ns, schemas.ErrorEra, relDate, "万历十三年", "万历十三年",
					schemas.Evidence{ChunkID: chunkYe, Span: ev(chunkYe, textYe, yeJinshi).Span}),
				fv(ns, schemas.ErrorEra, relDate, "1590", "1590年"),
				ok(schemas.RelJinshi, "进士", "叶向高举进士")),
			want{outcome: schemas.OutcomeCorrected, has: []string{"万历十一年（1583年）"}, gone: []string{"万历十三年", "1590"}}},
		{"no evidence: the KG fact of the event", yeRefs(false),
			repair("叶向高", "万历十四年（1586年），叶向高举进士。", []string{chunkYe}, nil, 0,
				fv(ns, schemas.ErrorEra, relDate, "万历十四年", "万历十四年"),
				ok(schemas.RelJinshi, "进士", "叶向高举进士")),
			want{outcome: schemas.OutcomeCorrected, has: []string{"万历十一年（1583年）"}, gone: []string{"万历十四年", "1586"}}},
		{"death date", yeRefs(false),
			repair("叶向高", "天启六年（1626年），卒，年六十九。", []string{chunkYe2}, nil, 0,
				fv(ns, schemas.ErrorEra, relDate, "天启六年", "天启六年", ev(chunkYe2, textYe2, "天启七年卒")),
				ok(schemas.RelDeath, "年六十九", "卒，年六十九")),
			want{outcome: schemas.OutcomeCorrected, has: []string{"天启七年（1627年）"}, gone: []string{"天启六年", "1626"}, cites: []string{chunkYe2}}},
		{"English: the Gregorian year of the passage", &schemas.ReferenceSet{Subject: "Ye Xianggao", Name: "Ye Xianggao", Lang: "en",
			References: []schemas.Reference{{ChunkID: "en-1", Text: "Ye Xianggao passed the jinshi examination in 1583 and entered the Hanlin Academy."}}},
			repair("Ye Xianggao", "In 1585, Ye Xianggao passed the jinshi examination.", []string{"en-1"}, nil, 0,
				fv(ns, schemas.ErrorEra, relDate, "1585", "In 1585", schemas.Evidence{ChunkID: "en-1", Text: "passed the jinshi examination in 1583"}),
				ok(schemas.RelJinshi, "passed the jinshi examination", "Ye Xianggao passed the jinshi examination")),
			want{outcome: schemas.OutcomeCorrected, has: []string{"In 1583, Ye Xianggao"}, gone: []string{"1585"}}},
		{"reference date beyond the era: the date is dropped", &schemas.ReferenceSet{Subject: "叶向高", Name: "叶向高", Lang: "zh",
			References: []schemas.Reference{{ChunkID: "c-bad", Text: "万历六十年，叶向高举进士。"}}},
			repair("叶向高", "叶向高，字进卿，万历十一年举进士。", []string{"c-bad"}, nil, 0,
				ok(schemas.RelCourtesyName, "进卿", "字进卿"),
				fv(ns, schemas.ErrorEra, relDate, "万历十一年", "万历十一年", schemas.Evidence{ChunkID: "c-bad", Text: "万历六十年，叶向高举进士"})),
			want{outcome: schemas.OutcomeCorrected, has: []string{"叶向高，字进卿"}, gone: []string{"万历"}}},
	})
}

func TestAlias(t *testing.T) {
	runCases(t, solver.NewAlias(solver.Config{}), []solverCase{
		{"courtesy name from the evidence", yeRefs(false),
			repair("叶向高", "叶向高，字进德，福清人。", []string{chunkYe}, nil, 0,
				ok(schemas.RelAlias, "叶向高", "叶向高"),
				fv(ns, schemas.ErrorAlias, schemas.RelCourtesyName, "进德", "字进德", ev(chunkYe, textYe, "叶向高，字进卿")),
				ok(schemas.RelNativePlace, "福清", "福清人")),
			want{outcome: schemas.OutcomeCorrected, has: []string{"叶向高，字进卿，福清人。"}, gone: []string{"进德"}, cites: []string{chunkYe}}},
		{"courtesy name from the KG alone", yeRefs(false),
			repair("叶向高", "叶向高，字宗贯，福清人。", []string{chunkYe}, nil, 0,
				fv(ns, schemas.ErrorAlias, schemas.RelCourtesyName, "宗贯", "字宗贯"),
				ok(schemas.RelNativePlace, "福清", "福清人")),
			want{outcome: schemas.OutcomeCorrected, has: []string{"字进卿"}, gone: []string{"宗贯"}, cites: []string{chunkYe}}},
		{"art name", yeRefs(false),
			repair("叶向高", "叶向高，字进卿，号台岩。", []string{chunkYe}, nil, 0,
				ok(schemas.RelCourtesyName, "进卿", "字进卿"),
				fv(ns, schemas.ErrorAlias, schemas.RelArtName, "台岩", "号台岩", ev(chunkYe, textYe, "号台山"))),
			want{outcome: schemas.OutcomeCorrected, has: []string{"号台山"}, gone: []string{"台岩"}}},
		{"the subject's name", yeRefs(false),
			repair("叶向高", "叶向亮，字进卿，福清人。", []string{chunkYe}, nil, 0,
				fv(ns, schemas.ErrorAlias, schemas.RelAlias, "叶向亮", "叶向亮", ev(chunkYe, textYe, "叶向高，字进卿")),
				ok(schemas.RelCourtesyName, "进卿", "字进卿")),
			want{outcome: schemas.OutcomeCorrected, has: []string{"叶向高，字进卿"}, gone: []string{"叶向亮"}}},
		{"another contradicted fact waits for the next verification", yeRefs(false),
			repair("叶向高", "叶向高，字进德，晋江人。", []string{chunkYe}, nil, 0,
				fv(ns, schemas.ErrorAlias, schemas.RelCourtesyName, "进德", "字进德", ev(chunkYe, textYe, "叶向高，字进卿")),
				fv(ns, schemas.ErrorOther, schemas.RelNativePlace, "晋江", "晋江人", ev(chunkYe, textYe, "福清人"))),
			want{outcome: schemas.OutcomeCorrected, has: []string{"叶向高，字进卿，晋江人。"}, gone: []string{"进德"}}},
		{"no name to put: the regenerate way", &schemas.ReferenceSet{Subject: "叶向高", Name: "叶向高", Lang: "zh",
			References: []schemas.Reference{{ChunkID: chunkYe, Text: textYe}}},
			repair("叶向高", "叶向高，号台岩，福清人。", []string{chunkYe}, nil, 0,
				fv(ns, schemas.ErrorAlias, schemas.RelArtName, "台岩", "号台岩"),
				ok(schemas.RelNativePlace, "福清", "福清人")),
			want{outcome: schemas.OutcomeCorrected, has: []string{"叶向高，福清人。"}, gone: []string{"台岩"}}},
	})
}

func TestKnowledge(t *testing.T) {
	g := newFakeGlossary()
	runCases(t, solver.NewKnowledge(solver.Config{Glossary: g}), []solverCase{
		{"examination rank", luRefs(),
			repair("陆文渊", "嘉靖二十年（1541年），陆文渊举进士第三。", []string{chunkLu}, nil, 0,
				ok(relDate, "嘉靖二十年", "嘉靖二十年"),
				fv(ns, schemas.ErrorKnowledge, schemas.RelJinshi, "进士第三", "陆文渊举进士第三", ev(chunkLu, textLu, "举嘉靖二十年进士第二"))),
			want{outcome: schemas.OutcomeCorrected, has: []string{"陆文渊举进士第二。"}, gone: []string{"第三"}, cites: []string{chunkLu, "gl-榜眼"}}},
		{"highest office", luRefs(),
			repair("陆文渊", "官至南京吏部尚书。", []string{chunkLu}, nil, 0,
				fv(ns, schemas.ErrorKnowledge, schemas.RelOffice, "南京吏部尚书", "官至南京吏部尚书", ev(chunkLu, textLu, "官至南京礼部尚书。"))),
			want{outcome: schemas.OutcomeCorrected, has: []string{"官至南京礼部尚书。"}, gone: []string{"吏部"}, cites: []string{"gl-尚书"}}},
		{"office from the KG fact of the passage", luRefs(),
			repair("陆文渊", "陆文渊举进士，授修撰。", []string{chunkLu}, nil, 0,
				ok(schemas.RelJinshi, "进士", "陆文渊举进士"),
				fv(ns, schemas.ErrorKnowledge, schemas.RelOffice, "修撰", "授修撰", ev(chunkLu, textLu, "举嘉靖二十年进士第二，授翰林院编修"))),
			want{outcome: schemas.OutcomeCorrected, has: []string{"授翰林院编修"}, gone: []string{"修撰"}, cites: []string{"gl-编修"}}},
		{"old place name", luRefs(),
			repair("陆文渊", "陆文渊，字静之，苏州吴江人。", []string{chunkLu}, nil, 0,
				ok(schemas.RelCourtesyName, "静之", "字静之"),
				fv(ns, schemas.ErrorKnowledge, schemas.RelNativePlace, "吴江", "苏州吴江人", ev(chunkLu, textLu, "陆文渊，字静之，苏州吴县人"))),
			want{outcome: schemas.OutcomeCorrected, has: []string{"苏州吴县人"}, gone: []string{"吴江"}, cites: []string{"gl-吴县"}}},
		{"a value of another category is passed over", luRefs(),
			repair("陆文渊", "陆文渊初授检讨，迁司业。", []string{chunkLu}, nil, 0,
				fv(ns, schemas.ErrorKnowledge, schemas.RelOffice, "检讨", "初授检讨",
					schemas.Evidence{ChunkID: chunkLu, Text: "初授探花，迁司业"}, ev(chunkLu, textLu, "授翰林院编修"))),
			want{outcome: schemas.OutcomeCorrected, has: []string{"初授翰林院编修，迁司业"}, gone: []string{"检讨", "探花"}}},
		{"a coarser term the reference states", yeRefs(false),
			repair("叶向高", "万历十一年（1583年），叶向高举进士第三。", []string{chunkYe}, nil, 0,
				ok(relDate, "万历十一年", "万历十一年"),
				fv(ns, schemas.ErrorKnowledge, schemas.RelJinshi, "进士第三", "叶向高举进士第三", ev(chunkYe, textYe, yeJinshi))),
			want{outcome: schemas.OutcomeCorrected, has: []string{"叶向高举进士。"}, gone: []string{"第三"}, cites: []string{chunkYe, "gl-进士"}}},
		{"the reference's term where the sentence has its own", &schemas.ReferenceSet{Subject: "王锡爵", Name: "王锡爵", Lang: "zh",
			References: []schemas.Reference{{ChunkID: "c-wang", Text: "王锡爵，字元驭，太仓人。嘉靖四十一年举会试第一，廷试第二，授编修。"}}},
			repair("王锡爵", "嘉靖四十一年（1562年），王锡爵举进士第三。", []string{"c-wang"}, nil, 0,
				ok(relDate, "嘉靖四十一年", "嘉靖四十一年"),
				fv(ns, schemas.ErrorKnowledge, schemas.RelJinshi, "进士第三", "王锡爵举进士第三", schemas.Evidence{ChunkID: "c-wang", Text: "嘉靖四十一年举会试第一，廷试第二"})),
			want{outcome: schemas.OutcomeCorrected, has: []string{"王锡爵举会试第一。"}, gone: []string{"第三"}, cites: []string{"c-wang", "gl-会元"}}},
		{"nothing in the references: the clause goes", luRefs(),
			repair("陆文渊", "陆文渊，字静之，尝为太常寺卿。", []string{chunkLu}, nil, 0,
				ok(schemas.RelCourtesyName, "静之", "字静之"),
				fv(ns, schemas.ErrorKnowledge, schemas.RelOffice, "太常寺卿", "尝为太常寺卿")),
			want{outcome: schemas.OutcomeCorrected, has: []string{"陆文渊，字静之。"}, gone: []string{"太常"}}},
	})
	if len(g.lookups) == 0 || g.lookups[0][:3] != "t1/" {
		t.Errorf("glossary lookups %v, want them made for tenant t1", g.lookups)
	}
}

// Without a glossary the references alone decide, and nothing is cited
// from a glossary.
func TestKnowledgeWithoutGlossary(t *testing.T) {
	r := repair("陆文渊", "陆文渊举进士第三。", []string{chunkLu}, nil, 0,
		fv(ns, schemas.ErrorKnowledge, schemas.RelJinshi, "进士第三", "陆文渊举进士第三", ev(chunkLu, textLu, "举嘉靖二十年进士第二")))
	c, _ := solve(t, solver.NewKnowledge(solver.Config{}), luRefs(), r)
	check(t, r, c, want{outcome: schemas.OutcomeCorrected, has: []string{"进士第二"}, gone: []string{"第三"}})
	for _, ch := range c.Citations {
		if ch != chunkLu {
			t.Errorf("citation %s, want only the reference", ch)
		}
	}
}

func TestRegenerateOffline(t *testing.T) {
	yeFacts := []schemas.Fact{
		{Text: "字进卿", Relation: schemas.RelCourtesyName, Value: "进卿", ChunkID: chunkYe},
		{Text: "福清人", Relation: schemas.RelNativePlace, Value: "福清", ChunkID: chunkYe},
	}
	runCases(t, solver.NewRegenerate(solver.RegenerateConfig{}), []solverCase{
		{"fabricated clause at the end", yeRefs(false),
			repair("叶向高", "叶向高，字进卿，福清人，尝游日本。", []string{chunkYe}, yeFacts, 0,
				ok(schemas.RelAlias, "叶向高", "叶向高"),
				ok(schemas.RelCourtesyName, "进卿", "字进卿"),
				ok(schemas.RelNativePlace, "福清", "福清人"),
				fv(ni, "", relText, "", "尝游日本")),
			want{outcome: schemas.OutcomeCorrected, has: []string{"叶向高，字进卿，福清人。"}, gone: []string{"日本"}, cites: []string{chunkYe}}},
		{"fabricated clause in the middle", yeRefs(false),
			repair("叶向高", "叶向高尝游日本，归，授庶吉士。", []string{chunkYe}, nil, 0,
				fv(ni, "", relText, "", "叶向高尝游日本"),
				fv(ni, "", relText, "", "归"),
				ok(schemas.RelOffice, "庶吉士", "授庶吉士")),
			want{outcome: schemas.OutcomeCorrected, has: []string{"授庶吉士。"}, gone: []string{"日本", "归"}}},
		{"fabricated item of a list", yeRefs(false),
			repair("叶向高", "历官庶吉士、太常寺卿、编修。", []string{chunkYe}, nil, 0,
				ok(schemas.RelOffice, "庶吉士", "历官庶吉士"),
				fv(ni, "", schemas.RelOffice, "太常寺卿", "太常寺卿"),
				ok(schemas.RelOffice, "编修", "编修")),
			want{outcome: schemas.OutcomeCorrected, has: []string{"历官庶吉士、编修。"}, gone: []string{"太常"}}},
		{"native place contradicted (other)", yeRefs(false),
			repair("叶向高", "叶向高，字进卿，晋江人。", []string{chunkYe}, yeFacts[:1], 0,
				ok(schemas.RelCourtesyName, "进卿", "字进卿"),
				fv(ns, schemas.ErrorOther, schemas.RelNativePlace, "晋江", "晋江人", ev(chunkYe, textYe, "福清人"))),
			want{outcome: schemas.OutcomeCorrected, has: []string{"叶向高，字进卿，福清人。"}, gone: []string{"晋江"}, cites: []string{chunkYe}}},
		{"English clause", &schemas.ReferenceSet{Subject: "Anne Whitlow", Name: "Anne Whitlow", Lang: "en",
			References: []schemas.Reference{{ChunkID: "en-1", Text: "Anne Whitlow was an English botanist. She was born in Norwich in 1802."}}},
			repair("Anne Whitlow", "Anne Whitlow, an English botanist, sailed to Java, and was born in Norwich.", []string{"en-1"}, nil, 0,
				ok(relText, "", "Anne Whitlow, an English botanist"),
				fv(ni, "", relText, "", "sailed to Java"),
				ok(schemas.RelBirth, "Norwich", "was born in Norwich")),
			want{outcome: schemas.OutcomeCorrected, has: []string{"Anne Whitlow, an English botanist, and was born in Norwich."}, gone: []string{"Java"}}},
		{"nothing supported left", yeRefs(false),
			repair("叶向高", "叶向高，尝游日本。", []string{chunkYe}, nil, 0,
				ok(schemas.RelAlias, "叶向高", "叶向高"),
				fv(ni, "", relText, "", "尝游日本")),
			want{outcome: schemas.OutcomeDropped}},
		{"last attempt", yeRefs(false),
			repair("叶向高", "叶向高，字进卿，福清人，尝游日本。", []string{chunkYe}, yeFacts, solver.DefaultMaxAttempts-1,
				ok(schemas.RelCourtesyName, "进卿", "字进卿"),
				fv(ni, "", relText, "", "尝游日本")),
			want{outcome: schemas.OutcomeDropped}},
		{"a verdict naming no fact", yeRefs(false),
			repair("叶向高", "叶向高尝游日本。", []string{chunkYe}, nil, 0),
			want{outcome: schemas.OutcomeDropped}},
	})
}

// The citations of a dropped fact's chunk go with it; the facts left cite
// what they rest on.
func TestRegenerateDropsCitationsOfDroppedFacts(t *testing.T) {
	facts := []schemas.Fact{
		{Text: "字进卿", Relation: schemas.RelCourtesyName, Value: "进卿", ChunkID: chunkYe},
		{Text: "天启七年卒", Relation: schemas.RelDeath, Value: "天启七年", ChunkID: chunkYe2},
	}
	r := repair("叶向高", "叶向高，字进卿，天启七年卒。", []string{chunkYe, chunkYe2}, facts, 0,
		ok(schemas.RelCourtesyName, "进卿", "字进卿"),
		fv(ni, "", schemas.RelDeath, "天启七年", "天启七年卒"))
	c, _ := solve(t, solver.NewRegenerate(solver.RegenerateConfig{}), yeRefs(false), r)
	check(t, r, c, want{outcome: schemas.OutcomeCorrected, has: []string{"叶向高，字进卿。"}, cites: []string{chunkYe}})
	if len(c.Citations) != 1 || len(c.Facts) != 1 || c.Facts[0].Value != "进卿" {
		t.Errorf("citations %v facts %+v, want only the courtesy name's", c.Citations, c.Facts)
	}
}

func TestRegenerateAttemptsAreConfigurable(t *testing.T) {
	r := repair("叶向高", "叶向高，字进卿，尝游日本。", []string{chunkYe}, nil, 2,
		ok(schemas.RelCourtesyName, "进卿", "字进卿"),
		fv(ni, "", relText, "", "尝游日本"))
	c, _ := solve(t, solver.NewRegenerate(solver.RegenerateConfig{MaxAttempts: 5}), yeRefs(false), r)
	check(t, r, c, want{outcome: schemas.OutcomeCorrected, gone: []string{"日本"}})
	r.Verdict.Attempt, r.Verdict.Draft.Attempt = 4, 4
	c, _ = solve(t, solver.NewRegenerate(solver.RegenerateConfig{MaxAttempts: 5}), yeRefs(false), r)
	check(t, r, c, want{outcome: schemas.OutcomeDropped})
}

// A sentence the solver cannot change is dropped: the same text would get
// the same verdict again.
func TestUnchangedSentenceIsDropped(t *testing.T) {
	r := repair("叶向高", "叶向高，字进卿，福清人。", []string{chunkYe}, nil, 0,
		ok(schemas.RelCourtesyName, "进卿", "字进卿"),
		fv(ns, schemas.ErrorOther, schemas.RelNativePlace, "晋江", "晋江人", ev(chunkYe, textYe, "福清人")))
	for _, s := range []solver.Solver{solver.NewRegenerate(solver.RegenerateConfig{}), solver.NewAlias(solver.Config{}), solver.NewEra(solver.Config{})} {
		c, _ := solve(t, s, yeRefs(false), r)
		check(t, r, c, want{outcome: schemas.OutcomeDropped})
		if !strings.HasPrefix(c.Reason, "no change") {
			t.Errorf("%s: reason %q, want it to say nothing could be changed", s.Name(), c.Reason)
		}
	}
}
