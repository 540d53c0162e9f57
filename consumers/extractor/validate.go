package extractor

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/text"

	"github.com/annalist-dev/annalist/internal/ports/regexmem"

	"github.com/annalist-dev/annalist/schemas"
)

// ErrRejected marks a regex or a model answer that failed validation.
var ErrRejected = errors.New("rejected")

func reject(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRejected, fmt.Sprintf(format, args...))
}

// Limits of the validation rules (see CheckRegex).
const (
	maxSourceBytes   = 300
	maxGroups        = 8
	maxMatchRunes    = 120
	maxSingleMatches = 3
	maxMultiMatches  = 20
)

// roleNames are the qualifier roles a capture group may take per relation,
// besides "tail".
var roleNames = map[string][]string{
	schemas.RelCourtesyName: nil,
	schemas.RelArtName:      nil,
	schemas.RelAlias:        {"kind"},
	schemas.RelNativePlace:  nil,
	schemas.RelJinshi:       {"era", "year", "rank"},
	schemas.RelOffice:       {"verb", "year"},
	schemas.RelDeath:        {"time", "age", "place"},
	schemas.RelDeathAge:     {"time", "place"},
	schemas.RelBirth:        {"time", "place"},
	schemas.RelRelative:     {"kin"},
}

// RoleNames returns the qualifier roles a pattern for relation may name,
// and whether the relation can be extracted by a pattern at all.
func RoleNames(relation string) ([]string, bool) {
	r, ok := roleNames[relation]
	return r, ok
}

// tailBound is the longest tail a relation may have, counted in Han
// characters plus Latin words: a courtesy name is one to three characters,
// an office title a phrase, never a clause.
var tailBound = map[string]int{
	schemas.RelCourtesyName: 4,
	schemas.RelArtName:      6,
	schemas.RelAlias:        6,
	schemas.RelNativePlace:  10,
	schemas.RelJinshi:       10,
	schemas.RelOffice:       16,
	schemas.RelDeath:        12,
	schemas.RelDeathAge:     6,
	schemas.RelBirth:        8,
	schemas.RelRelative:     6,
}

// singleValued relations are stated once per person: a pattern matching
// them many times in one chunk matches something else.
var singleValued = map[string]bool{
	schemas.RelCourtesyName: true, schemas.RelArtName: true, schemas.RelNativePlace: true,
	schemas.RelJinshi: true, schemas.RelBirth: true, schemas.RelDeath: true, schemas.RelDeathAge: true,
}

// controls are unrelated sentences, classical Chinese and English, that
// state none of the relations but contain their tempting words (文字, 号令,
// 士卒, 吴人, "appointed day"). A specific pattern matches none of them.
var controls = []string{
	"帝览其疏，叹曰：此忠臣之言也。命有司议行之。",
	"是岁大旱，民多流亡，有司请发仓廪以赈之。",
	"城中兵少，贼环而攻之，守者昼夜不得息。",
	"其文字简质，不事雕琢，学者多传诵之。",
	"号令严明，士卒用命，所向皆克。",
	"吴人多好学，乡里以诗书相尚。",
	"进言者众，帝皆不省，朝论哗然。",
	"三年，河决，漂没田庐无算，民卒岁无食。",
	"诸生数百人从之游，讲论不辍。",
	"岁饥，出粟赈贫者，全活甚众，乡人德之。",
	"其地险远，舟车不通，商旅罕至。",
	"会大雪，道路阻绝，使者旬日乃达。",
	"The river flooded the lower town in spring, and the mills stood idle for a month.",
	"Trade along the coast grew steadily as new harbours were dredged.",
	"Several letters from that period survive in the county archive.",
	"The committee met twice a year on the appointed day to review the accounts.",
	"A storm destroyed the western pier, which was rebuilt with granite in the summer.",
	"Local farmers sold grain at the weekly market near the bridge.",
	"The chart was engraved on copper and printed in three editions.",
	"Visitors admired the gardens, the library and the long gallery.",
}

// RegexMatch is one validated match of a pattern: byte offsets into the
// text, the tail and the qualifiers its groups captured.
type RegexMatch struct {
	Start, End         int
	TailStart, TailEnd int
	Tail               string
	Qualifiers         map[string]string
}

