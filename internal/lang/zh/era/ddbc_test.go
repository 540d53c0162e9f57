package era_test

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"

	"github.com/annalist-dev/annalist/internal/lang/zh/era"
)

// ddbcEra is one era as the DDBC authority table counts it, after merging
// the rows it writes for each emperor who counted the era.
type ddbcEra struct {
	dynasty, name string // simplified
	start, end    int    // astronomical years (1 BCE is 0)
}

// ddbcDynasty maps the DDBC state names whose eras our table files under
// the dynasty that took the state's name later.
func ddbcDynasty(d string) string {
	switch d {
	case "后金":
		return "清"
	case "蒙古":
		return "元"
	}
	return d
}

// readDDBC reads eras.csv (start_year, end_year, era, emperor, dynasty, …;
// traditional characters; rows for a reign without an era name in
// parentheses) into one entry per era.
func readDDBC(t *testing.T, path string) []ddbcEra {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	var raw []ddbcEra
	for i, r := range rows {
		if i == 0 || len(r) < 5 {
			continue
		}
		name := strings.TrimSpace(r[2])
		if name == "" || strings.HasPrefix(name, "（") || strings.HasPrefix(name, "(") {
			continue
		}
		start, err1 := strconv.Atoi(r[0])
		end, err2 := strconv.Atoi(r[1])
		if err1 != nil || err2 != nil {
			t.Fatalf("%s line %d: bad years %q %q", path, i+1, r[0], r[1])
		}
		raw = append(raw, ddbcEra{
			dynasty: ddbcDynasty(era.Simplify(strings.TrimSpace(r[4]))),
			name:    era.Simplify(name),
			start:   start, end: end,
		})
	}
	// An era counted on by a successor is one row per emperor; rows of one
	// name and dynasty that touch or overlap are one era.
	slices.SortFunc(raw, func(a, b ddbcEra) int {
		return cmp.Or(cmp.Compare(a.dynasty, b.dynasty), cmp.Compare(a.name, b.name), cmp.Compare(a.start, b.start))
	})
	var out []ddbcEra
	for _, e := range raw {
		if n := len(out); n > 0 && out[n-1].dynasty == e.dynasty && out[n-1].name == e.name && e.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, e.end)
			continue
		}
		out = append(out, e)
	}
	return out
}

// ddbcStart converts our first year to the DDBC convention. DDBC counts
// astronomical years (1 BCE is 0) and dates a Chinese year by the Julian
// year it began in. Up to 太初元年 (104 BCE), whose calendar reform took
// effect within the year, the year began in the tenth month of the previous
// Julian year, which cancels the shift to astronomical numbering.
func ddbcStart(start int) int {
	switch {
	case start <= -104:
		return start
	case start < 0:
		return start + 1
	}
	return start
}

// laterInDDBC lists the eras DDBC dates one year after the year our table
// (and the usual year tables) give their 元年, with the reason. Most were
// proclaimed in the eleventh or twelfth month, which fell in January or
// February of the next Julian year; DDBC dates the era from that day, while
// 元年 is the Chinese year, nearly all of which lies in the earlier Julian
// year.
func laterInDDBC() map[dynastyName]string {
	const late = "proclaimed in the 11th or 12th month"
	return map[dynastyName]string{
		{"东汉", "中平"}:   late,
		{"西晋", "泰始"}:   late,
		{"西晋", "太安"}:   late,
		{"西晋", "永兴"}:   late,
		{"东晋", "咸安"}:   late,
		{"刘宋", "泰始"}:   late,
		{"北魏", "天兴"}:   late,
		{"北魏", "永熙"}:   late,
		{"北齐", "隆化"}:   late,
		{"北宋", "太平兴国"}: late,
		{"金", "天德"}:    late,
	}
}

// earlierInDDBC lists the eras DDBC dates one year before ours, with the
// reason.
func earlierInDDBC() map[dynastyName]string {
	const zhou = "Wu Zetian's calendar began the year in the 11th month, so 元年 began in December of the previous Julian year"
	return map[dynastyName]string{
		{"唐", "载初"}:  zhou,
		{"武周", "证圣"}: zhou,
		{"武周", "圣历"}: zhou,
		{"辽", "天赞"}:  "the 辽史 renames 神册七年 (922) 天赞 in its second month; DDBC starts it in 921",
	}
}

