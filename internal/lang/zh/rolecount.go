package zh

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/text"
)

// reRoleNext is a clause that opens (after an adverb) with a verb of
// appointment or punishment, and the character after it: 之 there is an
// object other than the verb's subject.
var reRoleNext = regexp.MustCompile(`^(?:遂|乃|即|竟|复|又|因|寻|亦|并|立|益)?(?:出|谪|贬|调|改|降|擢|迁|授|拜|召|除|罢|逮|下|杖|削|斥|黜|进|徙|起|戍|斩|囚|系|免|逐|夺|械|执|杀|戮|诛)(\p{Han})`)

// ClauseRoleCounts counts, over the texts of biography volumes, what
// agentsTable reads (see there), and writes them as clause_roles.tsv.
// listings are the volumes' line-1 listings of people, whose names, and
// where the text writes them, give the name counts.
func ClauseRoleCounts(texts, listings []string) []byte {
	next := map[rune][2]int{}
	var base [2]int
	for _, t := range texts {
		for _, sent := range strings.FieldsFunc(t, func(r rune) bool { return strings.ContainsRune("。；！？\n", r) }) {
			cls := strings.Split(sent, "，")
			for i := 0; i+1 < len(cls); i++ {
				a := strings.TrimSpace(cls[i])
				m := reRoleNext.FindStringSubmatch(cls[i+1])
				if m == nil || utf8.RuneCountInString(a) < 2 {
					continue
				}
				r := lastRune(a)
				if !text.IsHan(r) {
					continue
				}
				c := next[r]
				c[0]++
				base[0]++
				if m[1] == "之" {
					c[1]++
					base[1]++
				}
				next[r] = c
			}
		}
	}
	follow, name3, first := map[rune]int{}, map[rune]int{}, map[rune]int{}
	followN, name3N := 0, 0
	for i, l := range listings {
		if i >= len(texts) {
			break
		}
		for _, n := range listedNames(l) {
			// A name of two characters, or the given name of three, as the
			// text writes its subject ("居正怒"), and the character after it.
			rs := []rune(n)
			first[rs[0]]++
			two := n
			if len(rs) == 3 {
				two = string(rs[1:])
				k := strings.Count(texts[i], n)
				name3[rs[2]] += k
				name3N += k
			}
			for rest := texts[i]; ; {
				j := strings.Index(rest, two)
				if j < 0 {
					break
				}
				rest = rest[j+len(two):]
				if r, _ := utf8.DecodeRuneInString(rest); text.IsHan(r) {
					follow[r]++
					followN++
				}
			}
		}
	}
	var b strings.Builder
	b.WriteString("# Counts of clause roles over the development volumes, made by TestClauseRolesTable\n" +
		"# (go test ./internal/lang/zh -run TestClauseRolesTable -update-roles); read by the\n" +
		"# Chinese fact reader's agentsTable. Rows, tab-separated:\n" +
		"#   next    C  clauses ending with C that an appointment or punishment verb follows, and those\n" +
		"#              where the verb takes 之 (an object other than its subject)\n" +
		"#   follow  C  times C follows, in the text, a two-character name of the listings or the\n#              given name of a three-character one\n" +
		"#   name3   C  times a three-character name of the listings that ends with C is written\n" +
		"#   first   C  names of the listings that begin with C (a surname), kept from one\n" +
		"# C \"*\" gives the totals. Other characters seen fewer than three times are left out.\n")
	fmt.Fprintf(&b, "next\t*\t%d\t%d\n", base[0], base[1])
	for _, r := range sortedRunes(next, func(r rune) int { return next[r][0] }) {
		fmt.Fprintf(&b, "next\t%c\t%d\t%d\n", r, next[r][0], next[r][1])
	}
	fmt.Fprintf(&b, "follow\t*\t%d\n", followN)
	for _, r := range sortedRunes(follow, func(r rune) int { return follow[r] }) {
		fmt.Fprintf(&b, "follow\t%c\t%d\n", r, follow[r])
	}
	fmt.Fprintf(&b, "name3\t*\t%d\n", name3N)
	for _, r := range sortedRunes(name3, func(r rune) int { return name3[r] }) {
		fmt.Fprintf(&b, "name3\t%c\t%d\n", r, name3[r])
	}
	for _, r := range sortedRunes(first, func(r rune) int { return 3 * first[r] }) {
		fmt.Fprintf(&b, "first\t%c\t%d\n", r, first[r])
	}
	return []byte(b.String())
}

// sortedRunes returns the keys of m counted three times or more, in
// character order.
func sortedRunes[V any](m map[rune]V, count func(rune) int) []rune {
	var out []rune
	for r := range m {
		if count(r) >= 3 {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// listedNames returns the names a volume's listing writes: the main
// names, each standing between two groups or separated by 、 ("徐阶(弟陟子
// 璠等)高拱(郭朴)": 高拱), and those of the groups in parentheses that do
// not open with a kinship character (郭朴, not 弟陟).
func listedNames(l string) []string {
	var out []string
	l = strings.Trim(strings.TrimSpace(l), "○")
	var cur strings.Builder
	depth := 0
	add := func(w string, alone bool) {
		for _, part := range strings.Split(w, "等") {
			for _, n := range strings.Split(part, "、") {
				n = strings.Trim(n, "○ 　")
				k := utf8.RuneCountInString(n)
				if k >= 2 && k <= 3 && (alone || strings.Contains(w, "、")) && nameLike(n) &&
					!strings.ContainsRune("子弟孙兄侄父从族曾妻女", firstRune(n)) {
					out = append(out, n)
				}
			}
		}
	}
	for _, r := range l {
		switch r {
		case '(', '（':
			if depth == 0 {
				add(cur.String(), true)
				cur.Reset()
			}
			depth++
		case ')', '）':
			depth--
			if depth == 0 {
				add(cur.String(), !strings.Contains(cur.String(), "、"))
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	add(cur.String(), false)
	return out
}