// CheckRegex validates pattern p against the chunk text it was proposed
// for and returns its matches. The rules, each a reason to reject:
//
//  1. the source is empty, longer than 300 bytes or not UTF-8;
//  2. it does not compile as Go RE2 (backreferences, lookahead and
//     lookbehind, possessive and atomic groups are not RE2);
//  3. the groups are wrong: no "tail" role, an index outside the regex's
//     1–8 capture groups, two roles on one group, a role the relation does
//     not have (RoleNames);
//  4. it matches the empty string;
//  5. it has no anchor: no letter or Han character outside the tail's
//     group (a fact is introduced by words such as 字, 人, 进士, "born";
//     the anchor may be captured as a qualifier, like an office's verb);
//  6. it repeats without bound any character (.*, .+) or a class that
//     crosses sentence or line ends ([^，]+, \S+ over Chinese): such a
//     pattern can swallow a paragraph;
//  7. it does not match the text;
//  8. a match leaves a role's group unset or blank;
//  9. a tail is longer than the relation allows (tailBound);
//  10. a match is longer than 120 characters, or the matches together
//     cover more than half of a text longer than 240 characters;
//  11. it matches more than 3 times (20 for offices, relatives, aliases);
//  12. it matches any of the unrelated control sentences.
func CheckRegex(p regexmem.Pattern, text string) ([]RegexMatch, error) {
	re, err := compileChecked(p)
	if err != nil {
		return nil, err
	}
	return matchChecked(re, p, text)
}

// compileChecked applies the rules that depend on the pattern alone (1–6
// and 12), so a pattern can be compiled and checked once and tried on many
// texts.
func compileChecked(p regexmem.Pattern) (*regexp.Regexp, error) {
	if _, ok := roleNames[p.Relation]; !ok {
		return nil, reject("relation %q cannot be extracted by a regex", p.Relation)
	}
	if p.Source == "" || len(p.Source) > maxSourceBytes || !utf8.ValidString(p.Source) {
		return nil, reject("regex must be 1–%d bytes of UTF-8", maxSourceBytes)
	}
	re, err := regexp.Compile(p.Source)
	if err != nil {
		return nil, reject("regex does not compile as Go RE2 (no lookaround, no backreferences): %v", err)
	}
	n := re.NumSubexp()
	if n < 1 || n > maxGroups {
		return nil, reject("regex has %d capture groups, want 1–%d", n, maxGroups)
	}
	if _, ok := p.Groups["tail"]; !ok {
		return nil, reject(`groups has no "tail" role`)
	}
	allowed := map[string]bool{"tail": true}
	for _, r := range roleNames[p.Relation] {
		allowed[r] = true
	}
	used := map[int]string{}
	for role, g := range p.Groups {
		if !allowed[role] {
			return nil, reject("role %q is not a qualifier of %s", role, p.Relation)
		}
		if g < 1 || g > n {
			return nil, reject("role %q names group %d, the regex has %d", role, g, n)
		}
		if other, dup := used[g]; dup {
			return nil, reject("group %d has two roles, %q and %q", g, other, role)
		}
		used[g] = role
	}
	if re.MatchString("") {
		return nil, reject("regex matches the empty string")
	}
	tree, err := syntax.Parse(p.Source, syntax.Perl)
	if err != nil {
		return nil, reject("regex does not parse: %v", err)
	}
	if !anchored(tree, p.Groups["tail"], false) {
		return nil, reject("regex has no anchor word outside the tail's capture group")
	}
	if what := unbounded(tree); what != "" {
		return nil, reject("regex repeats %s without bound", what)
	}
	hits := 0
	for _, c := range controls {
		if re.MatchString(c) {
			hits++
		}
	}
	if hits > 0 {
		return nil, reject("regex matches %d of %d unrelated control sentences", hits, len(controls))
	}
	return re, nil
}

