package zh

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/factkit"
)

// Go's regexp engine has no literal to skip ahead to in most of the
// classical-Chinese patterns, and a pattern that holds the era table pays
// for hundreds of alternatives at every position where a match may begin.
// What a pattern's syntax says of its matches lets the rules skip the
// engine where it cannot match: the words one of which every match holds,
// the runes a match begins with, how long a match can be and the runes it
// is written with. Each is read from the parsed pattern, so it holds for
// whatever the pattern is made of.

// filteredRE is a regexp that does not run on a text it cannot match: one
// that holds none of the words every match holds, or, for a pattern
// anchored at the start of the text, one that begins with a rune no match
// begins with or whose words are not in the stretch at its start a match
// can span. Its Match and Find methods answer as the regexp's.
type filteredRE struct {
	*regexp.Regexp
	// need are words one of which every match holds (nil: none known);
	// needRunes holds them when each is a single rune.
	need      []string
	needRunes *factkit.RuneSet
	// first are the runes a match begins with (nil: too many, or a
	// match may be empty); anchored says every match begins at the start
	// of the text (^, not in multi-line mode).
	first    *factkit.RuneSet
	anchored bool
	// maxLen is the most bytes a match spans (-1: no bound) and alphabet
	// the runes it is written with (nil: too many to list).
	maxLen   int
	alphabet *factkit.RuneSet
}

func mustFiltered(expr string) *filteredRE { return filtered(regexp.MustCompile(expr)) }

// filtered returns re with what its pattern says of its matches; nil for
// a nil regexp.
func filtered(re *regexp.Regexp) *filteredRE {
	if re == nil {
		return nil
	}
	f := &filteredRE{Regexp: re}
	p, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return f
	}
	if need, ok := needsOf(p); ok {
		// A word that holds another of them adds nothing.
		single := true
		for i, w := range need {
			if !slices.ContainsFunc(need[:i], func(v string) bool { return strings.Contains(w, v) }) &&
				!slices.ContainsFunc(need[i+1:], func(v string) bool { return v != w && strings.Contains(w, v) }) {
				f.need = append(f.need, w)
				single = single && utf8.RuneCountInString(w) == 1
			}
		}
		if single {
			f.needRunes = factkit.NewRuneSet(f.need...)
		}
	}
	if runes, nullable, ok := firstRunesOf(p); ok && !nullable {
		f.first = factkit.NewRuneSet(string(runes))
	}
	f.anchored = p.Op == syntax.OpConcat && p.Sub[0].Op == syntax.OpBeginText
	f.maxLen = -1
	if n, ok := maxLenOf(p); ok {
		f.maxLen = n
	}
	var chars []rune
	if runesOf(p, &chars) {
		f.alphabet = factkit.NewRuneSet(string(chars))
	}
	return f
}

// reach is the length of the stretch at the start of s that a match
// beginning there can span: at most maxLen bytes, of the alphabet.
func (f *filteredRE) reach(s string) int {
	if f.maxLen >= 0 && f.maxLen < len(s) {
		s = s[:f.maxLen]
	}
	if f.alphabet == nil {
		return len(s)
	}
	for i, r := range s {
		if !f.alphabet.Has(r) {
			return i
		}
	}
	return len(s)
}

// rejects reports whether s has no match.
func (f *filteredRE) rejects(s string) bool {
	if f.anchored {
		if f.first != nil && !f.first.Has(firstRune(s)) {
			return true
		}
		s = s[:f.reach(s)]
	}
	switch {
	case f.needRunes != nil:
		return !f.needRunes.In(s)
	case f.need != nil:
		for _, w := range f.need {
			if strings.Contains(s, w) {
				return false
			}
		}
		return true
	}
	return false
}

// matchesAll reports whether the leftmost match in s is all of s.
func (f *filteredRE) matchesAll(s string) bool {
	if f.reach(s) < len(s) || f.rejects(s) {
		return false
	}
	loc := f.Regexp.FindStringIndex(s)
	return loc != nil && loc[0] == 0 && loc[1] == len(s)
}

func (f *filteredRE) MatchString(s string) bool {
	return !f.rejects(s) && f.Regexp.MatchString(s)
}

func (f *filteredRE) FindStringIndex(s string) []int {
	if f.rejects(s) {
		return nil
	}
	return f.Regexp.FindStringIndex(s)
}

