package linker

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// match is one surface found in a text: rune offsets, half-open.
type match struct {
	surface    string
	start, end int
	seq        int64
}

// dictionary is one tenant's surfaces, as a set of their prefixes: a
// text is matched by walking, from each character that begins a surface,
// the longest run of characters that is still a prefix of one, which is
// the walk of a trie with the nodes kept in a hash map. A surface arriving
// adds its prefixes and nothing is ever rebuilt, so reading the surface
// log on every batch costs what it brings; a compiled automaton (Aho–
// Corasick) scans a text faster, but must be compiled again, whole or in
// levels, as surfaces arrive, and during a bulk ingestion, when thousands
// of names arrive in a few seconds, the compiling cost more than all the
// matching. Names are short (two to six characters, rarely more), so the
// walk from one position is one or two lookups.
type dictionary struct {
	// prefixes holds every prefix of every surface of two characters or
	// more, true for the surfaces themselves.
	prefixes map[string]bool
	// seqs is each surface's sequence in the surface log.
	seqs map[string]int64
	// log holds the surfaces by ascending sequence.
	log []logged
	// starts marks the characters of the Basic Multilingual Plane that
	// begin a surface; a character beyond it is looked up.
	starts [1 << 16 / 64]uint64
	last   int64
	// ready says the dictionary has read the surface log once.
	ready bool
}

type logged struct {
	surface string
	seq     int64
}

// scanNewerMax is the most newer surfaces searched one by one in a text;
// past it the text is walked once.
const scanNewerMax = 32

func (d *dictionary) add(surfaces []string, seqs []int64) {
	d.ready = true
	if d.prefixes == nil {
		d.prefixes, d.seqs = map[string]bool{}, map[string]int64{}
	}
	sorted := true
	for i, sf := range surfaces {
		q := seqs[i]
		d.last = max(d.last, q)
		if utf8.RuneCountInString(sf) < 2 {
			continue
		}
		if old, ok := d.seqs[sf]; ok {
			// Logged again: its latest sequence stands.
			if q <= old {
				continue
			}
			d.log = slices.DeleteFunc(d.log, func(l logged) bool { return l.surface == sf })
		}
		d.seqs[sf] = q
		if n := len(d.log); n > 0 && d.log[n-1].seq > q {
			sorted = false
		}
		d.log = append(d.log, logged{surface: sf, seq: q})
		r, _ := utf8.DecodeRuneInString(sf)
		if r < 1<<16 {
			d.starts[r/64] |= 1 << (r % 64)
		}
		for j := range sf {
			if j > 0 {
				if _, ok := d.prefixes[sf[:j]]; !ok {
					d.prefixes[sf[:j]] = false
				}
			}
		}
		d.prefixes[sf] = true
	}
	if !sorted {
		slices.SortStableFunc(d.log, func(a, b logged) int { return cmp.Compare(a.seq, b.seq) })
	}
}

// begins reports whether some surface may begin with r.
func (d *dictionary) begins(r rune) bool {
	if r >= 1<<16 {
		return true
	}
	return d.starts[r/64]&(1<<(r%64)) != 0
}

// walk calls f with the end (bytes and characters after i) of every
// surface that begins at byte i of text, shortest first.
func (d *dictionary) walk(text string, i int, f func(end, runes int)) {
	n := 0
	for j := i; j < len(text); {
		_, size := utf8.DecodeRuneInString(text[j:])
		j += size
		n++
		full, ok := d.prefixes[text[i:j]]
		if !ok {
			return
		}
		if full {
			f(j, n)
		}
	}
}

// find returns the dictionary's leftmost-longest matches in text, in rune
// offsets: of the surfaces that begin at the first position where one
// does, the longest, then the same after its end. A name inside a longer
// known name (a place, an office, another person's full name) is not a
// match.
func (d *dictionary) find(text string) []match {
	var out []match
	r := 0
	for i := 0; i < len(text); {
		c, size := utf8.DecodeRuneInString(text[i:])
		if d.begins(c) {
			best, runes := -1, 0
			d.walk(text, i, func(end, n int) { best, runes = end, n })
			if best > 0 {
				sf := text[i:best]
				out = append(out, match{surface: sf, start: r, end: r + runes, seq: d.seqs[sf]})
				i, r = best, r+runes
				continue
			}
		}
		i += size
		r++
	}
	return out
}

// hasNewer reports whether text holds a surface logged after seq v. A
// newer surface inside a longer, older one counts too, which can only ask
// for a relink that changes nothing.
func (d *dictionary) hasNewer(text string, v int64) bool {
	found := false
	d.eachNewer(text, v, func(string) bool {
		found = true
		return false
	})
	return found
}

// newer returns the surfaces logged after seq v that text holds, each
// once, in the order they first occur.
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
// seq v, in text order, until f returns false. A few newer surfaces are
// searched for one by one; more, and the text is walked from every
// position.
func (d *dictionary) eachNewer(text string, v int64, f func(string) bool) {
	from, _ := slices.BinarySearchFunc(d.log, v+1, func(l logged, q int64) int { return cmp.Compare(l.seq, q) })
	newer := d.log[from:]
	if len(newer) == 0 {
		return
	}
	if len(newer) <= scanNewerMax {
		type at struct {
			i  int
			sf string
		}
		var hits []at
		for _, l := range newer {
			if i := strings.Index(text, l.surface); i >= 0 {
				hits = append(hits, at{i, l.surface})
			}
		}
		slices.SortFunc(hits, func(a, b at) int { return cmp.Compare(a.i, b.i) })
		for _, h := range hits {
			if !f(h.sf) {
				return
			}
		}
		return
	}
	stop := false
	for i := 0; i < len(text) && !stop; {
		c, size := utf8.DecodeRuneInString(text[i:])
		if d.begins(c) {
			d.walk(text, i, func(end, _ int) {
				if !stop && d.seqs[text[i:end]] > v && !f(text[i:end]) {
					stop = true
				}
			})
		}
		i += size
	}
}
