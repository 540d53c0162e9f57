package claims

import (
	"fmt"

	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/schemas"
)

// Options tunes how a sentence is checked against an index. Every field
// must be set (the verifier's Config gives the defaults).
type Options struct {
	// MinJaccard is the token Jaccard one passage of a reference must
	// reach with the fact or with the whole sentence for the reference to
	// be kept for that fact.
	MinJaccard float64
	// TopReferences is how many references, best first, are kept per
	// fact; references the draft cites are kept as well.
	TopReferences int
	// TopPassages is how many passages of the kept references, best first,
	// are aligned with the sentence.
	TopPassages int
	// MinContext is how many runes around a differing segment must align
	// with the passage for the segment to be a contradiction.
	MinContext int
	// MaxValueRunes bounds the differing segment of a contradiction on
	// each side.
	MaxValueRunes int
	// Era is the era table dates are read with.
	Era *era.Table
}

// Check decides each atomic fact of the draft's sentence against the
// indexed references refs (x is refs indexed), reading the sentence with
// lex. The facts come in the order Read gives them.
func Check(o Options, lex *Lexicon, x *Index, refs *schemas.ReferenceSet, d schemas.Draft) []schemas.FactVerdict {
	return newSentenceCheck(o, lex, x, refs, d).check()
}

// CheckConflict decides a sentence that states a disagreement of the
// references (Draft.Conflict): each of the draft's Facts against the chunk
// it names alone, since the other chunk says otherwise.
func CheckConflict(o Options, lex *Lexicon, x *Index, refs *schemas.ReferenceSet, d schemas.Draft) []schemas.FactVerdict {
	return newSentenceCheck(o, lex, x, refs, d).checkConflict()
}

// Reading is a sentence read into its atomic facts (see Atomic), each with
// its place in the sentence and, for a date, the date read with the era
// table.
type Reading struct {
	atoms []atom
}

// Read reads sentence with lex and the era table tab.
func Read(tab *era.Table, lex *Lexicon, sentence string) Reading {
	return Reading{atoms: atomize(tab, lex, sentence)}
}

// Facts are the sentence's atomic facts, in the order of the text.
func (r Reading) Facts() []schemas.Fact {
	out := make([]schemas.Fact, len(r.atoms))
	for i, a := range r.atoms {
		out[i] = a.fact
	}
	return out
}

// ApplyEraTable overrules verdicts of the reading's facts (fvs, one per
// fact in order) on the Gregorian years the era table decides: a year
// that is not the table's year of the era date before it is not supported
// (era), whatever the verdict said.
func (r Reading) ApplyEraTable(fvs []schemas.FactVerdict) {
	atoms := r.atoms
	for i, a := range atoms {
		if a.date == nil || a.date.kind != dateGregorian {
			continue
		}
		for k := i - 1; k >= 0; k-- {
			ed := atoms[k].date
			if ed == nil || ed.kind != dateEra {
				continue
			}
			if ed.gregorian != 0 && ed.gregorian != a.date.gregorian {
				fvs[i].Status, fvs[i].ErrorType = schemas.StatusNotSupported, schemas.ErrorEra
				fvs[i].Message = fmt.Sprintf("Gregorian year %d does not match %s, which the era table gives as %d",
					a.date.gregorian, ed.text, ed.gregorian)
			}
			break
		}
	}
}