func (f *filteredRE) FindStringSubmatch(s string) []string {
	if f.rejects(s) {
		return nil
	}
	return f.Regexp.FindStringSubmatch(s)
}

func (f *filteredRE) FindStringSubmatchIndex(s string) []int {
	if f.rejects(s) {
		return nil
	}
	return f.Regexp.FindStringSubmatchIndex(s)
}

func (f *filteredRE) FindAllStringSubmatch(s string, n int) [][]string {
	if f.rejects(s) {
		return nil
	}
	return f.Regexp.FindAllStringSubmatch(s, n)
}

// wordScan finds the matches of a pattern every match of which holds one
// of its words (need) and begins at most back bytes (-1: any number)
// before the first word it holds, those bytes being runes of backRunes
// (nil: any). Where the regexp engine tries every position of a text, it
// tries the pattern anchored at the start of the text (at gives it for a
// text) only at those positions, near the words. Its
// FindAllStringSubmatchIndex answers as the pattern's regexp does, for a
// pattern with no empty-width assertion and no empty match.
type wordScan struct {
	at        func(s string) *filteredRE
	need      []string
	needRunes *factkit.RuneSet
	back      int
	backRunes *factkit.RuneSet
}

// newWordScan returns the scan of the pattern all, anchored at the start
// of the text, running at(s) on a text s: all itself or a pattern that
// matches s as all does.
func newWordScan(all *filteredRE, at func(s string) *filteredRE, back int, backRunes *factkit.RuneSet) *wordScan {
	return &wordScan{at: at, need: all.need, needRunes: all.needRunes, back: back, backRunes: backRunes}
}

// word returns the offset of the first word in s at or after pos, or -1;
// pos itself when no words are known.
func (w *wordScan) word(s string, pos int) int {
	switch {
	case w.needRunes != nil:
		if i := w.needRunes.Index(s[pos:]); i >= 0 {
			return pos + i
		}
		return -1
	case w.need != nil:
		first := -1
		for _, word := range w.need {
			end := len(s)
			if first >= 0 {
				// Only a word that begins before the first found.
				end = min(end, first+len(word)-1)
			}
			if i := strings.Index(s[pos:end], word); i >= 0 {
				first = pos + i
			}
		}
		return first
	}
	return pos
}

// FindAllStringSubmatchIndex is the pattern's regexp's: the successive
// leftmost matches, none overlapping, n of them at most (n < 0: all).
func (w *wordScan) FindAllStringSubmatchIndex(s string, n int) [][]int {
	var out [][]int
	for pos := 0; pos < len(s) && (n < 0 || len(out) < n); {
		p := w.word(s, pos)
		if p < 0 {
			break
		}
		// The leftmost match begins no later than the word at p if it holds
		// it or a later one, and no earlier than back bytes before it.
		q := p
		for q > pos {
			r, size := utf8.DecodeLastRuneInString(s[pos:q])
			if w.back >= 0 && p-(q-size) > w.back || w.backRunes != nil && !w.backRunes.Has(r) {
				break
			}
			q -= size
		}
		var m []int
		for {
			re := w.at(s[q:])
			end := len(s)
			if re.maxLen >= 0 {
				end = min(end, q+re.maxLen)
			}
			if m = re.FindStringSubmatchIndex(s[q:end]); m != nil || q >= p {
				break
			}
			_, size := utf8.DecodeRuneInString(s[q:])
			q += size
		}
		if m == nil {
			// No match begins at or before p: the next one holds a later
			// word.
			_, size := utf8.DecodeRuneInString(s[p:])
			pos = p + size
			continue
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += q
			}
		}
		out = append(out, m)
		pos = m[1]
	}
	return out
}

// maxClassRunes bounds the character classes the readings below list.
const maxClassRunes = 1 << 12

// maxNeedClass bounds the classes needsOf takes for words: one of a
// larger class is too common a word to look for.
const maxNeedClass = 16

