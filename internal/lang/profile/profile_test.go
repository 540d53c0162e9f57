package profile_test

import (
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/profile/profiletest"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/internal/lang/zh/glossary"
)

func TestEmbeddedProfilesLoad(t *testing.T) {
	s, err := profile.Load(profile.Data(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{profile.English, profile.Generic, profile.Glossary, profile.Liezhuan, "quotes"}
	if got := s.Names(); !slices.Equal(got, want) {
		t.Fatalf("names %v, want %v", got, want)
	}
	if glossary.Profile != profile.Glossary {
		t.Errorf("glossary.Profile %q, want %q", glossary.Profile, profile.Glossary)
	}
	for _, tt := range []struct {
		name, lang         string
		wantName, language string
		chunking           string
	}{
		{profile.Liezhuan, "", profile.Liezhuan, profile.LangChinese, profile.ChunkEntries},
		// A profile with a language keeps it whatever the text is.
		{profile.Liezhuan, profile.LangEnglish, profile.Liezhuan, profile.LangChinese, profile.ChunkEntries},
		{profile.English, profile.LangChinese, profile.English, profile.LangEnglish, profile.ChunkWindows},
		{profile.Glossary, "", profile.Glossary, profile.LangChinese, profile.ChunkGlossary},
		{profile.Generic, profile.LangChinese, profile.Generic, profile.LangChinese, profile.ChunkWindows},
		{profile.Generic, profile.LangEnglish, profile.Generic, profile.LangEnglish, profile.ChunkWindows},
		{profile.Generic, "", profile.Generic, "", profile.ChunkWindows},
		{"", profile.LangChinese, profile.Generic, profile.LangChinese, profile.ChunkWindows},
		{"nonesuch", profile.LangEnglish, profile.Generic, profile.LangEnglish, profile.ChunkWindows},
	} {
		p := s.For(tt.name, tt.lang)
		if p.Name != tt.wantName || p.Language != tt.language || p.Chunking != tt.chunking {
			t.Errorf("For(%q, %q) = %s/%s/%s, want %s/%s/%s", tt.name, tt.lang, p.Name, p.Language, p.Chunking,
				tt.wantName, tt.language, tt.chunking)
		}
	}
	zh := s.For(profile.Generic, profile.LangChinese)
	lz, _ := s.Get(profile.Liezhuan)
	if len(zh.Offices.Terms) != len(lz.Offices.Terms) || zh.WindowChars != 600 || zh.Detect {
		t.Errorf("generic Chinese: %d offices, window %d, detect %v; want liezhuan's %d, 600, false",
			len(zh.Offices.Terms), zh.WindowChars, zh.Detect, len(lz.Offices.Terms))
	}
	if en := s.For(profile.Generic, profile.LangEnglish); en.WindowChars != 1500 || len(en.Offices.Terms) != 0 {
		t.Errorf("generic English: window %d, %d offices; want 1500, none", en.WindowChars, len(en.Offices.Terms))
	}
	if p, _ := s.Get(profile.Glossary); p.Detect || len(p.Kin.Words) != len(lz.Kin.Words) {
		t.Errorf("glossary: detect %v, %d kin words; want false and liezhuan's", p.Detect, len(p.Kin.Words))
	}
	if a, b := profile.Default(), profile.Default(); a != b {
		t.Error("Default loads more than once")
	}
	// The entry openings of a clan or banner and of a kinship clause are
	// the profile's data, longest first.
	if !slices.Contains(lz.Entry.ClauseEnds, "氏") || !slices.Contains(lz.Entry.RelationEnds, "弟") ||
		len([]rune(lz.Entry.ClauseEnds[0])) < len([]rune(lz.Entry.ClauseEnds[len(lz.Entry.ClauseEnds)-1])) {
		t.Errorf("liezhuan clause ends %v, relation ends %v", lz.Entry.ClauseEnds, lz.Entry.RelationEnds)
	}
}

// TestDataFiles reads every data file as the loader does and checks what
// the loader leaves to the files: no term twice in a table, every
// profile directory holding a profile.tsv, and every file of a known name.
func TestDataFiles(t *testing.T) {
	dirs, err := fs.ReadDir(profile.Data(), ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, err := fs.Stat(profile.Data(), d.Name()+"/profile.tsv"); err != nil {
			t.Errorf("%s: %v", d.Name(), err)
		}
		files, _ := fs.ReadDir(profile.Data(), d.Name())
		for _, f := range files {
			if !strings.HasSuffix(f.Name(), ".tsv") {
				continue
			}
			b, _ := fs.ReadFile(profile.Data(), d.Name()+"/"+f.Name())
			seen := map[string]int{}
			for i, line := range strings.Split(string(b), "\n") {
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				if strings.TrimSpace(line) != line {
					t.Errorf("%s/%s:%d: leading or trailing space", d.Name(), f.Name(), i+1)
				}
				first, _, _ := strings.Cut(line, "\t")
				if f.Name() == "profile.tsv" || f.Name() == "regex_demos.tsv" {
					continue // keys repeat by design; demos are per relation
				}
				if l, dup := seen[first]; dup {
					t.Errorf("%s/%s:%d: %q already on line %d", d.Name(), f.Name(), i+1, first, l)
				}
				seen[first] = i + 1
			}
		}
	}
	p := profile.Default().For(profile.Liezhuan, "")
	for _, tt := range []struct {
		name  string
		words []string
	}{
		{"entry.formula", p.Entry.Formulas}, {"entry.appraisal", p.Entry.Appraisals},
		{"names.compound_surnames", p.Names.CompoundSurnames}, {"names.introducers", p.Names.Introducers},
		{"office.honour_prefixes", p.Offices.HonourPrefixes},
	} {
		if len(tt.words) == 0 {
			t.Errorf("%s is empty", tt.name)
		}
		for i, w := range tt.words {
			if slices.Contains(tt.words[:i], w) {
				t.Errorf("%s: %q twice", tt.name, w)
			}
		}
	}
}

// reEraYear finds "<two characters>(元|numeral)年": an era date when the
// two characters are an era name.
var reEraYear = regexp.MustCompile(`(\p{Han}{2})(?:元|[一二三四五六七八九十]{1,3})年`)

// TestErasComeFromTheTable checks that the profiles hold no era list of
// their own: every era date in their demonstrations names an era of
// internal/lang/zh/era's table, the dynasties they prefer are in the table, and
// the era names a profile gives the extractor are exactly the table's.
func TestErasComeFromTheTable(t *testing.T) {
	tab := era.Default()
	s := profile.Default()
	for _, name := range s.Names() {
		p, _ := s.Get(name)
		var texts []string
		for _, d := range p.ChunkDemos {
			texts = append(texts, d.Text)
		}
		for _, d := range p.RegexDemos {
			texts = append(texts, d.Example)
		}
		for _, txt := range texts {
			for _, m := range reEraYear.FindAllStringSubmatch(txt, -1) {
				if len(tab.Lookup(m[1])) == 0 {
					t.Errorf("%s: %q names no era of the table", name, m[0])
				}
			}
		}
		names := map[string]bool{}
		for _, e := range tab.Eras() {
			names[e.Name] = true
		}
		got := p.EraNames()
		if len(got) != len(names) {
			t.Errorf("%s: %d era names, the table has %d", name, len(got), len(names))
		}
		for i, n := range got {
			if !names[n] {
				t.Errorf("%s: era %q is not in the table", name, n)
			}
			if i > 0 && utf8.RuneCountInString(n) > utf8.RuneCountInString(got[i-1]) {
				t.Errorf("%s: era names not longest first at %q", name, n)
			}
		}
		for _, want := range []string{"乾隆", "光绪", "万历", "洪武"} {
			if !slices.Contains(got, want) {
				t.Errorf("%s: no era %s", name, want)
			}
		}
	}
}

// TestOfficeLexiconKeepsTheThreeOld holds the merged lexicon to every
// entry of the extractor's, the verifier's and the writer's lexicons it
// replaced, with the role and grade each had.
func TestOfficeLexiconKeepsTheThreeOld(t *testing.T) {
	p := profile.Default().For(profile.Liezhuan, "")
	rows := map[string]profile.Office{}
	for _, o := range p.Offices.Terms {
		rows[o.Term] = o
	}
	union := map[string]bool{}
	for _, term := range oldExtractorOffices {
		union[term] = true
		o, ok := rows[term]
		wantMin := utf8.RuneCountInString(term)
		if term == "令" || term == "丞" {
			wantMin = 3
		}
		if !ok || !o.Extract || o.MinChars != wantMin {
			t.Errorf("extractor's %s: row %+v, want extracted in titles of %d+", term, o, wantMin)
		}
	}
	for _, term := range oldVerifierOffices {
		union[term] = true
		if o, ok := rows[term]; !ok || !o.Recognise {
			t.Errorf("verifier's %s: row %+v, want recognised", term, o)
		}
	}
	for term, g := range oldWriterGrades {
		union[term] = true
		if o, ok := rows[term]; !ok || !o.Graded || o.Grade != g {
			t.Errorf("writer's %s: row %+v, want grade %v", term, o, g)
		}
	}
	for _, term := range oldWriterHonours {
		union[term] = true
		if o, ok := rows[term]; !ok || !o.Honorary || o.Graded {
			t.Errorf("writer's honour %s: row %+v, want honorary", term, o)
		}
	}
	for term, g := range addedOffices {
		union[term] = true
		if o, ok := rows[term]; !ok || !o.Extract || !o.Recognise || !o.Graded || o.Grade != g {
			t.Errorf("added %s: row %+v, want extracted, recognised, grade %v", term, o, g)
		}
	}
	if len(rows) != len(union) {
		t.Errorf("lexicon has %d rows, the old lexicons and the added rows %d distinct terms", len(rows), len(union))
	}
	// Nothing else is switched on: each role has exactly the old entries
	// and the rows added since, with their reasons.
	for _, o := range p.Offices.Terms {
		if _, ok := addedOffices[o.Term]; ok {
			continue
		}
		if o.Extract != slices.Contains(oldExtractorOffices, o.Term) {
			t.Errorf("%s: extract %v, the extractor's lexicon said otherwise", o.Term, o.Extract)
		}
		if o.Recognise != slices.Contains(oldVerifierOffices, o.Term) {
			t.Errorf("%s: recognise %v, the verifier's lexicon said otherwise", o.Term, o.Recognise)
		}
		if _, ok := oldWriterGrades[o.Term]; o.Graded != ok {
			t.Errorf("%s: graded %v, the writer's lexicon said otherwise", o.Term, o.Graded)
		}
	}
	t.Logf("offices: extractor %d, verifier %d (%d distinct), writer %d graded + %d honours → %d rows",
		len(oldExtractorOffices), len(oldVerifierOffices), len(dedup(oldVerifierOffices)), len(oldWriterGrades),
		len(oldWriterHonours), len(rows))
}

// addedOffices are the rows added to the lexicon after the three old
// ones were merged, with their grades: titles the histories write before
// a name or in a relative's sentence that the old lists lacked (御史大夫
// of the early Ming, 布政 for 布政使, 操江 the river command, 副将 the
// deputy general, 吏目 the clerk), found reading the titles of the people
// a listing attaches (consumers/extractor/listed.go).
var addedOffices = map[string]float64{"御史大夫": 1.5, "布政": 2.5, "操江": 4, "副将": 3, "吏目": 9.5}

func dedup(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func TestOfficeLookups(t *testing.T) {
	o := profile.Default().For(profile.Liezhuan, "").Offices
	for _, tt := range []struct {
		title           string
		extracted       bool
		recognised      bool
		recognisedLong  bool
		honorary, sinec bool
	}{
		{"礼部尚书", true, true, true, false, false},
		{"丞", false, true, false, false, false},
		{"县令", true, true, false, false, false},
		{"邑令", false, true, false, false, false},
		{"知县令", true, true, false, false, false},
		{"遣使", false, true, false, false, false},
		{"南京礼部右侍郎", true, true, true, false, true},
		{"太子太保", true, true, true, true, false},
		{"少保兼太子太保", true, true, true, true, false},
		{"礼部尚书兼东阁大学士", true, true, true, false, false},
	} {
		if got := o.Extracted(tt.title); got != tt.extracted {
			t.Errorf("Extracted(%s) = %v", tt.title, got)
		}
		if got := o.Recognised(tt.title, 1); got != tt.recognised {
			t.Errorf("Recognised(%s, 1) = %v", tt.title, got)
		}
		if got := o.Recognised(tt.title, 2); got != tt.recognisedLong {
			t.Errorf("Recognised(%s, 2) = %v", tt.title, got)
		}
		if got := o.Honorary(tt.title); got != tt.honorary {
			t.Errorf("Honorary(%s) = %v", tt.title, got)
		}
		if got := o.Sinecure(tt.title); got != tt.sinec {
			t.Errorf("Sinecure(%s) = %v", tt.title, got)
		}
	}
	g := o.Graded()
	for i := 1; i < len(g); i++ {
		if utf8.RuneCountInString(g[i].Term) > utf8.RuneCountInString(g[i-1].Term) {
			t.Fatalf("graded terms not longest first at %s", g[i].Term)
		}
	}
}

// TestAddingAProfileIsAddingFiles loads the embedded profiles with one
// more directory from profiletest/testdata: a corpus that extends liezhuan with its
// own era preference, appraisal openers and office table. Nothing else is
// needed for the set to offer it.
func TestAddingAProfileIsAddingFiles(t *testing.T) {
	s := profiletest.Set(t)
	if !slices.Contains(s.Names(), "qingshi") {
		t.Fatalf("names %v lack qingshi", s.Names())
	}
	p := s.For("qingshi", profile.LangEnglish)
	if p.Name != "qingshi" || p.Language != profile.LangChinese || p.Chunking != profile.ChunkEntries || p.Detect {
		t.Fatalf("qingshi: %s/%s/%s detect %v", p.Name, p.Language, p.Chunking, p.Detect)
	}
	if !slices.Equal(p.Entry.Appraisals, []string{"评曰", "论曰", "赞曰"}) {
		t.Errorf("appraisals %v", p.Entry.Appraisals)
	}
	if len(p.Offices.Terms) != 4 || !p.Offices.Extracted("军机大臣") || p.Offices.Extracted("礼部主事") {
		t.Errorf("offices: %d terms, its own table wanted", len(p.Offices.Terms))
	}
	lz, _ := s.Get(profile.Liezhuan)
	if len(p.Kin.Words) != len(lz.Kin.Words) || len(p.ChunkDemos) != len(lz.ChunkDemos) {
		t.Errorf("kinship and demonstrations not taken from liezhuan")
	}
	for date, want := range map[string]int{"乾隆十年": 1745, "光绪二年": 1876, "万历十一年": 1583} {
		ds := p.Eras.Find(date)
		if len(ds) != 1 || ds[0].Gregorian != want {
			t.Errorf("%s: %+v, want %d", date, ds, want)
		}
	}
}

func TestLoadRejects(t *testing.T) {
	base := func() fstest.MapFS {
		return fstest.MapFS{"a/profile.tsv": {Data: []byte("language\tzh\nchunking\twindows\n")}}
	}
	for name, extra := range map[string]fstest.MapFS{
		"unknown key":       {"b/profile.tsv": {Data: []byte("chunking\twindows\nlangauge\tzh\n")}},
		"bad chunking":      {"b/profile.tsv": {Data: []byte("chunking\tlines\n")}},
		"extends unknown":   {"b/profile.tsv": {Data: []byte("extends\tnope\n")}},
		"extends itself":    {"b/profile.tsv": {Data: []byte("extends\tc\n"), Mode: 0}, "c/profile.tsv": {Data: []byte("extends\tb\n")}},
		"unknown file":      {"b/profile.tsv": {Data: []byte("chunking\twindows\n")}, "b/eras.tsv": {Data: []byte("x\n")}},
		"duplicate office":  {"b/profile.tsv": {Data: []byte("chunking\twindows\n")}, "b/offices.tsv": {Data: []byte("卿\t-\tyes\tyes\n卿\t3\tno\tno\n")}},
		"bad grade":         {"b/profile.tsv": {Data: []byte("chunking\twindows\n")}, "b/offices.tsv": {Data: []byte("卿\thigh\tyes\tyes\n")}},
		"bad kin role":      {"b/profile.tsv": {Data: []byte("chunking\twindows\n")}, "b/kin.tsv": {Data: []byte("子\tsame\tson\n")}},
		"stray tab":         {"b/profile.tsv": {Data: []byte("chunking\twindows\t\n")}},
		"unknown dynasty":   {"b/profile.tsv": {Data: []byte("chunking\twindows\nera_prefer\t大清国\n")}},
		"rules to nowhere":  {"b/profile.tsv": {Data: []byte("chunking\twindows\nrules\tzh\tnope\n")}},
		"rules wrong lang":  {"b/profile.tsv": {Data: []byte("chunking\twindows\nrules\ten\ta\n")}},
		"bad regex demo":    {"b/profile.tsv": {Data: []byte("chunking\twindows\n")}, "b/regex_demos.tsv": {Data: []byte("office\ttail=1\t(\tx\n")}},
		"bad plan item":     {"b/profile.tsv": {Data: []byte("chunking\twindows\nwriting.plan\tidentity\tepilogue\n")}},
		"detect in windows": {"b/profile.tsv": {Data: []byte("language\tzh\nchunking\twindows\ndetect\tyes\n")}},
		"bad weight":        {"b/profile.tsv": {Data: []byte("chunking\twindows\n")}, "b/mention_model.tsv": {Data: []byte("\"b\"\t-2.5\n\"l1:^\"\tlots\n")}},
		"infinite weight":   {"b/profile.tsv": {Data: []byte("chunking\twindows\n")}, "b/mention_model.tsv": {Data: []byte("\"b\"\t+Inf\n")}},
		"short count row":   {"b/profile.tsv": {Data: []byte("chunking\twindows\n")}, "b/mention_chars.tsv": {Data: []byte("total\t9\t3\n王\t4\n")}},
		"negative count":    {"b/profile.tsv": {Data: []byte("chunking\twindows\n")}, "b/mention_chars.tsv": {Data: []byte("total\t9\t3\n王\t-4\t1\n")}},
		"bad mention ask":   {"b/profile.tsv": {Data: []byte("chunking\twindows\nreview.mention\twhom?\n")}},
	} {
		fsys := base()
		for k, v := range extra {
			fsys[k] = v
		}
		if _, err := profile.Load(fsys, nil); err == nil {
			t.Errorf("%s: loaded", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	if _, err := profile.Load(base(), nil); err != nil {
		t.Errorf("minimal profile: %v", err)
	}
}

// A model is told the language of the page from the profile: the generic
// profile names it by the text's language.
func TestWritingLanguageName(t *testing.T) {
	s := profile.Default()
	for _, tt := range []struct{ name, lang, want string }{
		{profile.Liezhuan, "", "classical Chinese"},
		{profile.Generic, profile.LangEnglish, "English"},
		{profile.English, "", "English"},
		{profile.Glossary, "", "classical Chinese"},
	} {
		if got := s.For(tt.name, tt.lang).Writing.LanguageName; got != tt.want {
			t.Errorf("%s/%s: language name %q, want %q", tt.name, tt.lang, got, tt.want)
		}
	}
}
