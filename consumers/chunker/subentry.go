package chunker

import (
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/text"
)

// A sub-entry is a relative's or an attached person's paragraph inside
// another person's entry. Its chunk keeps the entry (Entry, EntryChunk)
// and names the sub-entry's person in SubEntry, so the facts of that
// paragraph are not given to the entry's person. The text often writes
// such a person by the given name alone ("用嘉，举人", "子琮，字季玉");
// subEntryName completes the name when the listing, a kinship word or the
// entry's earlier text says what it is, and leaves it as written
// otherwise: a name left short is a smaller error than a wrong surname.
// The kinship words that open a sub-entry (kin.tsv's subentry role), the
// words that introduce a person and the compound surnames are the
// profile's.

// subEntryName names the person whose sub-entry opens with written inside
// entry's entry; before is the entry's text up to the sub-entry. The
// words that introduce the person (有, 同邑 …) are dropped, then:
//
//   - after a kinship word of the same surname ("子琮"), or as a given
//     name that the listing's groups write as a same-surname relative
//     ("(子用懋用嘉)"), a name of one or two characters takes the entry's
//     surname: 申用嘉;
//   - a name the groups write with one or two characters more, in a form
//     the entry's text has used ("光" for "(…余光)" after "御史余光亦言"),
//     is that fuller name;
//   - a one-character name the groups write two given names after a
//     kinship word ("(弟冲汸濂)") takes the surname too;
//   - anything else is kept as written.
func (er *entryRules) subEntryName(entry string, written, before []rune, groups [][]rune) string {
	for _, w := range er.introducers {
		wr := []rune(w)
		if len(written) >= len(wr)+2 && slices.Equal(written[:len(wr)], wr) {
			written = written[len(wr):]
			break
		}
	}
	sur := er.surnameOf([]rune(entry))
	// "汧子枋": the entry's given name, then a kinship word.
	if given := []rune(entry)[len(sur):]; len(sur) > 0 && len(given) > 0 && len(written) > len(given)+1 &&
		slices.Equal(written[:len(given)], given) && er.isKin(written[len(given)]) {
		written = written[len(given):]
	}
	withSurname := func(name []rune) string {
		if len(name) > 2 || len(sur) == 0 || len(name) >= len(sur) && slices.Equal(name[:len(sur)], sur) {
			return string(name)
		}
		return string(sur) + string(name)
	}
	for _, k := range er.subentryKin {
		if kw := []rune(k.Word); len(written) > len(kw) && slices.Equal(written[:len(kw)], kw) {
			if k.SameSurname {
				return withSurname(written[len(kw):])
			}
			return string(written[len(kw):])
		}
	}
	if rest := er.listedSuffix(written, groups); rest != nil {
		return string(rest)
	}
	if len(written) > 2 {
		return string(written)
	}
	strong, weak := er.kinGroup(written, groups)
	if strong {
		return withSurname(written)
	}
	if full := er.fullerForm(written, before, groups); full != nil {
		return string(full)
	}
	if weak {
		return withSurname(written)
	}
	return string(written)
}

// fullerForm returns the name the groups write ending with name and one or
// two characters longer, not opening with a kinship character, that the
// text before has used; nil if none.
func (er *entryRules) fullerForm(name, before []rune, groups [][]rune) []rune {
	for _, g := range groups {
		for q := text.IndexRunes(g, name, 0); q >= 0; q = text.IndexRunes(g, name, q+1) {
			for k := 2; k >= 1; k-- {
				if q < k || len(name)+k > 3 || er.isKin(g[q-k]) {
					continue
				}
				if full := g[q-k : q+len(name)]; text.IndexRunes(before, full, 0) >= 0 {
					return full
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
func (er *entryRules) kinGroup(name []rune, groups [][]rune) (strong, weak bool) {
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
func (er *entryRules) surnameOf(entry []rune) []rune {
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