// needsOf returns words one of which every match of re holds; ok is false
// when the pattern gives none (a match may be empty or be any text).
func needsOf(re *syntax.Regexp) (words []string, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 || len(re.Rune) == 0 || slices.ContainsFunc(re.Rune, notText) {
			return nil, false
		}
		return []string{string(re.Rune)}, true
	case syntax.OpCharClass:
		n := 0
		for i := 0; i+1 < len(re.Rune); i += 2 {
			n += int(re.Rune[i+1]-re.Rune[i]) + 1
		}
		if n == 0 || n > maxNeedClass {
			return nil, false
		}
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if notText(r) {
					return nil, false
				}
				words = append(words, string(r))
			}
		}
		return words, true
	case syntax.OpCapture, syntax.OpPlus:
		return needsOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min == 0 {
			return nil, false
		}
		return needsOf(re.Sub[0])
	case syntax.OpConcat:
		// Any part's words will do: the fewest, then the longest.
		for _, sub := range re.Sub {
			w, found := needsOf(sub)
			if found && (!ok || len(w) < len(words) || len(w) == len(words) && shortest(w) > shortest(words)) {
				words, ok = w, true
			}
		}
		return words, ok
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			w, found := needsOf(sub)
			if !found {
				return nil, false
			}
			words = append(words, w...)
		}
		return words, true
	}
	return nil, false
}

// notText reports a rune a pattern may hold that no text holds as it is
// written: utf8.RuneError, which the engine reads an invalid byte as, and
// runes that have no encoding.
func notText(r rune) bool { return r == utf8.RuneError || !utf8.ValidRune(r) }

// shortest is the length of the shortest of words.
func shortest(words []string) int {
	n := -1
	for _, w := range words {
		if n < 0 || len(w) < n {
			n = len(w)
		}
	}
	return n
}

// firstRunesOf returns the runes a match of re can begin with, and
// whether it can be empty; ok is false when they are too many to list.
func firstRunesOf(re *syntax.Regexp) (runes []rune, nullable, ok bool) {
	switch re.Op {
	case syntax.OpNoMatch:
		return nil, false, true
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return nil, true, true
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil, false, false
		}
		if len(re.Rune) == 0 {
			return nil, true, true
		}
		return re.Rune[:1], false, true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if hi-lo >= maxClassRunes {
				return nil, false, false
			}
			for r := lo; r <= hi; r++ {
				runes = append(runes, r)
			}
		}
		return runes, false, true
	case syntax.OpCapture, syntax.OpPlus:
		return firstRunesOf(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		runes, _, ok := firstRunesOf(re.Sub[0])
		return runes, true, ok
	case syntax.OpRepeat:
		runes, nullable, ok := firstRunesOf(re.Sub[0])
		return runes, nullable || re.Min == 0, ok
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			rs, nullable, ok := firstRunesOf(sub)
			if !ok {
				return nil, false, false
			}
			runes = append(runes, rs...)
			if !nullable {
				return runes, false, true
			}
		}
		return runes, true, true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			rs, n, ok := firstRunesOf(sub)
			if !ok {
				return nil, false, false
			}
			runes = append(runes, rs...)
			nullable = nullable || n
		}
		return runes, nullable, true
	}
	return nil, false, false
}

// maxLenOf returns the most bytes a match of re can span; ok is false
// when there is no bound: a repetition without a maximum, case folding.
func maxLenOf(re *syntax.Regexp) (n int, ok bool) {
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0, true
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return 0, false
		}
		for _, r := range re.Rune {
			n += len(string(r))
		}
		return n, true
	case syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return utf8.UTFMax, true
	case syntax.OpCapture, syntax.OpQuest:
		return maxLenOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Max < 0 {
			return 0, false
		}
		n, ok := maxLenOf(re.Sub[0])
		return n * re.Max, ok
	case syntax.OpConcat, syntax.OpAlternate:
		for _, sub := range re.Sub {
			m, ok := maxLenOf(sub)
			if !ok {
				return 0, false
			}
			if re.Op == syntax.OpConcat {
				n += m
			} else {
				n = max(n, m)
			}
		}
		return n, true
	}
	return 0, false
}

// runesOf adds to chars the runes a match of re can hold; ok is false when
// they are too many to list.
func runesOf(re *syntax.Regexp, chars *[]rune) (ok bool) {
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return false
		}
		*chars = append(*chars, re.Rune...)
		return true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if hi-lo >= maxClassRunes {
				return false
			}
			for r := lo; r <= hi; r++ {
				*chars = append(*chars, r)
			}
		}
		return true
	case syntax.OpCapture, syntax.OpQuest, syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		return runesOf(re.Sub[0], chars)
	case syntax.OpConcat, syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !runesOf(sub, chars) {
				return false
			}
		}
		return true
	}
	return false
}
