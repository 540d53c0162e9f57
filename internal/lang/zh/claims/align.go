package claims

import (
	"unicode"

	"github.com/annalist-dev/annalist/internal/lang/text"
)

// normText is a text reduced to what alignment compares: letters and
// digits (lowercased, full-width digits made ASCII), single spaces between
// words of alphabetic scripts, no punctuation. pos maps each kept rune back
// to its rune offset in the original text, so matches become evidence
// spans of the original.
type normText struct {
	rs  []rune
	pos []int
}

// normalize reduces s; see normText.
func normalize(s string) normText { return normalizeRunes([]rune(s), nil) }

// normalizeRunes reduces rs, leaving out the runes skip marks (nil: none);
// pos refers to offsets in rs.
func normalizeRunes(rs []rune, skip []bool) normText {
	n := normText{rs: make([]rune, 0, len(rs)), pos: make([]int, 0, len(rs))}
	space := false
	for i, r := range rs {
		if skip != nil && skip[i] {
			continue
		}
		switch {
		case r >= '０' && r <= '９':
			r = '0' + (r - '０')
			fallthrough
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && len(n.rs) > 0 && !text.IsCJK(r) && !text.IsCJK(n.rs[len(n.rs)-1]) {
				n.rs = append(n.rs, ' ')
				n.pos = append(n.pos, i-1)
			}
			space = false
			n.rs = append(n.rs, unicode.ToLower(r))
			n.pos = append(n.pos, i)
		case unicode.IsSpace(r) || r == '-' || r == '\'':
			space = true
		}
	}
	return n
}

// span maps a half-open range of normalized offsets to the original rune
// span that covers it.
func (n normText) span(s, e int) (int, int) {
	if s >= e || s < 0 || e > len(n.pos) {
		return 0, 0
	}
	return n.pos[s], n.pos[e-1] + 1
}

// Alignment scores: a match earns, a substitution or a gap costs. A
// substitution costs less than a gap pair, so a changed value aligns as a
// substitution of the value, with the text around it matched.
const (
	scoreMatch = 2
	scoreSub   = -1
	scoreGap   = -1
)

// Kinds of alignment operations.
const (
	opMatch = iota
	opSub   // a[i] aligned with a different b[j]
	opIns   // a[i] has no counterpart in b
	opDel   // b[j] has no counterpart in a
)

type alignOp struct {
	kind int
	i, j int // indices in a and b; -1 when not applicable
}

// alignment is a semi-global alignment of a (all of it) against b (any
// part of it: gaps before and after the aligned region of b are free).
type alignment struct {
	ops     []alignOp
	matches int
	bStart  int // aligned region of b
	bEnd    int
}

// align computes the alignment of a inside b. It is O(len(a)·len(b)) in
// time and space.
func align(a, b []rune) alignment {
	n, m := len(a), len(b)
	w := m + 1
	dp := make([]int32, (n+1)*w)
	for i := 1; i <= n; i++ {
		dp[i*w] = int32(i * scoreGap)
	}
	for i := 1; i <= n; i++ {
		ai := a[i-1]
		row, prev := dp[i*w:(i+1)*w], dp[(i-1)*w:i*w]
		for j := 1; j <= m; j++ {
			d := prev[j-1]
			if ai == b[j-1] {
				d += scoreMatch
			} else {
				d += scoreSub
			}
			if u := prev[j] + scoreGap; u > d {
				d = u
			}
			if l := row[j-1] + scoreGap; l > d {
				d = l
			}
			row[j] = d
		}
	}
	// The best end in b: the highest score on the last row; on a tie the
	// later end, so that a sentence's last value aligns as a substitution
	// of the passage's (举人 for 进士) rather than as text the passage
	// lacks.
	bj := 0
	last := dp[n*w : (n+1)*w]
	for j := 1; j <= m; j++ {
		if last[j] >= last[bj] {
			bj = j
		}
	}
	var ops []alignOp
	i, j := n, bj
	for i > 0 {
		cur := dp[i*w+j]
		switch {
		case j > 0 && a[i-1] == b[j-1] && cur == dp[(i-1)*w+j-1]+scoreMatch:
			ops = append(ops, alignOp{opMatch, i - 1, j - 1})
			i, j = i-1, j-1
		case j > 0 && a[i-1] != b[j-1] && cur == dp[(i-1)*w+j-1]+scoreSub:
			ops = append(ops, alignOp{opSub, i - 1, j - 1})
			i, j = i-1, j-1
		case cur == dp[(i-1)*w+j]+scoreGap:
			ops = append(ops, alignOp{opIns, i - 1, -1})
			i--
		default:
			ops = append(ops, alignOp{opDel, -1, j - 1})
			j--
		}
	}
	for l, r := 0, len(ops)-1; l < r; l, r = l+1, r-1 {
		ops[l], ops[r] = ops[r], ops[l]
	}
	al := alignment{ops: ops, bStart: j, bEnd: bj}
	for _, o := range ops {
		if o.kind == opMatch {
			al.matches++
		}
	}
	return al
}