func matchChecked(re *regexp.Regexp, p regexmem.Pattern, text string) ([]RegexMatch, error) {
	locs := re.FindAllStringSubmatchIndex(text, -1)
	if len(locs) == 0 {
		return nil, reject("regex does not match the chunk")
	}
	limit := maxMultiMatches
	if singleValued[p.Relation] {
		limit = maxSingleMatches
	}
	if len(locs) > limit {
		return nil, reject("regex matches %d times, at most %d expected for %s", len(locs), limit, p.Relation)
	}
	total, covered := utf8.RuneCountInString(text), 0
	out := make([]RegexMatch, 0, len(locs))
	for _, m := range locs {
		runes := utf8.RuneCountInString(text[m[0]:m[1]])
		if runes > maxMatchRunes {
			return nil, reject("a match spans %d characters, at most %d", runes, maxMatchRunes)
		}
		covered += runes
		rm := RegexMatch{Start: m[0], End: m[1]}
		for role, g := range p.Groups {
			s, e := m[2*g], m[2*g+1]
			if s < 0 || strings.TrimSpace(text[s:e]) == "" {
				return nil, reject("group %d (%s) is empty in match %q", g, role, text[m[0]:m[1]])
			}
			if role == "tail" {
				rm.TailStart, rm.TailEnd, rm.Tail = s, e, text[s:e]
				continue
			}
			if rm.Qualifiers == nil {
				rm.Qualifiers = map[string]string{}
			}
			rm.Qualifiers[role] = text[s:e]
		}
		if l := textUnits(rm.Tail); l > tailBound[p.Relation] {
			return nil, reject("tail %q is %d long, at most %d for %s", rm.Tail, l, tailBound[p.Relation], p.Relation)
		}
		out = append(out, rm)
	}
	if total > 2*maxMatchRunes && covered*2 > total {
		return nil, reject("matches cover %d of %d characters", covered, total)
	}
	return out, nil
}

// anchored reports whether the regex always matches a letter or Han
// literal outside capture group tail.
func anchored(re *syntax.Regexp, tail int, inTail bool) bool {
	switch re.Op {
	case syntax.OpLiteral:
		if !inTail {
			for _, r := range re.Rune {
				if unicode.IsLetter(r) {
					return true
				}
			}
		}
		return false
	case syntax.OpCharClass:
		// The parser turns an alternation of single characters (授|擢|迁)
		// into a class: a class of a few letters anchors like a literal.
		return !inTail && smallLetterClass(re.Rune)
	case syntax.OpCapture:
		inTail = inTail || re.Cap == tail
	case syntax.OpStar, syntax.OpQuest:
		// An optional literal anchors nothing.
		return false
	case syntax.OpRepeat:
		if re.Min == 0 {
			return false
		}
	case syntax.OpAlternate:
		// Every branch must be anchored.
		for _, s := range re.Sub {
			if !anchored(s, tail, inTail) {
				return false
			}
		}
		return len(re.Sub) > 0
	}
	for _, s := range re.Sub {
		if anchored(s, tail, inTail) {
			return true
		}
	}
	return false
}

// unbounded names a repetition without upper bound of any character or of
// a class that contains a sentence or line end, or returns "".
func unbounded(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		if re.Op != syntax.OpRepeat || re.Max == -1 {
			if w := wide(re.Sub[0]); w != "" {
				return w
			}
		}
	}
	for _, s := range re.Sub {
		if w := unbounded(s); w != "" {
			return w
		}
	}
	return ""
}

// wide describes a sub-pattern that can run across sentences, or "".
func wide(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return "any character"
	case syntax.OpCharClass:
		for _, r := range []rune{'。', '\n', '.', '！', '？'} {
			if inClass(re.Rune, r) {
				return fmt.Sprintf("a class containing %q", r)
			}
		}
	case syntax.OpCapture, syntax.OpConcat, syntax.OpAlternate:
		for _, s := range re.Sub {
			if w := wide(s); w != "" {
				return w
			}
		}
	}
	return ""
}

func smallLetterClass(ranges []rune) bool {
	n := 0
	for i := 0; i+1 < len(ranges); i += 2 {
		n += int(ranges[i+1]-ranges[i]) + 1
		if n > 16 {
			return false
		}
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			if !unicode.IsLetter(r) {
				return false
			}
		}
	}
	return n > 0
}

func inClass(ranges []rune, r rune) bool {
	for i := 0; i+1 < len(ranges); i += 2 {
		if r >= ranges[i] && r <= ranges[i+1] {
			return true
		}
	}
	return false
}

// textUnits measures a tail: Han characters plus Latin words.
func textUnits(s string) int {
	n, inWord := 0, false
	for _, r := range s {
		switch {
		case text.IsHan(r):
			n++
			inWord = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !inWord {
				n++
			}
			inWord = true
		default:
			inWord = false
		}
	}
	return n
}