type dynastyName struct{ dynasty, name string }

func TestAgainstDDBC(t *testing.T) {
	path := filepath.Join(datasettest.Require(t, "era"), "eras.csv")
	data := readDDBC(t, path)
	ours := era.Default().Eras()

	theirs := make(map[dynastyName][]ddbcEra)
	for _, e := range data {
		k := dynastyName{e.dynasty, e.name}
		theirs[k] = append(theirs[k], e)
	}
	mine := make(map[dynastyName][]era.Era)
	for _, e := range ours {
		k := dynastyName{e.Dynasty, e.Name}
		mine[k] = append(mine[k], e)
	}

	// Every Ming and Qing era of the data is ours, with its first year.
	for _, e := range data {
		if e.dynasty != "明" && e.dynasty != "清" {
			continue
		}
		found := false
		for _, o := range mine[dynastyName{e.dynasty, e.name}] {
			if ddbcStart(o.Start) == e.start {
				found = true
			}
		}
		if !found {
			t.Errorf("DDBC %s %s (%d–%d) missing from our table or with another first year: ours %v",
				e.dynasty, e.name, e.start, e.end, mine[dynastyName{e.dynasty, e.name}])
		}
	}

	// Every era of ours the data has for the same dynasty starts in the
	// same year, or in the year the lists above explain.
	later, earlier := laterInDDBC(), earlierInDDBC()
	shifted := 0
	type coverage struct{ ours, data, matched int }
	per := make(map[string]*coverage)
	at := func(d string) *coverage {
		if per[d] == nil {
			per[d] = &coverage{}
		}
		return per[d]
	}
	for _, e := range data {
		at(e.dynasty).data++
	}
	for _, o := range ours {
		c := at(o.Dynasty)
		c.ours++
		cands, ok := theirs[dynastyName{o.Dynasty, o.Name}]
		if !ok {
			continue
		}
		want := ddbcStart(o.Start)
		k := dynastyName{o.Dynasty, o.Name}
		if _, ok := later[k]; ok {
			want++
			shifted++
		} else if _, ok := earlier[k]; ok {
			want--
			shifted++
		}
		var starts []string
		for _, e := range cands {
			if e.start == want {
				c.matched++
				starts = nil
				break
			}
			starts = append(starts, strconv.Itoa(e.start))
		}
		if starts != nil {
			t.Errorf("%s %s starts in %d (DDBC convention %d), DDBC has %s",
				o.Dynasty, o.Name, o.Start, want, strings.Join(starts, ", "))
		}
	}

	// Eras of the dynasties we cover that we do not have.
	var missing []string
	for _, e := range data {
		if per[e.dynasty].ours > 0 && mine[dynastyName{e.dynasty, e.name}] == nil {
			missing = append(missing, fmt.Sprintf("%s %s %d", e.dynasty, e.name, e.start))
		}
	}
	t.Logf("DDBC eras of our dynasties that our table leaves out (%d): %s", len(missing), strings.Join(missing, "; "))

	dynasties := make([]string, 0, len(per))
	for d := range per {
		dynasties = append(dynasties, d)
	}
	slices.SortFunc(dynasties, func(a, b string) int {
		return cmp.Or(cmp.Compare(per[b].data, per[a].data), cmp.Compare(a, b))
	})
	var sum coverage
	var lines []string
	for _, d := range dynasties {
		c := per[d]
		sum.ours += c.ours
		sum.data += c.data
		sum.matched += c.matched
		lines = append(lines, fmt.Sprintf("%s ours=%d data=%d matched=%d", d, c.ours, c.data, c.matched))
	}
	t.Logf("coverage per dynasty (eras: ours, DDBC after merging successor rows, ours found in DDBC with the same first year):\n%s",
		strings.Join(lines, "\n"))
	t.Logf("total: ours=%d data=%d matched=%d (%d of them one year apart for the reasons listed)",
		sum.ours, sum.data, sum.matched, shifted)
}