// diffRun is a maximal stretch of non-matching operations: a[a0:a1] stands
// where b[b0:b1] is. left and right count the matched runes right before
// and after it (0 when the run touches an end of the alignment).
type diffRun struct {
	a0, a1, b0, b1 int
	left, right    int
}

// runs lists the differing stretches of an alignment, in order. Deletions
// before the first and after the last match are not runs: the alignment
// region ends there.
func (al alignment) runs() []diffRun {
	var out []diffRun
	ops := al.ops
	k := 0
	for k < len(ops) {
		if ops[k].kind == opMatch {
			k++
			continue
		}
		s := k
		for k < len(ops) && ops[k].kind != opMatch {
			k++
		}
		r := diffRun{a0: -1, b0: -1}
		for _, o := range ops[s:k] {
			if o.i >= 0 {
				if r.a0 < 0 {
					r.a0 = o.i
				}
				r.a1 = o.i + 1
			}
			if o.j >= 0 {
				if r.b0 < 0 {
					r.b0 = o.j
				}
				r.b1 = o.j + 1
			}
		}
		// Empty sides sit between their neighbours.
		if r.a0 < 0 {
			r.a0, r.a1 = nextIndex(ops, k, true), nextIndex(ops, k, true)
		}
		if r.b0 < 0 {
			r.b0, r.b1 = nextIndex(ops, k, false), nextIndex(ops, k, false)
		}
		for l := s - 1; l >= 0 && ops[l].kind == opMatch; l-- {
			r.left++
		}
		for l := k; l < len(ops) && ops[l].kind == opMatch; l++ {
			r.right++
		}
		out = append(out, r)
	}
	return out
}

// nextIndex is the a (or b) index of the first operation at or after k
// that has one, or the end.
func nextIndex(ops []alignOp, k int, onA bool) int {
	for ; k < len(ops); k++ {
		if onA && ops[k].i >= 0 {
			return ops[k].i
		}
		if !onA && ops[k].j >= 0 {
			return ops[k].j
		}
	}
	if onA {
		for l := len(ops) - 1; l >= 0; l-- {
			if ops[l].i >= 0 {
				return ops[l].i + 1
			}
		}
		return 0
	}
	for l := len(ops) - 1; l >= 0; l-- {
		if ops[l].j >= 0 {
			return ops[l].j + 1
		}
	}
	return 0
}

// matchedIn counts the a-runes of [s, e) that the alignment matches.
func (al alignment) matchedIn(s, e int) int {
	n := 0
	for _, o := range al.ops {
		if o.kind == opMatch && o.i >= s && o.i < e {
			n++
		}
	}
	return n
}

// indexNorm is the first index of needle in hay, or -1.
func indexNorm(hay, needle []rune) int {
	return text.IndexRunes(hay, needle, 0)
}
