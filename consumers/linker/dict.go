package linker

import (
	"cmp"
	"slices"
	"unicode/utf8"

	ahocorasick "github.com/petar-dambovaliev/aho-corasick"
)

// match is one surface found in a text: rune offsets, half-open.
type match struct {
	surface    string
	start, end int
	seq        int64
}

// automaton is a set of surfaces compiled for leftmost-longest matching.
type automaton struct {
	surfaces []string
	seqs     []int64
	ac       ahocorasick.AhoCorasick
}

func compile(surfaces []string, seqs []int64) *automaton {
	a := &automaton{surfaces: surfaces, seqs: seqs}
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

// dictionary is one tenant's surfaces: a main automaton and a delta of the
// surfaces that arrived since it was built. Reading the surface log for
// what is new is one small range query, so the dictionary is brought up to
// date on every batch; the delta is folded into the main automaton when it
// grows past a fraction of it, so the rebuild cost is amortised.
type dictionary struct {
	main, delta *automaton
	last        int64
}

// minRebuild is the delta size below which it is never folded in.
const minRebuild = 512

func (d *dictionary) add(surfaces []string, seqs []int64) {
	var s []string
	var q []int64
	if d.delta != nil {
		s, q = slices.Clone(d.delta.surfaces), slices.Clone(d.delta.seqs)
	}
	for i, sf := range surfaces {
		if seqs[i] > d.last {
			d.last = seqs[i]
		}
		if utf8.RuneCountInString(sf) < 2 {
			continue
		}
		s, q = append(s, sf), append(q, seqs[i])
	}
	mainN := 0
	if d.main != nil {
		mainN = len(d.main.surfaces)
	}
	if len(s) > max(minRebuild, mainN/8) {
		var ms []string
		var mq []int64
		if d.main != nil {
			ms, mq = slices.Clone(d.main.surfaces), slices.Clone(d.main.seqs)
		}
		d.main = compile(append(ms, s...), append(mq, q...))
		d.delta = nil
		return
	}
	if d.delta == nil || len(s) != len(d.delta.surfaces) {
		d.delta = compile(s, q)
	}
}

// find returns the leftmost-longest matches of the dictionary in text, in
// rune offsets: the matches of both automata, of which a match overlapped
// by one that starts earlier, or at the same place and is longer, is
// dropped, as one automaton holding both would have done.
func (d *dictionary) find(text string) []match {
	return leftmostLongest(text, append(d.main.find(text), d.delta.find(text)...))
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
