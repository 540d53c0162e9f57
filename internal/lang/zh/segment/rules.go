package segment

import (
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/zh/names"
)

// Rules are the entry patterns of one profile, ready for reading its
// volumes: formula words, kinship words and characters, names. Rules are
// read-only once made and safe for concurrent use.
type Rules struct {
	formulas     [][]rune
	appraisals   []string
	introducers  []string
	surnames     []string
	subentryKin  []profile.KinWord
	clauseEnds   [][]rune
	relationEnds [][]rune
	officeTerms  [][]rune
	// introducerRunes and subentryKinRunes are introducers and the
	// words of subentryKin as runes.
	introducerRunes, subentryKinRunes [][]rune
	// sharedPlaceLeads and sharedPlace give a native place by another
	// person's (relativePlace).
	sharedPlaceLeads []string
	sharedPlace      []string
	// notNameEnds end places and offices, never a name.
	notNameEnds []rune

	notNameStarts, markers, appointment, kinChars, prefixChars []rune

	// kinWords are the kinship words a relative's name may be written
	// after (kinWordsOf), kinWordRunes the same as runes; judge is the profile's name judge and nameWords
	// the words it reads documents with (nil: the profile has none).
	kinWords     []profile.KinWord
	kinWordRunes [][]rune
	judge        *names.Judge
	nameWords    *names.Words
}

// New returns the entry rules of p: its entry formulas, kinship words,
// names and, when internal/lang/zh/names has one for the profile, its
// name judge.
func New(p *profile.Profile) *Rules {
	er := &Rules{
		formulas: runesOf(p.Entry.Formulas), appraisals: p.Entry.Appraisals, introducers: p.Names.Introducers,
		surnames: p.Names.CompoundSurnames, subentryKin: p.Kin.WithRole(profile.RoleSubEntry),
		notNameStarts: p.Entry.NotNameStarts, markers: p.Entry.Markers, appointment: p.Entry.AppointmentChars,
		kinChars: p.Kin.Chars, prefixChars: p.Kin.PrefixChars,
		clauseEnds: runesOf(p.Entry.ClauseEnds), relationEnds: runesOf(p.Entry.RelationEnds),
		sharedPlaceLeads: p.Names.SharedPlaceLeads, sharedPlace: p.Names.SharedPlace, notNameEnds: p.Names.NotNameEnds,
	}
	er.introducerRunes = runesOf(er.introducers)
	er.kinWords = kinWordsOf(p)
	for _, k := range er.kinWords {
		er.kinWordRunes = append(er.kinWordRunes, []rune(k.Word))
	}
	if er.judge = names.For(p.Name); er.judge != nil {
		er.nameWords = names.WordsOf(p)
	}
	for _, k := range er.subentryKin {
		er.subentryKinRunes = append(er.subentryKinRunes, []rune(k.Word))
	}
	for _, o := range p.Offices.Terms {
		if utf8.RuneCountInString(o.Term) >= 2 {
			er.officeTerms = append(er.officeTerms, []rune(o.Term))
		}
	}
	return er
}

// runesOf converts words to runes once, for the scans over every opening.
func runesOf(ws []string) [][]rune {
	out := make([][]rune, len(ws))
	for i, w := range ws {
		out[i] = []rune(w)
	}
	return out
}
