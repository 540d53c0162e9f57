package chunker

import (
	"sync"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/names"
)

// Profile names, as internal/lang/profile defines them.
const (
	// ProfileLiezhuan reads a document as a volume of biographies: one
	// chunk per person entry.
	ProfileLiezhuan = profile.Liezhuan
	// ProfileGeneric cuts sentence-aware windows.
	ProfileGeneric = profile.Generic
	// ProfileGlossary reads "term｜category｜definition" lines, one chunk
	// per entry line, so each chunk holds one definition the knowledge
	// solver can cite.
	ProfileGlossary = profile.Glossary
)

// Profiles lists the profiles a document may name: the embedded ones.
func Profiles() []string { return profile.Default().Names() }

// detectSample bounds how much of a document Detect reads: the formula
// openings of a biography volume show up early.
const detectSample = 40000

// Detect picks the embedded profile for a text as a document that names
// none gets it; see Chunker.Detect.
func Detect(s string) string {
	rs := []rune(s)
	if len(rs) > detectSample {
		rs = rs[:detectSample]
	}
	return detectRunes(profile.Default(), rs, text.SentencesRunes(rs), text.Lang(string(rs)), nil, nil)
}

// Detect picks the profile for a text among the chunker's: the first
// profile, by name, that may be detected (an entries profile that says
// so: liezhuan), is in the text's language and whose entry formulas open
// lines ("Name，字X…", "Name，Place人", "Name，X氏", "Name，Y弟") at least
// once per 20,000 characters read; generic otherwise. It reads at most
// the first 40,000 characters.
func (c *Chunker) Detect(s string) string {
	rs := []rune(s)
	if len(rs) > detectSample {
		rs = rs[:detectSample]
	}
	return detectRunes(c.cfg.Profiles, rs, text.SentencesRunes(rs), text.Lang(string(rs)), &c.rules, nil)
}

// detectRunes is Detect on a prepared text whose language is lang; rules
// caches the entry rules of profiles (nil: build them here). d, when not
// nil, is the whole document rs is, whose openings are kept for chunking
// it (a document no longer than Detect reads).
func detectRunes(set *profile.Set, rs []rune, sentences []text.Span, lang string, rules *sync.Map, d *docText) string {
	if d != nil && len(d.rs) > detectSample {
		d = nil
	}
	if len(rs) > detectSample {
		rs = rs[:detectSample]
		for len(sentences) > 0 && sentences[len(sentences)-1].End > len(rs) {
			sentences = sentences[:len(sentences)-1]
		}
	}
	for _, name := range set.Names() {
		p, _ := set.Get(name)
		if !p.Detect || p.Language != lang {
			continue
		}
		er := rulesOf(rules, p)
		var ops []opening
		if d != nil {
			ops = d.openings(er)
		} else {
			ops = er.openings(rs, sentences)
		}
		n := er.entryOpenings(ops)
		if n >= 1 && n*20000 >= len(rs) {
			return name
		}
	}
	return ProfileGeneric
}

// entryRules are the entry patterns of one profile, ready for the
// liezhuan engine: formula words, kinship words and characters, names.
type entryRules struct {
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
	demos                                                      []demo

	// kinWords are the kinship words a relative's name may be written
	// after (kinWordsOf), kinWordRunes the same as runes; judge is the profile's name judge and nameWords
	// the words it reads documents with (nil: the profile has none).
	kinWords     []profile.KinWord
	kinWordRunes [][]rune
	judge        *names.Judge
	nameWords    *names.Words
}

func newEntryRules(p *profile.Profile) *entryRules {
	er := &entryRules{
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
	for _, d := range p.ChunkDemos {
		dm := demo{Listing: d.Listing, Text: d.Text}
		for _, e := range d.Answer.Entries {
			dm.Answer.Entries = append(dm.Answer.Entries, answerEntry{Subject: e.Subject, Anchor: e.Anchor, Relative: e.Relative})
		}
		er.demos = append(er.demos, dm)
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

// rulesOf returns the entry rules of p, from cache when it is not nil.
func rulesOf(cache *sync.Map, p *profile.Profile) *entryRules {
	if cache == nil {
		return newEntryRules(p)
	}
	if er, ok := cache.Load(p); ok {
		return er.(*entryRules)
	}
	er, _ := cache.LoadOrStore(p, newEntryRules(p))
	return er.(*entryRules)
}
