package segment

import (
	"slices"

	"github.com/annalist-dev/annalist/internal/lang/text"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/zh/names"
)

// Whether an opening's words name a person is weighed by the profile's
// name judge (internal/lang/zh/names): the characters of the name, the words
// after it, whether the volume writes it again, whether it begins with a
// name the volume presents. A listed name needs no judge: the listing
// says it is one. Before the judge reads a name, the words written before
// it that are not the name come off: an introducing word ("同邑刘俨"), an
// office ("郎中胡琏"), and a kinship word with, perhaps, whose relative the
// person is ("子琮", "养子德济", "晔从弟旦", "思诚孙清"): a kinship word is
// never part of a name.

// kinWordsOf returns the kinship words a relative's name may be written
// after, longest first: the profile's, those its two-character words show
// how to make, a modifier (the first character of a two-character word
// that ends with a relation: 从 of 从子, 世 of 世子, 养 of 养子) before a
// relation the profile ends kinship clauses with (子, 父 …), so 世父 (an
// uncle) is one as 世子 is, and those relations alone (女 of "王氏女娥").
// A made word takes the surname rule of its relation's own word (子: the
// same surname; 婿: another; a relation without a word of its own:
// another).
func kinWordsOf(p *profile.Profile) []profile.KinWord {
	var out []profile.KinWord
	have := map[string]bool{}
	same := map[rune]bool{}
	for _, w := range p.Kin.Words {
		out = append(out, w)
		have[w.Word] = true
		if rs := []rune(w.Word); len(rs) == 1 {
			same[rs[0]] = w.SameSurname
		}
	}
	var mods []rune
	for _, w := range p.Kin.Words {
		rs := []rune(w.Word)
		if len(rs) == 2 && slices.Contains(p.Entry.RelationEnds, string(rs[1])) && !slices.Contains(mods, rs[0]) {
			mods = append(mods, rs[0])
		}
	}
	for _, r := range p.Entry.RelationEnds {
		rr := []rune(r)
		if len(rr) != 1 {
			continue
		}
		for _, m := range mods {
			if w := string(m) + r; !have[w] {
				out = append(out, profile.KinWord{Word: w, SameSurname: same[rr[0]]})
				have[w] = true
			}
		}
		if !have[r] {
			out = append(out, profile.KinWord{Word: r, SameSurname: same[rr[0]]})
			have[r] = true
		}
	}
	slices.SortStableFunc(out, func(a, b profile.KinWord) int {
		return len([]rune(b.Word)) - len([]rune(a.Word))
	})
	return out
}

// reading is a name as an opening writes it, read into its parts.
type reading struct {
	// name is the person's own name as written, at off in the written
	// form.
	name []rune
	off  int
	// kin is the kinship word written before the name, nil if none;
	// owner the name of the person whose relative this is, as written
	// before the kinship word ("晔" in "晔从弟旦"), nil when none is
	// written (the entry's person: "子琮").
	kin   *profile.KinWord
	owner []rune
	// title says the name is read after an office, a prince's fief and
	// title, or before 氏 after a woman's title: the written form is how
	// the person is named, the name how the judge reads it.
	title bool
}

