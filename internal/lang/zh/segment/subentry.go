package segment

import (
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/zh/names"

	"github.com/annalist-dev/annalist/internal/lang/text"
)

// A sub-entry is a relative's or an attached person's paragraph inside
// another person's entry. Its piece keeps the entry (Piece.Main) and
// names the sub-entry's person (Piece.Subject), so the facts of that
// paragraph are not given to the entry's person. The text often writes
// such a person by the given name alone ("用嘉，举人", "子琮，字季玉");
// subEntryName completes the name when the listing, a kinship word or the
// entry's earlier text says what it is, and leaves it as written
// otherwise: a name left short is a smaller error than a wrong surname.
// The kinship words that open a sub-entry (kin.tsv's subentry role), the
// words that introduce a person and the compound surnames are the
// profile's.

// naming is what subEntryName reads around a sub-entry: the entry's
// person, the entry's text up to the sub-entry (before), the volume's
// (earlier), the sub-entry's own text (after), the listing's groups, and
// the document read for name evidence (nil without a judge).
type naming struct {
	entry                  string
	before, earlier, after []rune
	groups                 [][]rune
	nd                     *names.Doc
}

// subEntryName names the person whose sub-entry opens with written inside
// n.entry's entry. The words that introduce the person (有, 同邑 …) are
// dropped, and the rest read (read):
//
//   - after a kinship word after the name of a relative the volume
//     presents (or the entry's person: "晔从弟旦", "思诚孙清", "汧子枋"),
//     the person's own name; of the same surname (子, 弟, 从弟 …), a name
//     of one or two characters takes the relative's surname: the entry's
//     when the relative is its person, else that of the nearest full name
//     the volume writes for the relative (杨旦 after "杨晔"). A woman known
//     by her family name alone after another's kinship word ("嵇永仁妻杨",
//     "宋德成妻姜氏") keeps the words that say whose she is;
//   - after a kinship word at the start ("子琮", "养子德济"), the name; of
//     the same surname, a name of one or two characters takes the entry's
//     surname: 申琮;
//   - after an office ("锦衣指挥周彧"), or after words saying whose
//     townsman the person is ("卓同邑罗性"), the name;
//   - a name the groups write after words introducing it is that name; a
//     name the groups write with one or two characters more, in a form
//     the volume writes after an office ("知县孙自一"), is that fuller
//     name, whatever the character before the given name; a given name
//     the listing's groups write as a same-surname relative ("(子用懋用
//     嘉)") takes the entry's surname: 申用嘉;
//   - a name the groups write with one or two characters more, not after
//     a kinship character, in a form the volume has used ("光" for
//     "(…余光)" after "御史余光亦言"), is that fuller name;
//   - a one-character name the groups write two given names after a
//     kinship word ("(弟冲汸濂)"), or a name the entry's text writes after
//     a kinship word of the same surname ("子春", "子春、晟"), takes the
//     surname too: 沐晟;
//   - a given name the volume has written before after a surname
//     (writtenInFull: "拱辰" after "毕拱辰") is that full name;
//   - anything else is kept as written.
func (er *Rules) subEntryName(n naming, written []rune) string {
	for _, w := range er.introducers {
		wr := []rune(w)
		if len(written) >= len(wr)+2 && slices.Equal(written[:len(wr)], wr) {
			written = written[len(wr):]
			break
		}
	}
	ent := []rune(n.entry)
	sur := er.surnameOf(ent)
	withSurname := func(sur, name []rune) string {
		if len(name) > 2 || len(sur) == 0 || len(name) >= len(sur) && slices.Equal(name[:len(sur)], sur) {
			return string(name)
		}
		return string(sur) + string(name)
	}
	r := er.read(written, func(owner []rune) bool {
		if sur := er.surnameOf(ent); len(sur) > 0 && (slices.Equal(ent, owner) || slices.Equal(ent[len(sur):], owner)) {
			return true
		}
		return n.nd != nil && er.knownOwner(n.nd, owner)
	})
	switch {
	case r.owner != nil && r.kin.SameSurname:
		return withSurname(er.ownerSurname(r.owner, ent, n.earlier), r.name)
	case r.owner != nil && (len(r.name) < 2 || r.name[len(r.name)-1] == '氏'):
		return string(written)
	case r.owner != nil, r.kin != nil && !r.kin.SameSurname:
		return string(r.name)
	case r.kin != nil:
		return withSurname(sur, r.name)
	case r.title && er.titled(written) != nil:
		return string(r.name)
	case !r.title && r.off > 0:
		written = r.name // "卓同邑罗性": 罗性
	}
	if rest := er.listedSuffix(written, n.groups); rest != nil {
		return string(rest)
	}
	if len(written) > 2 {
		return string(written)
	}
	if full := er.fullerForm(written, n.earlier, n.groups, true); full != nil {
		return string(full)
	}
	strong, weak := er.kinGroup(written, n.groups)
	if strong {
		return withSurname(sur, written)
	}
	if full := er.fullerForm(written, n.earlier, n.groups, false); full != nil {
		return string(full)
	}
	if weak || er.kinBefore(written, n.before) {
		return withSurname(sur, written)
	}
	if !inAnyGroup(written, n.groups) {
		if full := er.writtenInFull(written, n.earlier, n.after); full != nil {
			return string(full)
		}
	}
	return string(written)
}

