package era_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/lang/zh/era"
)

func TestParseNumeral(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"元", 1, true},
		{"一", 1, true},
		{"九", 9, true},
		{"十", 10, true},
		{"十一", 11, true},
		{"十九", 19, true},
		{"二十", 20, true},
		{"二十三", 23, true},
		{"廿", 20, true},
		{"廿三", 23, true},
		{"卅", 30, true},
		{"卅五", 35, true},
		{"卌", 40, true},
		{"四十八", 48, true},
		{"六十一", 61, true},
		{"十有一", 11, true},
		{"二十有三", 23, true},
		{"一百", 100, true},
		{"一百零五", 105, true},
		{"一百一十", 110, true},
		{"百二十", 120, true},
		{"11", 11, true},
		{"１５８３", 1583, true},
		{"", 0, false},
		{"年", 0, false},
		{"零", 0, false},
		{"〇", 0, false},
		{"有", 0, false},
		{"十有", 0, false},
		{"十十", 0, false},
		{"二二", 0, false},
		{"一十", 10, true},
		{"元元", 0, false},
		{"元年", 0, false},
		{"一百五", 0, false},
		{"十一年", 0, false},
		{"1a", 0, false},
	}
	for _, tt := range tests {
		got, ok := era.ParseNumeral(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseNumeral(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestFormatNumeral(t *testing.T) {
	tests := []struct {
		in   int
		want string
	}{
		{1, "元"},
		{2, "二"},
		{10, "十"},
		{11, "十一"},
		{20, "二十"},
		{23, "二十三"},
		{48, "四十八"},
		{61, "六十一"},
		{100, "一百"},
		{105, "一百零五"},
		{110, "一百一十"},
		{999, "九百九十九"},
		{0, "0"},
		{1000, "1000"},
	}
	for _, tt := range tests {
		if got := era.FormatNumeral(tt.in); got != tt.want {
			t.Errorf("FormatNumeral(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for n := 1; n <= 999; n++ {
		s := era.FormatNumeral(n)
		if got, ok := era.ParseNumeral(s); !ok || got != n {
			t.Fatalf("ParseNumeral(FormatNumeral(%d) = %q) = %d, %v", n, s, got, ok)
		}
	}
}

func TestFind(t *testing.T) {
	tab := era.Default()
	type d = era.Date
	tests := []struct {
		name string
		text string
		want []era.Date
	}{
		{"jinshi with Gregorian", "万历十一年（1583年）举进士", []d{
			{Era: "万历", Dynasty: "明", Year: 11, Gregorian: 1583, Text: "万历十一年", Start: 0, End: 5}}},
		{"late Jiajing", "嘉靖四十五年", []d{
			{Era: "嘉靖", Dynasty: "明", Year: 45, Gregorian: 1566, Text: "嘉靖四十五年", Start: 0, End: 6}}},
		{"approximate", "洪武初，以荐授官。", []d{
			{Era: "洪武", Dynasty: "明", Approx: "初", Text: "洪武初", Start: 0, End: 3}}},
		{"first year", "建文元年", []d{
			{Era: "建文", Dynasty: "明", Year: 1, Gregorian: 1399, Text: "建文元年", Start: 0, End: 4}}},
		{"traditional", "萬曆十一年", []d{
			{Era: "万历", Dynasty: "明", Year: 11, Gregorian: 1583, Text: "萬曆十一年", Start: 0, End: 5}}},
		{"traditional variant", "天啓七年卒", []d{
			{Era: "天启", Dynasty: "明", Year: 7, Gregorian: 1627, Text: "天啓七年", Start: 0, End: 4}}},
		{"two dates in a sentence", "叶向高，万历十一年进士。天启元年召还。", []d{
			{Era: "万历", Dynasty: "明", Year: 11, Gregorian: 1583, Text: "万历十一年", Start: 4, End: 9},
			{Era: "天启", Dynasty: "明", Year: 1, Gregorian: 1621, Text: "天启元年", Start: 12, End: 16}}},
		{"longest name wins over a name inside it", "隆庆元年", []d{
			{Era: "隆庆", Dynasty: "明", Year: 1, Gregorian: 1567, Text: "隆庆元年", Start: 0, End: 4}}},
		{"four-character era", "太平兴国二年", []d{
			{Era: "太平兴国", Dynasty: "北宋", Year: 2, Gregorian: 977, Text: "太平兴国二年", Start: 0, End: 6}}},
		{"longer name before a shorter one", "天册万岁元年", []d{
			{Era: "天册万岁", Dynasty: "武周", Year: 1, Gregorian: 695, Text: "天册万岁元年", Start: 0, End: 6}}},
		{"name ending in 元", "开元元年", []d{
			{Era: "开元", Dynasty: "唐", Year: 1, Gregorian: 713, Text: "开元元年", Start: 0, End: 4}}},
		{"classical numeral", "洪武十有一年", []d{
			{Era: "洪武", Dynasty: "明", Year: 11, Gregorian: 1378, Text: "洪武十有一年", Start: 0, End: 6}}},
		{"廿", "嘉靖廿三年", []d{
			{Era: "嘉靖", Dynasty: "明", Year: 23, Gregorian: 1544, Text: "嘉靖廿三年", Start: 0, End: 5}}},
		{"end of an era", "嘉靖末年，", []d{
			{Era: "嘉靖", Dynasty: "明", Approx: "末", Text: "嘉靖末年", Start: 0, End: 4}}},
		{"middle", "万历中，", []d{
			{Era: "万历", Dynasty: "明", Approx: "中", Text: "万历中", Start: 0, End: 3}}},
		{"during", "万历年间", []d{
			{Era: "万历", Dynasty: "明", Approx: "间", Text: "万历年间", Start: 0, End: 4}}},
		{"traditional during", "萬曆間", []d{
			{Era: "万历", Dynasty: "明", Approx: "间", Text: "萬曆間", Start: 0, End: 3}}},
		{"year beyond the era", "万历六十年", []d{
			{Era: "万历", Dynasty: "明", Year: 60, Text: "万历六十年", Start: 0, End: 5}}},
		{"restored count", "洪武三十五年", []d{
			{Era: "洪武", Dynasty: "明", Year: 35, Gregorian: 1402, Text: "洪武三十五年", Start: 0, End: 6}}},
		{"Kangxi 61", "康熙六十一年冬", []d{
			{Era: "康熙", Dynasty: "清", Year: 61, Gregorian: 1722, Text: "康熙六十一年", Start: 0, End: 6}}},
		{"ambiguous: latest dynasty", "贞观元年", []d{
			{Era: "贞观", Dynasty: "西夏", Year: 1, Gregorian: 1101, Text: "贞观元年", Start: 0, End: 4}}},
		{"ambiguous: the era that reaches the year", "贞观二十年", []d{
			{Era: "贞观", Dynasty: "唐", Year: 20, Gregorian: 646, Text: "贞观二十年", Start: 0, End: 5}}},
		{"arabic digits", "万历11年", []d{
			{Era: "万历", Dynasty: "明", Year: 11, Gregorian: 1583, Text: "万历11年", Start: 0, End: 5}}},
		{"after other text", "其后，崇祯十七年三月", []d{
			{Era: "崇祯", Dynasty: "明", Year: 17, Gregorian: 1644, Text: "崇祯十七年", Start: 3, End: 8}}},
		{"era name alone", "万历帝召见之", nil},
		{"garrison named like an era", "以副总兵守大同中路", nil},
		{"prefecture named like an era", "出知太平府，移保定。", nil},
		{"office after an era name", "成化中书舍人", nil},
		{"middle without a comma", "嘉靖中擢御史", []d{
			{Era: "嘉靖", Dynasty: "明", Approx: "中", Text: "嘉靖中", Start: 0, End: 3}}},
		{"name with no 年", "万历十一月", nil},
		{"name at the end", "事在万历", nil},
		{"no era", "叶向高，字进卿，福清人。", nil},
		{"English", "He passed the examination in 1583.", nil},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tab.Find(tt.text)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Find(%q)\n got %+v\nwant %+v", tt.text, got, tt.want)
			}
		})
	}
}

func TestDateFormat(t *testing.T) {
	tests := []struct {
		d    era.Date
		want string
	}{
		{era.Date{Era: "万历", Year: 11}, "万历十一年"},
		{era.Date{Era: "建文", Year: 1}, "建文元年"},
		{era.Date{Era: "洪武", Approx: "初"}, "洪武初"},
		{era.Date{Era: "万历", Approx: "间"}, "万历间"},
	}
	for _, tt := range tests {
		if got := tt.d.Format(); got != tt.want {
			t.Errorf("%+v.Format() = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestGregorian(t *testing.T) {
	tab := era.Default()
	tests := []struct {
		name string
		year int
		want int
		ok   bool
	}{
		{"万历", 11, 1583, true},
		{"萬曆", 11, 1583, true},
		{"万历", 48, 1620, true},
		{"万历", 49, 1621, true}, // the spill-over year reference tables carry
		{"万历", 50, 0, false},
		{"万历", 0, 0, false},
		{"嘉靖", 45, 1566, true},
		{"洪武", 1, 1368, true},
		{"洪武", 35, 1402, true},
		{"崇祯", 17, 1644, true},
		{"顺治", 1, 1644, true},
		{"乾隆", 60, 1795, true},
		{"宣统", 3, 1911, true},
		{"天命", 1, 1616, true},
		{"永历", 1, 1647, true},
		{"建元", 1, 479, true},  // 南齐, the latest of 西汉, 东晋 and 南齐
		{"建元", 6, -135, true}, // only 西汉's 建元 reaches a sixth year
		{"元始", 1, 1, true},
		{"元寿", 2, -1, true},
		{"元寿", 3, 1, true}, // spill-over across the missing year zero
		{"天汉", 1, -100, true},
		{"不是年号", 1, 0, false},
	}
	for _, tt := range tests {
		got, ok := tab.Gregorian(tt.name, tt.year)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Gregorian(%q, %d) = %d, %v; want %d, %v", tt.name, tt.year, got, ok, tt.want, tt.ok)
		}
	}
}

func TestPreference(t *testing.T) {
	def := era.Default()
	tests := []struct {
		name        string
		tab         *era.Table
		era         string
		year        int
		wantDynasty string
		wantYear    int
	}{
		// Ming first, then Qing, then the latest dynasty.
		{"Ming over Yuan", def, "天顺", 1, "明", 1457},
		{"Ming over Western Xia", def, "正德", 1, "明", 1506},
		{"a Ming-only name", def, "永乐", 1, "明", 1403},
		{"Qing over nothing", def, "崇德", 1, "清", 1636},
		{"latest: Western Xia over Tang", def, "貞觀", 1, "西夏", 1101},
		{"latest: Yuan over Western Xia", def, "大德", 1, "元", 1297},
		{"latest: Jin over Liao and Western Xia", def, "大安", 1, "金", 1209},
		{"latest that reaches the year", def, "贞观", 20, "唐", 646},
		{"latest that reaches the year, same dynasty", def, "至元", 10, "元", 1273},
		{"latest of a dynasty's two eras", def, "至元", 2, "元", 1336},
		{"prefer Tang", def.WithPrefer("唐"), "贞观", 1, "唐", 627},
		{"prefer Yuan over Ming", def.WithPrefer("元", "明"), "天顺", 1, "元", 1328},
		{"prefer a dynasty without the name", def.WithPrefer("清", "明"), "天顺", 1, "明", 1457},
		{"traditional dynasty name", def.WithPrefer("東漢"), "永和", 1, "东汉", 136},
		{"latest without the preference", def, "永和", 1, "东晋", 345},
		{"default after WithPrefer is unchanged", def, "贞观", 1, "西夏", 1101},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := tt.tab.Resolve(tt.era, tt.year)
			if !ok || e.Dynasty != tt.wantDynasty {
				t.Fatalf("Resolve(%q, %d) = %+v, %v; want dynasty %s", tt.era, tt.year, e, ok, tt.wantDynasty)
			}
			if g, ok := tt.tab.Gregorian(tt.era, tt.year); !ok || g != tt.wantYear {
				t.Errorf("Gregorian(%q, %d) = %d, %v; want %d", tt.era, tt.year, g, ok, tt.wantYear)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	tab := era.Default()
	tests := []struct {
		name string
		want []string // dynasty@start in preference order
	}{
		{"万历", []string{"明@1573"}},
		{"萬曆", []string{"明@1573"}},
		{"貞觀", []string{"西夏@1101", "唐@627"}},
		{"天顺", []string{"明@1457", "元@1328"}},
		{"至元", []string{"元@1335", "元@1264"}},
		{"上元", []string{"唐@760", "唐@674"}},
		{"没有", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, e := range tab.Lookup(tt.name) {
			got = append(got, e.Dynasty+"@"+itoa(e.Start))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Lookup(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestFromGregorian(t *testing.T) {
	def := era.Default()
	tests := []struct {
		name string
		tab  *era.Table
		year int
		want []string // formatted dates in order
	}{
		{"Wanli", def, 1583, []string{"万历十一年"}},
		{"Ming before Qing and Later Jin", def, 1620, []string{"泰昌元年", "万历四十八年", "天命五年"}},
		{"fall of Beijing", def, 1644, []string{"崇祯十七年", "顺治元年"}},
		{"Qing preferred", def.WithPrefer("清"), 1644, []string{"顺治元年", "崇祯十七年"}},
		{"era in force at the end of the year first", def, 1400, []string{"建文二年", "洪武三十三年"}},
		{"before the common era", def, -100, []string{"天汉元年"}},
		{"no year zero", def, 0, nil},
		{"before the first era", def, -200, nil},
		{"after the last era", def, 1950, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, d := range tt.tab.FromGregorian(tt.year) {
				if d.Gregorian != tt.year || d.Text != d.Format() {
					t.Errorf("FromGregorian(%d) returned %+v", tt.year, d)
				}
				got = append(got, d.Text)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("FromGregorian(%d) = %v, want %v", tt.year, got, tt.want)
			}
		})
	}
}

// TestRoundTrip checks every year of every era: the era's own conversion,
// FromGregorian naming it, and Find reading its formatted date back.
func TestRoundTrip(t *testing.T) {
	tab := era.Default()
	for _, e := range tab.Eras() {
		for y := 1; y <= e.Len(); y++ {
			g, ok := e.Gregorian(y)
			if !ok {
				t.Fatalf("%+v.Gregorian(%d) not ok", e, y)
			}
			found := false
			for _, d := range tab.FromGregorian(g) {
				if d.Era == e.Name && d.Dynasty == e.Dynasty && d.Year == y {
					found = true
				}
			}
			if !found {
				t.Errorf("FromGregorian(%d) misses %s%s年 of %s", g, e.Name, era.FormatNumeral(y), e.Dynasty)
			}
			text := e.Name + era.FormatNumeral(y) + "年"
			ds := tab.Find(text)
			if len(ds) != 1 || ds[0].Era != e.Name || ds[0].Year != y || ds[0].Start != 0 || ds[0].End != len([]rune(text)) {
				t.Errorf("Find(%q) = %+v", text, ds)
			}
		}
	}
}

// TestTableShape checks the embedded table itself: names simplified, eras
// well formed, and the major dynasties counted without a gap.
func TestTableShape(t *testing.T) {
	tab := era.Default()
	eras := tab.Eras()
	if len(eras) < 500 {
		t.Fatalf("table has %d eras, want the full run from Han to Qing", len(eras))
	}
	seen := make(map[string]bool)
	for _, e := range eras {
		if era.Simplify(e.Name) != e.Name || era.Simplify(e.Dynasty) != e.Dynasty {
			t.Errorf("%+v is not simplified", e)
		}
		if e.Len() < 1 || e.Len() > 61 {
			t.Errorf("%+v lasts %d years", e, e.Len())
		}
		k := e.Dynasty + e.Name + itoa(e.Start)
		if seen[k] {
			t.Errorf("%+v listed twice", e)
		}
		seen[k] = true
	}
	spans := []struct {
		dynasty    string
		first, end int
	}{
		{"西汉", -140, -1},
		{"东汉", 25, 220},
		{"东晋", 317, 420},
		{"唐", 618, 690},
		{"唐", 705, 907},
		{"北宋", 960, 1127},
		{"南宋", 1127, 1279},
		{"辽", 916, 1125},
		{"金", 1115, 1234},
		{"西夏", 1032, 1227},
		{"元", 1260, 1370},
		{"明", 1368, 1644},
		{"南明", 1645, 1662},
		{"清", 1616, 1911},
	}
	for _, s := range spans {
		for g := s.first; g <= s.end; g++ {
			if g == 0 {
				continue
			}
			ok := false
			for _, e := range eras {
				if e.Dynasty == s.dynasty && e.Start <= g && g <= e.End {
					ok = true
					break
				}
			}
			if !ok {
				t.Errorf("%s has no era counting %d", s.dynasty, g)
			}
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"valid", "# c\n\n明\t神宗\t萬曆\t1573\t1620\n", true},
		{"four fields", "明\t神宗\t万历\t1573\n", false},
		{"bad start", "明\t神宗\t万历\tx\t1620\n", false},
		{"bad end", "明\t神宗\t万历\t1573\tx\n", false},
		{"ends before it starts", "明\t神宗\t万历\t1620\t1573\n", false},
		{"year zero", "西汉\t平帝\t元始\t0\t5\n", false},
		{"empty name", "明\t神宗\t\t1573\t1620\n", false},
		{"no eras", "# nothing\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, err := era.Parse(strings.NewReader(tt.in))
			if (err == nil) != tt.ok {
				t.Fatalf("Parse: err = %v, want ok %v", err, tt.ok)
			}
			if tt.ok {
				if g, ok := tab.Gregorian("万历", 11); !ok || g != 1583 {
					t.Errorf("Gregorian(万历, 11) = %d, %v", g, ok)
				}
			}
		})
	}
}

func TestSimplify(t *testing.T) {
	tests := []struct{ in, want string }{
		{"萬曆十一年", "万历十一年"},
		{"天啟", "天启"},
		{"崇禎", "崇祯"},
		{"東晉", "东晋"},
		{"叶向高", "叶向高"},
		{"", ""},
	}
	for _, tt := range tests {
		got := era.Simplify(tt.in)
		if got != tt.want {
			t.Errorf("Simplify(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if len([]rune(got)) != len([]rune(tt.in)) {
			t.Errorf("Simplify(%q) changed the rune count", tt.in)
		}
	}
}
