package zh

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/text"
)

// A native place is written with the characters of place names. Where a
// "…人" clause is all that says a sentence introduces a person ("程式，常熟
// 人"), it must read as a place: "世宗即位，复行人" (restored as 行人),
// "北游泰山，古庙前遇病人" (met a sick man) and "三代以降，圣贤乏人" hold
// characters no native place of the corpus holds. The characters are
// counted, with the volumes' own labels, from the openings of the
// development volumes' entries (NativePlaceChars); a place of characters
// they all hold reads as a place (placeWritten).

// PlaceCharsFile holds the counts of NativePlaceChars, counted on the
// liezhuan profile's development volumes; the classical-Chinese rules of
// every Chinese profile read them.
const PlaceCharsFile = "place_chars.tsv"

//go:embed data/place_chars.tsv
var placeCharsData []byte

// NativePlaceChars counts the characters of the native places the
// entries of biography volumes give, and writes them as place_chars.tsv.
// An entry is a line that opens with a name its volume's line 1 writes,
// or with words and a courtesy name (字X), and a comma; its clauses may give a courtesy name, art name or other
// name first (字, 号, 名 …), then "P人" (or "P人也") gives the place P (a
// leading 其先, 先世, 亦 or 本 left out).
func NativePlaceChars(volumes []string) []byte {
	counts := map[rune]int{}
	places := 0
	for _, v := range volumes {
		listing, body, _ := strings.Cut(v, "\n")
		for _, line := range strings.Split(body, "\n") {
			sent, _, _ := strings.Cut(strings.TrimSpace(line), "。")
			parts := strings.Split(sent, "，")
			if len(parts) < 2 {
				continue
			}
			if n := utf8.RuneCountInString(parts[0]); n < 2 || n > 6 || !allHan(parts[0]) ||
				!strings.Contains(listing, parts[0]) && classifyClause(parts[1]).kind != "zi" {
				continue
			}
			for _, cl := range parts[1:] {
				if c := classifyClause(cl); c.kind != "" && c.kind != "place" {
					continue
				}
				p, ok := strings.CutSuffix(strings.TrimSuffix(cl, "也"), "人")
				for _, w := range []string{"其先", "先世", "亦", "本"} {
					p = strings.TrimPrefix(p, w)
				}
				if n := utf8.RuneCountInString(p); ok && n >= 1 && n <= 6 && allHan(p) {
					for _, r := range p {
						counts[r]++
					}
					places++
				}
				break
			}
		}
	}
	rs := make([]rune, 0, len(counts))
	for r := range counts {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i] < rs[j] })
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Characters of the native places the development volumes' entries give (%d places), made by\n", places)
	b.WriteString("# TestPlaceCharsTable (go test ./internal/lang/zh -run TestPlaceCharsTable -update-place-chars);\n")
	b.WriteString("# read by the Chinese fact reader's placeWritten. Rows: a character, tab, how many places hold it.\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "%c\t%d\n", r, counts[r])
	}
	return b.Bytes()
}

func allHan(s string) bool {
	for _, r := range s {
		if !text.IsHan(r) {
			return false
		}
	}
	return s != ""
}

// loadPlaceChars reads the place characters the Chinese rules of p use.
func loadPlaceChars(p *profile.Profile) (map[rune]int, error) {
	if p.Language != profile.LangChinese {
		return nil, nil
	}
	return parsePlaceChars(placeCharsData)
}

// parsePlaceChars reads place_chars.tsv.
func parsePlaceChars(b []byte) (map[rune]int, error) {
	out := map[rune]int{}
	err := tsvRows(b, func(line int, f []string) error {
		var k int
		var err error
		if len(f) == 2 {
			k, err = strconv.Atoi(f[1])
		}
		if r, size := utf8.DecodeRuneInString(f[0]); len(f) != 2 || err != nil || size != len(f[0]) || k <= 0 {
			return fmt.Errorf("%s line %d: want a character and a count", PlaceCharsFile, line)
		} else {
			out[r] = k
		}
		return nil
	})
	return out, err
}

// tsvRows calls row with the tab-separated fields of each line of b that
// is neither blank nor a comment (#), and its line number.
func tsvRows(b []byte, row func(line int, fields []string) error) error {
	sc := bufio.NewScanner(bytes.NewReader(b))
	line := 0
	for sc.Scan() {
		line++
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if err := row(line, strings.Split(l, "\t")); err != nil {
			return err
		}
	}
	return sc.Err()
}

// placeWritten reports whether every character of place is one a native
// place of the corpus holds. Without the table every place reads as one.
func (hz *han) placeWritten(place string) bool {
	if hz.placeChars == nil {
		return true
	}
	for _, r := range place {
		if hz.placeChars[r] == 0 {
			return false
		}
	}
	return place != ""
}