// fullerForm returns the name the groups write ending with name and one or
// two characters longer that the text before has used, nil if none. With
// office, only a form the text writes right after an office ("知县孙自一"
// for 自一 in "(子鼎遇维城孙自一)"): an office is written before a full
// name, so the character before the given name is a surname even where it
// is a kinship word too; without it, a form not opening with a kinship
// character.
func (er *Rules) fullerForm(name, before []rune, groups [][]rune, office bool) []rune {
	for _, g := range groups {
		for q := text.IndexRunes(g, name, 0); q >= 0; q = text.IndexRunes(g, name, q+1) {
			for k := 2; k >= 1; k-- {
				if q < k || len(name)+k > 3 || !office && er.isKin(g[q-k]) {
					continue
				}
				full := g[q-k : q+len(name)]
				for p := text.IndexRunes(before, full, 0); p >= 0; p = text.IndexRunes(before, full, p+1) {
					if !office || er.officeBefore(before[:p]) {
						return full
					}
				}
			}
		}
	}
	return nil
}

// kinGroup reports whether name is written in a parenthesised group of
// the listing as a same-surname relative. Siblings are run together after
// one kinship character (子, 弟, 孙 …). strong: right after it, a
// one-character given name after one other ("(子琏璟)"), or a
// two-character one after a sibling sharing its generation character
// ("(子用懋用嘉)", "(子泰徵甲徵)"). weak: a one-character name two after
// it, which may be a third son ("(弟冲汸濂)") or the end of another
// person's name ("(族子旦余光)"). Anything else in a group is taken as an
// attached person of another surname: "(子冕吴宁王伟)" lists a son, 冕,
// and two others.
func (er *Rules) kinGroup(name []rune, groups [][]rune) (strong, weak bool) {
	sameKin := func(r rune) bool { return er.isKin(r) && !strings.ContainsRune("女婿甥妻", r) }
	for _, g := range groups {
		for q := text.IndexRunes(g, name, 0); q >= 0; q = text.IndexRunes(g, name, q+1) {
			switch {
			case q >= 1 && sameKin(g[q-1]):
				return true, false
			case len(name) == 1 && q >= 2 && sameKin(g[q-2]):
				return true, false
			case len(name) == 1 && q >= 3 && sameKin(g[q-3]):
				weak = true
			case len(name) == 2:
				for p := q; p >= 3 && sibling(g[p-2:p], name); p -= 2 {
					if sameKin(g[p-3]) {
						return true, false
					}
				}
			}
		}
	}
	return false, weak
}

// sibling reports whether two two-character given names share their
// generation character, first or last.
func sibling(a, b []rune) bool { return a[0] == b[0] || a[1] == b[1] }

// surnameOf is the surname of an entry's person, or nil when the entry
// is not named by a surname: a prince or a noble named by his title
// ("秦王樉"; 王 after the first character is the title, not a surname).
func (er *Rules) surnameOf(entry []rune) []rune {
	if len(entry) < 2 || slices.Contains(entry[1:], '王') {
		return nil
	}
	if len(entry) >= 3 {
		for _, c := range er.surnames {
			if cs := []rune(c); slices.Equal(entry[:2], cs) {
				return cs
			}
		}
	}
	return entry[:1]
}
