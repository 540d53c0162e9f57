package chunker

import (
	"sync"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/segment"
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
		var n int
		if d != nil {
			n = er.EntryOpenings(d.seg)
		} else {
			n = er.EntryOpenings(segment.NewDoc(rs, sentences))
		}
		if n >= 1 && n*20000 >= len(rs) {
			return name
		}
	}
	return ProfileGeneric
}

// entryRules are the entry rules of one profile (internal/lang/zh/segment)
// with what the model engine shows the model: the profile's
// demonstrations.
type entryRules struct {
	*segment.Rules
	demos []demo
}

func newEntryRules(p *profile.Profile) *entryRules {
	er := &entryRules{Rules: segment.New(p)}
	for _, d := range p.ChunkDemos {
		dm := demo{Listing: d.Listing, Text: d.Text}
		for _, e := range d.Answer.Entries {
			dm.Answer.Entries = append(dm.Answer.Entries, answerEntry{Subject: e.Subject, Anchor: e.Anchor, Relative: e.Relative})
		}
		er.demos = append(er.demos, dm)
	}
	return er
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
