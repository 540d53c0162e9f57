package compose

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/text"
)

// SubjectNames are the names a sentence may call the subject by: the
// name, the aliases, and the given name (without a one- or two-character
// surname), longest first; names of one character are left out.
func SubjectNames(name string, aliases []string) []string {
	var out []string
	add := func(s string) {
		if utf8.RuneCountInString(s) >= 2 && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	add(name)
	for _, a := range aliases {
		add(a)
	}
	if rs := []rune(name); len(rs) >= 3 && text.IsHan(rs[0]) {
		add(string(rs[1:]))
		if len(rs) >= 4 {
			add(string(rs[2:]))
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return out
}

// OpensWithName reports whether s begins with one of the subject's names,
// or with the characters of his name in order among its first few (秦愍王樉
// for 秦王樉: a prince's entry writes his posthumous title into his name).
func OpensWithName(s, name string, names []string) bool {
	for _, n := range names {
		if strings.HasPrefix(s, n) {
			return true
		}
	}
	nm := []rune(name)
	if len(nm) < 2 {
		return false
	}
	rs := []rune(s)
	rs = rs[:min(len(rs), len(nm)+3)]
	i := 0
	for _, r := range rs {
		if i < len(nm) && r == nm[i] {
			i++
		}
	}
	return i == len(nm) && len(rs) > 0 && rs[0] == nm[0]
}

// reSubEntry is the opening of a relative's or an attached person's
// paragraph inside an entry: an optional lead word, an optional kinship
// word, a name, then a courtesy name or a native place ("子琮，字季玉",
// "元善，全椒人", "同时朱国祯，字文宁").
var reSubEntry = regexp.MustCompile(`^(?:` + alternation("subentry_leads") + `)?(?:` +
	alternation("subentry_kin") + `)?(\p{Han}{1,4}?)(?:者)?，(?:字|号|初名|\p{Han}{1,8}人[。，])`)

// SubEntry reports whether a sentence opens someone else's paragraph: it
// opens as a sub-entry does, with a name that is none of the subject's.
func SubEntry(s, name string, names []string) bool {
	m := reSubEntry.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	return !slices.Contains(names, m[1]) && m[1] != name
}

// NamedIn reports which sentences of a text name the subject: by his
// name, or by an alias or his given name once the text has named him (a
// classical text writes 申时行 once, then 时行; a courtesy name or a given
// name the text has not introduced may be anyone's, or no name at all:
// 延之入 is "invited him in").
func NamedIn(texts []string, name string, names []string) []bool {
	out := make([]bool, len(texts))
	introduced := false
	for i, s := range texts {
		if name != "" && strings.Contains(s, name) {
			introduced = true
		}
		out[i] = introduced && Mentions(s, names)
	}
	return out
}
