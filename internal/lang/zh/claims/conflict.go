package claims

import (
	"fmt"
	"slices"

	"github.com/annalist-dev/annalist/schemas"
)

// checkConflict decides a sentence that states a disagreement of the
// references (Draft.Conflict): each of the draft's facts must be stated by
// the chunk it names — that chunk alone, since the other chunk says
// otherwise — and the sentence must state each value. Era dates and
// Gregorian years written in the sentence must still agree with the era
// table.
func (s *sentenceCheck) checkConflict() []schemas.FactVerdict {
	content := normalize(s.d.Text).rs
	var out []schemas.FactVerdict
	for _, f := range s.d.Facts {
		val := f.Value
		if val == "" {
			val = f.Text
		}
		n := normalize(val).rs
		di, ok := s.idx.byChunk[f.ChunkID]
		switch {
		case len(n) == 0:
			out = append(out, verdictOf(f, schemas.StatusNotIncluded, "", "the fact gives no value"))
			continue
		case !ok:
			out = append(out, verdictOf(f, schemas.StatusNotIncluded, "",
				fmt.Sprintf("chunk %q of %s is not in the reference set", f.ChunkID, val)))
			continue
		case indexNorm(content, n) < 0:
			out = append(out, verdictOf(f, schemas.StatusNotIncluded, "",
				fmt.Sprintf("the sentence does not state %s, which it attributes to chunk %s", val, f.ChunkID)))
			continue
		}
		doc := &s.idx.docs[di]
		if k := indexNorm(doc.norm.rs, n); k >= 0 {
			st, en := doc.norm.span(k, k+len(n))
			out = append(out, verdictOf(f, schemas.StatusSupported, "",
				fmt.Sprintf("%s is stated in chunk %s", val, f.ChunkID), s.idx.evidence(di, st, en)))
			continue
		}
		out = append(out, s.chunkDisagrees(f, val))
	}
	// The era table still holds inside a conflict sentence.
	atoms := atomize(s.cfg.Era, s.lex, s.d.Text)
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
				out = append(out, verdictOf(a.fact, schemas.StatusNotSupported, schemas.ErrorEra,
					fmt.Sprintf("Gregorian year %d does not match %s, which the era table gives as %d",
						a.date.gregorian, ed.text, ed.gregorian)))
			}
			break
		}
	}
	return out
}

// chunkDisagrees decides a conflict fact its chunk does not state: a
// contradiction when the chunk gives another value for the relation, else
// a value the chunk does not include.
func (s *sentenceCheck) chunkDisagrees(f schemas.Fact, val string) schemas.FactVerdict {
	if f.Relation != "" {
		for _, kf := range s.kg(f.Relation) {
			if kf.ChunkID == f.ChunkID && !sameValue(f.Relation, kf.Value, val) {
				return verdictOf(f, schemas.StatusNotSupported, relErrorType(f.Relation),
					fmt.Sprintf("%s %s contradicts %s in chunk %s", relName(f.Relation), val, kf.Value, f.ChunkID),
					s.kgEvidence(kf))
			}
		}
	}
	return verdictOf(f, schemas.StatusNotIncluded, "", fmt.Sprintf("chunk %s does not state %s", f.ChunkID, val))
}

// relErrorType is the error type of a wrong value of a relation.
func relErrorType(rel string) string {
	switch {
	case slices.Contains([]string{schemas.RelCourtesyName, schemas.RelArtName, schemas.RelAlias}, rel):
		return schemas.ErrorAlias
	case rel == schemas.RelJinshi || rel == RelDate:
		return schemas.ErrorEra
	case rel == schemas.RelOffice:
		return schemas.ErrorKnowledge
	}
	return schemas.ErrorOther
}
