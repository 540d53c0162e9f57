package zh

import (
	"sync"

	"github.com/annalist-dev/annalist/internal/lang/factkit"
	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/schemas"
)

// Reader reads the facts of classical-Chinese chunks. A profile's rules
// (its eras, lexicons, kinship words and examination terms compiled into
// the patterns) are built on the profile's first chunk and kept. It is
// safe for concurrent use; the zero value is ready.
type Reader struct {
	rules sync.Map // *profile.Profile → compiled
}

// compiled are the rules of one profile, or why its files cannot make
// them.
type compiled struct {
	hz  *han
	err error
}

// Read returns the facts the rules state in chunk c, read with profile p:
// the entry's opening and narrative, the listing's people and relatives,
// each kept only when every person it names has a person's name; the
// parts of the text by the person each is about; and the reading of the
// known persons that open its other sentences. An error is a profile
// whose files cannot make the rules: every chunk of it fails the same
// way.
func (r *Reader) Read(p *profile.Profile, c schemas.Chunk) (factkit.Reading, error) {
	hz, err := r.rulesOf(p)
	if err != nil {
		return factkit.Reading{}, err
	}
	entry := factkit.EntryPerson(c)
	facts, secs := hz.extractHan(c.Text, entry, c.SubEntry, factkit.OpensEntry(c))
	facts = append(facts, hz.listedFacts(c.Text, c.Listed, entry, c.SubEntry)...)
	facts = append(facts, hz.relativeFacts(c.Text, c.Listed, entry)...)
	facts = keepPersons(c, facts)
	known := func(known func(string) bool) []factkit.Fact {
		var out []factkit.Fact
		knownFacts(hz, c.Text, secs, known, func(f factkit.Fact) { out = append(out, f) })
		return out
	}
	return factkit.Reading{Facts: facts, Parts: parts(secs), Known: known}, nil
}

// rulesOf returns the compiled rules of p.
func (r *Reader) rulesOf(p *profile.Profile) (*han, error) {
	if v, ok := r.rules.Load(p); ok {
		return v.(compiled).hz, v.(compiled).err
	}
	hz, err := newHan(p)
	v, _ := r.rules.LoadOrStore(p, compiled{hz: hz, err: err})
	return v.(compiled).hz, v.(compiled).err
}

// parts are the sections as the stage sees them: nil when there are none
// to give.
func parts(secs []section) []factkit.Part {
	if secs == nil {
		return nil
	}
	out := make([]factkit.Part, len(secs))
	for i, s := range secs {
		out[i] = factkit.Part{Start: s.start, End: s.end, Head: s.head}
	}
	return out
}
