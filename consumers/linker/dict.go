package linker

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	ahocorasick "github.com/petar-dambovaliev/aho-corasick"
)

// match is one surface found in a text: rune offsets, half-open.
type match struct {
	surface    string
	start, end int
	seq        int64
}

// automaton is a set of surfaces compiled for leftmost-longest matching;
// maxSeq is the latest of their seqs.
type automaton struct {
	surfaces []string
	seqs     []int64
	maxSeq   int64
	ac       ahocorasick.AhoCorasick
}

func compile(surfaces []string, seqs []int64) *automaton {
	a := &automaton{surfaces: surfaces, seqs: seqs}
	for _, q := range seqs {
		a.maxSeq = max(a.maxSeq, q)
	}
	if len(surfaces) > 0 {
		b := ahocorasick.NewAhoCorasickBuilder(ahocorasick.Opts{
			MatchKind: ahocorasick.LeftMostLongestMatch,
			DFA:       len(surfaces) <= dfaLimit,
		})
		a.ac = b.Build(surfaces)
	}
	return a
}

// dfaLimit is the most patterns compiled to a DFA: it is faster to run but
// its table grows with the patterns' states times the byte classes, and a
// tenant's whole dictionary is better held as the smaller NFA.
const dfaLimit = 2000

// find returns the automaton's leftmost-longest matches in text, in byte
// offsets.
func (a *automaton) find(text string) []match {
	if a == nil || len(a.surfaces) == 0 {
		return nil
	}
	var out []match
	for _, m := range a.ac.FindAll(text) {
		out = append(out, match{surface: a.surfaces[m.Pattern()], start: m.Start(), end: m.End(), seq: a.seqs[m.Pattern()]})
	}
	return out
}

// dictionary is one tenant's surfaces, held as levels of automata, the
// oldest and largest first, and the latest few surfaces (pending) matched
// by a plain search. Reading the surface log for what is new is one small
// range query, so the dictionary is brought up to date on every batch:
// new surfaces wait in pending until there are pendingMax of them, which
// are then compiled on their own as the last level, and a level is merged
// into the one before it while that one is no more than twice its size.
// A surface is recompiled O(log n) times in all (rebuilding one growing
// delta on every batch recompiled it on every batch until the next fold);
// a text is matched against O(log n) automata and at most pendingMax
// plain searches.
type dictionary struct {
	levels  []*automaton
	pending automaton
	last    int64
	// ready says the dictionary has read the surface log once.
	ready bool
}

// pendingMax is the most surfaces searched plainly before they are
// compiled.
const pendingMax = 64

func (d *dictionary) add(surfaces []string, seqs []int64) {
	d.ready = true
	for i, sf := range surfaces {
		if seqs[i] > d.last {
			d.last = seqs[i]
		}
		if utf8.RuneCountInString(sf) < 2 {
			continue
		}
		d.pending.surfaces = append(d.pending.surfaces, sf)
		d.pending.seqs = append(d.pending.seqs, seqs[i])
		d.pending.maxSeq = max(d.pending.maxSeq, seqs[i])
	}
	if len(d.pending.surfaces) < pendingMax {
		return
	}
	s, q := d.pending.surfaces, d.pending.seqs
	d.pending = automaton{}
	for n := len(d.levels); n > 0 && len(d.levels[n-1].surfaces) <= 2*len(s); n-- {
		top := d.levels[n-1]
		s = append(slices.Clone(top.surfaces), s...)
		q = append(slices.Clone(top.seqs), q...)
		d.levels = d.levels[:n-1]
	}
	d.levels = append(d.levels, compile(s, q))
}

// find returns the leftmost-longest matches of the dictionary in text, in
// rune offsets: the matches of every level and of the pending surfaces,
// of which a match overlapped by one that starts earlier, or at the same
// place and is longer, is dropped, as one automaton holding them all would
// have done.
func (d *dictionary) find(text string) []match {
	var ms []match
	for _, a := range d.levels {
		ms = append(ms, a.find(text)...)
	}
	return leftmostLongest(text, append(ms, d.pending.plain(text)...))
}

// plain finds every occurrence of the automaton's surfaces in text by
// plain search, in byte offsets, without its compiled matcher.
func (a *automaton) plain(text string) []match {
	var out []match
	for i, sf := range a.surfaces {
		for at := 0; ; {
			j := strings.Index(text[at:], sf)
			if j < 0 {
				break
			}
			out = append(out, match{surface: sf, start: at + j, end: at + j + len(sf), seq: a.seqs[i]})
			_, size := utf8.DecodeRuneInString(text[at+j:])
			at += j + size
		}
	}
	return out
}

// hasNewer reports whether text holds a surface logged after seq v. The
// levels hold the surfaces in log order, so only the last ones, those
// holding a surface after v, are run: a chunk linked before the latest
// surfaces is checked against those alone. A newer surface that a longer,
// older one overlaps counts too, which can only ask for a relink that
// changes nothing.
func (d *dictionary) hasNewer(text string, v int64) bool {
	found := false
	d.eachNewer(text, v, func(string) bool {
		found = true
		return false
	})
	return found
}

// newer returns the surfaces logged after seq v that text holds, each
// once, as hasNewer finds them.
func (d *dictionary) newer(text string, v int64) []string {
	var out []string
	d.eachNewer(text, v, func(sf string) bool {
		if !slices.Contains(out, sf) {
			out = append(out, sf)
		}
		return true
	})
	return out
}

// eachNewer calls f with each occurrence in text of a surface logged after
// seq v, until f returns false.
func (d *dictionary) eachNewer(text string, v int64, f func(string) bool) {
	for i, sf := range d.pending.surfaces {
		if d.pending.seqs[i] > v && strings.Contains(text, sf) && !f(sf) {
			return
		}
	}
	for i := len(d.levels) - 1; i >= 0 && d.levels[i].maxSeq > v; i-- {
		for _, m := range d.levels[i].find(text) {
			if m.seq > v && !f(m.surface) {
				return
			}
		}
	}
}

// leftmostLongest keeps, of byte-offset matches, the non-overlapping ones
// a leftmost-longest scan takes, and converts their offsets to runes.
func leftmostLongest(text string, ms []match) []match {
	if len(ms) == 0 {
		return nil
	}
	slices.SortFunc(ms, func(a, b match) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end))
	})
	out := ms[:0]
	end := -1
	for _, m := range ms {
		if m.start < end {
			continue
		}
		out = append(out, m)
		end = m.end
	}
	// Bytes to runes in one pass over the text.
	r, b := 0, 0
	for i := range out {
		for b < out[i].start {
			_, n := utf8.DecodeRuneInString(text[b:])
			b += n
			r++
		}
		out[i].start = r
		for b < out[i].end {
			_, n := utf8.DecodeRuneInString(text[b:])
			b += n
			r++
		}
		out[i].end = r
	}
	return out
}