// read reads written: an introducing word off its start, then a kinship
// word at the start (one character only when it is one of the profile's
// prefix characters: 孙 and 叔 are surnames too), or after an owner
// known(owner) accepts and before more than 氏 (a woman's family name:
// "孙氏"); or an introducing word of two characters after such an owner
// ("卓同邑罗性"); else an office title or a prince's fief and
// title, and of a woman written with her family name and 氏, the words
// before it. Without any, the name is written whole.
func (er *Rules) read(written []rune, known func([]rune) bool) reading {
	r := reading{name: written}
	if w := er.introduced(written); w != nil {
		r.name, r.off = written[len(w):], len(w)
	}
	n := r.name
	for i := range er.kinWords {
		kw, k := &er.kinWords[i], er.kinWordRunes[i]
		if len(n) > len(k) && hasPrefixRunes(n, k) && (len(k) >= 2 || slices.Contains(er.prefixChars, k[0])) {
			r.name, r.off, r.kin = n[len(k):], r.off+len(k), kw
			return r
		}
	}
	for q := 1; q+1 < len(n); q++ {
		for i := range er.kinWords {
			kw, k := &er.kinWords[i], er.kinWordRunes[i]
			if q+len(k) < len(n) && hasPrefixRunes(n[q:], k) && !slices.Equal(n[q+len(k):], []rune("氏")) && known(n[:q]) {
				r.owner, r.kin = n[:q], kw
				r.name, r.off = n[q+len(k):], r.off+q+len(k)
				return r
			}
		}
		for _, w := range er.introducerRunes {
			// "卓同邑罗性": of 卓's town, 罗性.
			if len(w) >= 2 && q+len(w)+2 <= len(n) && hasPrefixRunes(n[q:], w) && known(n[:q]) {
				r.name, r.off = n[q+len(w):], r.off+q+len(w)
				return r
			}
		}
	}
	if t := er.titled(n); t != nil {
		r.name, r.off, r.title = t, r.off+len(n)-len(t), true
	} else if i := slices.Index(n, '王'); i >= 1 && len(n)-i-1 >= 1 && len(n)-i-1 <= 3 {
		// A prince after his fief and title ("永王慈召", "武功郡王阿泰").
		r.name, r.off, r.title = n[i+1:], r.off+i+1, true
	}
	if n := r.name; len(n) > 2 && n[len(n)-1] == '氏' {
		// A woman written by a title or a place, then her family name and
		// 氏 ("宁妃郭氏", "颍州卢氏"): the name is the family's.
		k := 2
		if len(n) > 3 && er.compound(n[len(n)-3:]) {
			k = 3
		}
		r.name, r.off, r.title = n[len(n)-k:], r.off+len(n)-k, true
	}
	return r
}

func hasPrefixRunes(s, p []rune) bool { return len(s) >= len(p) && slices.Equal(s[:len(p)], p) }

// nameDoc returns the document read for name evidence with er's words.
func (d *Doc) nameDoc(er *Rules) *names.Doc {
	if d.nd == nil || d.ndOf != er {
		d.nd, d.ndOf = names.NewDoc(d.rs, er.nameWords), er
	}
	return d.nd
}

// named reports whether the evidence says the opening o names a person:
// the name it writes, read (read), is one by the profile's judge, or it
// writes a kinship word after an owner the volume presents (or, for an
// owner of two characters or more, that the characters say is a name).
// Without a judge every opening is taken as its words show.
func (er *Rules) named(d *Doc, o opening) bool {
	if er.judge == nil {
		return true
	}
	nd := d.nameDoc(er)
	r := er.read(o.name, func(owner []rune) bool { return er.knownOwner(nd, owner) })
	switch {
	case len(r.name) == 0:
		return false
	case r.owner != nil:
		// "思诚孙清", "晔从弟旦": the words name a relative.
		return true
	}
	return er.judge.Named(nd, r.name, o.pos+r.off, o.pos+len(o.name))
}

// knownOwner reports whether owner, written before a kinship word, names
// a person: the volume presents it, whole or as a given name, or it has
// the length of a name of two or three characters and the character model
// takes it for a name.
func (er *Rules) knownOwner(nd *names.Doc, owner []rune) bool {
	return nd.Presents(owner) || len(owner) >= 2 && len(owner) <= 3 && er.judge.Chars().Score(owner) > 0
}

// ownerSurname is the surname of the person a relative's owner names:
// the entry's person's when the owner is the entry's name or given name,
// else that of the nearest full name the text before writes ending with
// the owner (writtenInFull). Nil when none is found.
func (er *Rules) ownerSurname(owner, entry, before []rune) []rune {
	sur := er.surnameOf(entry)
	if len(sur) > 0 && (slices.Equal(entry, owner) || slices.Equal(entry[len(sur):], owner)) {
		return sur
	}
	if full := er.writtenInFull(owner, before, nil); full != nil {
		return full[:len(full)-len(owner)]
	}
	return nil
}

// writtenInFull returns the nearest full name the text before writes for
// a given name: the given name after a surname, a compound surname of
// the profile or a character the corpus writes as a surname (the judge's
// Surname), such that the character model scores the full name as a name;
// of several, the one the text writes most often, then the nearest
// ("佯许元化降" once, "巡抚孙元化" twice: 孙元化).
// A name written alone right after an office is a full name ("郎中叶
// 旺"). A given name of two characters that may itself be a full name
// (its first character is a surname too: 叶旺) is completed only after an
// office ("御史李文渊"), or when the text after, the person's own, calls
// the person by it whole rather than by its second character
// (givenAlone), as a biography calls its person by the given name. Nil
// when the text writes none.
func (er *Rules) writtenInFull(given, before, after []rune) []rune {
	if er.judge == nil || len(given) == 0 || len(given) > 2 {
		return nil
	}
	ambiguous := len(given) == 2 && er.judge.Surname(given[0]) > 0 && !givenAlone(after, given)
	chars := er.judge.Chars()
	var best []rune
	bestN := 0
	for q := lastIndexRunes(before, given, len(before)); q > 0; q = lastIndexRunes(before, given, q-1) {
		if er.officeBefore(before[:q]) {
			// "郎中叶旺": an office before the name written alone.
			return nil
		}
		for _, k := range []int{2, 1} {
			if q < k || !nameRunesOnly(before[q-k:q]) {
				continue
			}
			if k == 2 && !er.compound(before[q-k:]) || k == 1 && er.judge.Surname(before[q-1]) == 0 {
				continue
			}
			if ambiguous && !er.officeBefore(before[:q-k]) {
				continue
			}
			full := before[q-k : q+len(given)]
			if chars.Score(full) <= 0 {
				continue
			}
			if n := countRunes(before, full); n > bestN {
				best, bestN = slices.Clone(full), n
			}
			break
		}
	}
	return best
}

// countRunes is how often hay holds needle.
func countRunes(hay, needle []rune) int {
	n := 0
	for q := text.IndexRunes(hay, needle, 0); q >= 0; q = text.IndexRunes(hay, needle, q+1) {
		n++
	}
	return n
}

// officeBefore reports whether text ends with an office of the profile
// ("御史"): what follows it is a person's full name.
func (er *Rules) officeBefore(text []rune) bool {
	for _, t := range er.officeTerms {
		if hasSuffix(text, t) {
			return true
		}
	}
	return false
}

// kinBefore reports whether the text before writes given right after a
// kinship word of the same surname ("子春", "长子辉祖", "弟昂"), or as an
// item of a list written after one ("子春、晟、昂"), not after a word that
// ends an office ("左庶子黎淳"), and after the sentence's start, a clause
// mark or a name for a word of one character ("。子春", "达子辉祖"): a
// relative of the entry's person, who bears the entry's surname.
func (er *Rules) kinBefore(given, before []rune) bool {
	// kinAt reports a kinship word of the same surname ending at s.
	kinAt := func(s int) bool {
		if er.officeBefore(before[:s]) {
			return false
		}
		for i := range er.kinWords {
			kw, k := &er.kinWords[i], er.kinWordRunes[i]
			if !kw.SameSurname || len(k) < 2 && !slices.Contains(er.prefixChars, k[0]) || s < len(k) || !slices.Equal(before[s-len(k):s], k) {
				continue
			}
			if p := s - len(k); len(k) >= 2 || p == 0 || !IsNameRune(before[p-1]) || er.judge != nil && er.judge.Chars().Score(before[p-1:p]) > 0 {
				return true
			}
		}
		return false
	}
	// listed reports a kinship word before the item at s, or before an
	// earlier item of the list it ends ("子春、晟").
	var listed func(s, items int) bool
	listed = func(s, items int) bool {
		if kinAt(s) {
			return true
		}
		if items == 4 || s < 2 || before[s-1] != '、' {
			return false
		}
		for n := 1; n <= 3 && s-1-n >= 0 && IsNameRune(before[s-1-n]); n++ {
			if listed(s-1-n, items+1) {
				return true
			}
		}
		return false
	}
	for q := text.IndexRunes(before, given, 1); q >= 0; q = text.IndexRunes(before, given, q+1) {
		if e := q + len(given); len(given) == 1 && before[q-1] != '、' && e < len(before) && IsNameRune(before[e]) {
			continue // "子春秋": the character opens a word
		}
		if listed(q, 0) {
			return true
		}
	}
	return false
}

// lastIndexRunes is the last offset ≤ from where needle occurs in hay, -1
// if none.
func lastIndexRunes(hay, needle []rune, from int) int {
	for q := min(from, len(hay)-len(needle)); q >= 0; q-- {
		if slices.Equal(hay[q:q+len(needle)], needle) {
			return q
		}
	}
	return -1
}
