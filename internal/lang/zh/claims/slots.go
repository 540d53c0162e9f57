package claims

import (
	"fmt"
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/schemas"
)

// detectOther decides whether the sentence is about another person: it
// opens an identity sentence with a name that is not the subject's but
// that the references write, or its first clause names a kinsman (父允中，
// 洪武二十四年举人).
func (s *sentenceCheck) detectOther() {
	if len(s.atoms) == 0 {
		return
	}
	first := s.atoms[0]
	if first.fact.Relation == schemas.RelAlias && !s.names[normValue(first.fact.Value)] {
		n := normalize(first.fact.Value).rs
		for di := range s.idx.docs {
			if indexNorm(s.idx.docs[di].norm.rs, n) >= 0 {
				s.other, s.otherName = true, n
				return
			}
		}
		return
	}
	for _, a := range s.atoms {
		// A succession (子庄王翊镇嗣): what follows is the heir's.
		if a.date == nil && strings.HasSuffix(a.fact.Text, "嗣") {
			s.other = true
			return
		}
		// Another man passed (明衡登正德十二年进士, 鼎举弘治十八年进士).
		if a.fact.Relation == schemas.RelJinshi && s.otherActor(a.fact.Text) {
			s.other = true
			return
		}
	}
	if first.date != nil || first.fact.Relation == schemas.RelAlias || runeLen(first.fact.Text) > 12 ||
		s.startsWithName(first.fact.Text) {
		return
	}
	for _, k := range s.lex.kinWords {
		if strings.HasPrefix(first.fact.Text, k) && runeLen(first.fact.Text) > runeLen(k) {
			s.other = true
			return
		}
	}
}

// passVerbs say that the clause's person passed an examination.
var passVerbs = []rune(charSet("pass_verbs"))

// clauseAdverbs may open an examination clause without naming anyone.
var clauseAdverbs = wordList("clause_adverbs")

// otherActor reports whether an examination clause opens with the name of
// someone who is not the subject before its verb of passing.
func (s *sentenceCheck) otherActor(c string) bool {
	rs := []rune(c)
	for i := 1; i <= 3 && i < len(rs); i++ {
		if !slices.Contains(passVerbs, rs[i]) || s.lex.examTermAt(rs, i+1) == 0 && !exactYearAt(rs, i+1) {
			continue
		}
		prefix := string(rs[:i])
		if !allHan(rs[:i]) || slices.Contains(clauseAdverbs, prefix) || strings.ContainsFunc(prefix, isNumeral) {
			return false
		}
		for _, a := range clauseAdverbs {
			if strings.HasPrefix(prefix, a) {
				return false
			}
		}
		return !s.isSubjectName(prefix)
	}
	return false
}

// exactYearAt reports whether an era or numeral year starts at rs[i]
// (登正德十二年进士).
func exactYearAt(rs []rune, i int) bool {
	for j := i; j < len(rs) && j < i+8; j++ {
		if rs[j] == '年' {
			return j > i
		}
	}
	return false
}

func allHan(rs []rune) bool {
	for _, r := range rs {
		if !text.IsHan(r) {
			return false
		}
	}
	return len(rs) > 0
}

// isSubjectName reports whether n is a name of the subject or the given
// name the biography calls him by (向高 for 叶向高).
func (s *sentenceCheck) isSubjectName(n string) bool {
	k := normValue(n)
	if s.names[k] {
		return true
	}
	for name := range s.names {
		rs := []rune(name)
		if len(rs) >= 3 && (string(rs[1:]) == k || len(rs) >= 4 && string(rs[2:]) == k) {
			return true
		}
	}
	return false
}

// startsWithName reports whether c opens with a name of the subject (a
// surname such as 孙 is also a kin word).
func (s *sentenceCheck) startsWithName(c string) bool {
	k := normValue(c)
	for name := range s.names {
		if len([]rune(name)) >= 2 && strings.HasPrefix(k, name) {
			return true
		}
	}
	return false
}

// passageAllowed reports whether passage p may support or contradict the
// sentence: when the sentence is about another named person, only
// passages that name that person may.
func (s *sentenceCheck) passageAllowed(p int) bool {
	if len(s.otherName) == 0 {
		return true
	}
	ps := s.idx.passages[p]
	return indexNorm(s.idx.docs[ps.doc].norm.rs[ps.ns:ps.ne], s.otherName) >= 0
}

// kg returns the subject's KG facts of a relation whose chunk is in the
// set.
func (s *sentenceCheck) kg(rel string) []schemas.KGFact {
	if fs, ok := s.kgCache[rel]; ok {
		return fs
	}
	var out []schemas.KGFact
	for _, f := range s.refs.Facts {
		if f.Relation != rel || f.Value == "" {
			continue
		}
		if _, ok := s.idx.byChunk[f.ChunkID]; ok {
			out = append(out, f)
		}
	}
	s.kgCache[rel] = out
	return out
}

// kgEvidence is the evidence of a KG fact: its span in its chunk.
func (s *sentenceCheck) kgEvidence(f schemas.KGFact) schemas.Evidence {
	di := s.idx.byChunk[f.ChunkID]
	if f.Span.End > f.Span.Start && f.Span.End <= len(s.idx.docs[di].rs) {
		return s.idx.evidence(di, f.Span.Start, f.Span.End)
	}
	ev := schemas.Evidence{ChunkID: f.ChunkID, Text: f.Evidence}
	if ev.Text == "" {
		ev.Text = f.Value
	}
	return ev
}

// normValue is the comparison form of a value.
func normValue(v string) string { return string(normalize(v).rs) }

// sameValue compares two values of a relation.
func sameValue(rel, a, b string) bool {
	x, y := normValue(a), normValue(b)
	if x == "" || y == "" {
		return false
	}
	if x == y {
		return true
	}
	switch rel {
	case schemas.RelNativePlace:
		x, y = strings.TrimSuffix(x, "人"), strings.TrimSuffix(y, "人")
		// 福建福清 and 福清 name one place; so do 先世曹 and 曹.
		return x != "" && y != "" && (strings.HasSuffix(x, y) || strings.HasSuffix(y, x))
	case schemas.RelOffice, schemas.RelDeath, schemas.RelBirth:
		return len([]rune(y)) >= 2 && strings.Contains(x, y) || len([]rune(x)) >= 2 && strings.Contains(y, x)
	}
	return false
}

// byDecision applies the expert decisions on the relation: a decided value
// is supported, a rejected value not supported.
func (s *sentenceCheck) byDecision(rel string, a atom) (schemas.FactVerdict, bool) {
	val := a.fact.Value
	for _, dec := range s.decisions[rel] {
		match := func(v string) bool {
			if a.date != nil {
				for _, dd := range findDates(s.cfg.Era, v) {
					if sameDate(*a.date, dd) {
						return true
					}
				}
				return false
			}
			return sameValue(rel, val, v)
		}
		var ev []schemas.Evidence
		if dec.ChunkID != "" {
			ev = append(ev, schemas.Evidence{ChunkID: dec.ChunkID, Text: dec.Value})
		}
		if match(dec.Value) {
			return verdictOf(a.fact, schemas.StatusSupported, "",
				fmt.Sprintf("%s %s was decided by expert review %s", relName(rel), dec.Value, dec.ReviewID), ev...), true
		}
		for _, r := range dec.Rejected {
			if match(r) {
				return verdictOf(a.fact, schemas.StatusNotSupported, schemas.ErrorOther,
					fmt.Sprintf("%s %s was ruled out by expert review %s, which decided %s", relName(rel), r, dec.ReviewID, dec.Value), ev...), true
			}
		}
	}
	return schemas.FactVerdict{}, false
}

// relName names a relation in messages.
func relName(rel string) string {
	switch rel {
	case schemas.RelCourtesyName:
		return "courtesy name"
	case schemas.RelArtName:
		return "art name"
	case schemas.RelNativePlace:
		return "native place"
	case schemas.RelJinshi:
		return "examination"
	case schemas.RelDeathAge:
		return "age at death"
	case schemas.RelAlias:
		return "name"
	case RelDate:
		return "date"
	}
	return strings.ReplaceAll(rel, "_", " ")
}

// conflicting returns two facts of the KG list that give different values
// from different chunks, when the references disagree.
func conflicting(rel string, fs []schemas.KGFact, same func(a, b schemas.KGFact) bool) (schemas.KGFact, schemas.KGFact, bool) {
	for i := range fs {
		for j := i + 1; j < len(fs); j++ {
			if fs[i].ChunkID != fs[j].ChunkID && !same(fs[i], fs[j]) {
				return fs[i], fs[j], true
			}
		}
	}
	return schemas.KGFact{}, schemas.KGFact{}, false
}

// bySlot checks a fact of a recognised relation against the subject's KG
// facts of that relation.
func (s *sentenceCheck) bySlot(a atom) (schemas.FactVerdict, bool) {
	rel, val := a.fact.Relation, a.fact.Value
	if s.other {
		if rel == schemas.RelAlias && len(s.otherName) > 0 {
			return verdictOf(a.fact, schemas.StatusSupported, "", fmt.Sprintf("the references write of %s", val),
				s.nameEvidence(val)...), true
		}
		return schemas.FactVerdict{}, false
	}
	if rel == schemas.RelAlias && a.start > 0 {
		// Another name (初名X) the KG may not know: the text decides.
		if s.names[normValue(val)] {
			return verdictOf(a.fact, schemas.StatusSupported, "", fmt.Sprintf("%s is a name of %s", val, s.subjectName()),
				s.nameEvidence(val)...), true
		}
		return schemas.FactVerdict{}, false
	}
	switch rel {
	case schemas.RelAlias:
		if s.names[normValue(val)] {
			return verdictOf(a.fact, schemas.StatusSupported, "", fmt.Sprintf("%s is a name of %s", val, s.subjectName()),
				s.nameEvidence(val)...), true
		}
		return verdictOf(a.fact, schemas.StatusNotSupported, schemas.ErrorAlias,
			fmt.Sprintf("name %s is not a name of %s (%s)", val, s.subjectName(), strings.Join(s.knownNames(), ", ")),
			s.nameEvidence(s.subjectName())...), true
	case schemas.RelCourtesyName, schemas.RelArtName, schemas.RelNativePlace:
		fs := s.kg(rel)
		same := func(x, y schemas.KGFact) bool { return sameValue(rel, x.Value, y.Value) }
		for _, f := range fs {
			if !sameValue(rel, val, f.Value) {
				continue
			}
			if rel != schemas.RelArtName && len(s.decisions[rel]) == 0 {
				if x, y, ok := conflicting(rel, fs, same); ok {
					return s.refConflict(a, rel, x, y), true
				}
			}
			return verdictOf(a.fact, schemas.StatusSupported, "",
				fmt.Sprintf("%s %s is stated in chunk %s", relName(rel), f.Value, f.ChunkID), s.kgEvidence(f)), true
		}
		if rel != schemas.RelNativePlace && s.names[normValue(val)] {
			return verdictOf(a.fact, schemas.StatusSupported, "", fmt.Sprintf("%s is a name of %s", val, s.subjectName()),
				s.nameEvidence(val)...), true
		}
		if len(fs) == 0 {
			return schemas.FactVerdict{}, false
		}
		if rel == schemas.RelArtName {
			// A person may have several art names; one the KG lacks may
			// still be in the text.
			if ev, ok := s.findVerbatim(a, s.keptDocs(a)); ok {
				return verdictOf(a.fact, schemas.StatusSupported, "", "stated in chunk "+ev.ChunkID, ev), true
			}
		}
		etype := schemas.ErrorAlias
		if rel == schemas.RelNativePlace {
			etype = schemas.ErrorOther
		}
		f := fs[0]
		return verdictOf(a.fact, schemas.StatusNotSupported, etype,
			fmt.Sprintf("%s %s contradicts %s in chunk %s", relName(rel), val, f.Value, f.ChunkID), s.kgEvidence(f)), true
	case schemas.RelJinshi:
		// Only a clause that says its person passed (the degree ends it)
		// can contradict the subject's examination.
		fs := s.kg(rel)
		if len(fs) == 0 || val == "" || !s.passed(a) || !s.sameExamEvent(a, fs) {
			return schemas.FactVerdict{}, false
		}
		// A dated clause the references write word for word is theirs
		// (万历十四年进士第二 of a man the KG confuses with another).
		if c := s.clauseDates(a); len(c) > 0 {
			if ev, ok := s.findVerbatim(a, s.keptDocs(a)); ok {
				return verdictOf(a.fact, schemas.StatusSupported, "", "stated in chunk "+ev.ChunkID, ev), true
			}
		}
		var stated []string
		for _, f := range fs {
			ps := s.lex.examPhrases(f.Evidence)
			if r := f.Qualifiers["rank"]; r != "" && len(ps) > 0 && !strings.Contains(ps[0], r) {
				ps = append(ps, ps[0]+r)
			}
			stated = append(stated, ps...)
		}
		if len(stated) == 0 {
			return schemas.FactVerdict{}, false
		}
		// Every degree and rank the clause gives must be one the KG's
		// evidence gives; 进士 itself is what the relation says.
		for _, p := range s.lex.examPhrases(a.fact.Text) {
			if p == "进士" || containsPhrase(stated, p) {
				continue
			}
			return verdictOf(a.fact, schemas.StatusNotSupported, schemas.ErrorKnowledge,
				fmt.Sprintf("examination %s contradicts %s in chunk %s", p, stated[0], fs[0].ChunkID), s.kgEvidence(fs[0])), true
		}
		return verdictOf(a.fact, schemas.StatusSupported, "",
			fmt.Sprintf("examination %s is stated in chunk %s", val, fs[0].ChunkID), s.kgEvidence(fs[0])), true
	case RelText:
		// A title the lexicon does not know, after an appointment verb.
		for _, f := range s.kg(schemas.RelOffice) {
			if v := normValue(f.Value); len([]rune(v)) >= 2 && strings.HasSuffix(normValue(a.fact.Text), v) &&
				hasVerbBefore(normValue(a.fact.Text), v) {
				return verdictOf(a.fact, schemas.StatusSupported, "",
					fmt.Sprintf("office %s is stated in chunk %s", f.Value, f.ChunkID), s.kgEvidence(f)), true
			}
		}
	case schemas.RelDeathAge:
		n, ok := ageNumber(val)
		fs := s.kg(rel)
		if !ok || len(fs) == 0 {
			return schemas.FactVerdict{}, false
		}
		for _, f := range fs {
			if m, ok := ageNumber(f.Value); ok && m == n {
				return verdictOf(a.fact, schemas.StatusSupported, "",
					fmt.Sprintf("age at death %s is stated in chunk %s", f.Value, f.ChunkID), s.kgEvidence(f)), true
			}
		}
		f := fs[0]
		return verdictOf(a.fact, schemas.StatusNotSupported, schemas.ErrorOther,
			fmt.Sprintf("age at death %s contradicts %s in chunk %s", val, f.Value, f.ChunkID), s.kgEvidence(f)), true
	case schemas.RelOffice, schemas.RelDeath, schemas.RelBirth:
		if val == "" {
			return schemas.FactVerdict{}, false
		}
		for _, f := range s.kg(rel) {
			if sameValue(rel, val, f.Value) {
				return verdictOf(a.fact, schemas.StatusSupported, "",
					fmt.Sprintf("%s %s is stated in chunk %s", relName(rel), f.Value, f.ChunkID), s.kgEvidence(f)), true
			}
		}
	}
	return schemas.FactVerdict{}, false
}

// sameExamEvent reports whether an examination clause may be about the
// examination the KG records: it gives no date (its own, or the clause of
// dates before it), or a date the KG gives for it (an approximate date
// of the same era counts: 天顺末 for 天顺八年). An examination of another
// date (天启中举人 beside a 崇祯十六年 进士) is another event.
func (s *sentenceCheck) sameExamEvent(c atom, fs []schemas.KGFact) bool {
	ds := s.clauseDates(c)
	if len(ds) == 0 {
		// Undated: the same examination only if the clause names one of
		// the metropolitan level, as the KG's 进士 is; a provincial
		// degree (举乡试第一) comes before it and contradicts nothing.
		return !s.lex.provincial(s.passedPhrase(c))
	}
	for _, d := range ds {
		for _, f := range fs {
			for _, kd := range findDates(s.cfg.Era, f.Value) {
				if sameDate(d, kd) {
					return true
				}
			}
		}
	}
	return false
}

// passed reports whether an examination clause says its person passed:
// the degree ends it after a verb or a year (examPassed), or the clause
// is the degree alone after a clause of dates (洪武十八年，会试第一).
func (s *sentenceCheck) passed(c atom) bool { return s.passedPhrase(c) != "" }

// passedPhrase is the degree a clause says its person passed, or "".
func (s *sentenceCheck) passedPhrase(c atom) string {
	if p := s.lex.examPassed(c.fact.Text); p != "" {
		return p
	}
	ps := s.lex.examPhrases(c.fact.Text)
	if len(ps) > 0 && strings.Join(ps, "") == normValue(c.fact.Text) && len(s.clauseDates(c)) > 0 {
		return ps[len(ps)-1]
	}
	return ""
}

// clauseDates are the dates (Gregorian years aside) written in a clause or
// in the clause of dates right before it.
func (s *sentenceCheck) clauseDates(c atom) []dateSpan {
	var ds []dateSpan
	for _, b := range s.atoms {
		if b.date == nil || b.date.kind == dateGregorian {
			continue
		}
		if b.start >= c.start && b.end <= c.end || b.end <= c.start && onlyDatesBetween(s.atoms, b.end, c.start) {
			ds = append(ds, *b.date)
		}
	}
	return ds
}

// containsPhrase reports whether an examination phrase is among ps, a
// closing 人 aside (进士第三 and 进士第三人 are one rank).
func containsPhrase(ps []string, p string) bool {
	p = strings.TrimSuffix(p, "人")
	for _, q := range ps {
		if strings.TrimSuffix(q, "人") == p {
			return true
		}
	}
	return false
}

// hasVerbBefore reports whether text is an appointment verb (after at
// most two runes of adverb or name) followed by the title.
func hasVerbBefore(text, title string) bool {
	head := strings.TrimSuffix(text, title)
	for _, v := range append(slices.Clone(careerVerbs), officeVerbs...) {
		if strings.HasSuffix(head, v) && runeLen(head)-runeLen(v) <= 2 {
			return true
		}
	}
	return false
}

func (s *sentenceCheck) refConflict(a atom, rel string, x, y schemas.KGFact) schemas.FactVerdict {
	return verdictOf(a.fact, schemas.StatusNotSupported, schemas.ErrorRefConflict,
		fmt.Sprintf("references disagree on the %s of %s: %s in chunk %s, %s in chunk %s", relName(rel), s.subjectName(),
			x.Value, x.ChunkID, y.Value, y.ChunkID), s.kgEvidence(x), s.kgEvidence(y))
}

func (s *sentenceCheck) subjectName() string {
	if s.refs.Name != "" {
		return s.refs.Name
	}
	return s.refs.Subject
}

func (s *sentenceCheck) knownNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range append([]string{s.refs.Name}, s.refs.Aliases...) {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// nameEvidence is where a name of the subject is written: the KG fact
// that gives it, else its first occurrence in the references.
func (s *sentenceCheck) nameEvidence(name string) []schemas.Evidence {
	for _, f := range s.refs.Facts {
		if schemas.AliasRelation(f.Relation) && sameValue(f.Relation, f.Value, name) {
			if _, ok := s.idx.byChunk[f.ChunkID]; ok {
				return []schemas.Evidence{s.kgEvidence(f)}
			}
		}
	}
	n := normalize(name).rs
	if len(n) == 0 {
		return nil
	}
	for di := range s.idx.docs {
		if k := indexNorm(s.idx.docs[di].norm.rs, n); k >= 0 {
			st, en := s.idx.docs[di].norm.span(k, k+len(n))
			return []schemas.Evidence{s.idx.evidence(di, st, en)}
		}
	}
	return nil
}

// slotBesideName reports whether the evidence for a name or place slot
// is written in a passage that names the sentence's person (the name the
// sentence opens with, or the subject): 字洋山 in another man's entry does
// not support it.
func (s *sentenceCheck) slotBesideName(a atom, ev schemas.Evidence) bool {
	if !slotRelation(a.fact.Relation) || a.fact.Relation == schemas.RelAlias {
		return true
	}
	di, ok := s.idx.byChunk[ev.ChunkID]
	if !ok {
		return false
	}
	p := s.idx.passageAt(di, ev.Span.Start)
	if p < 0 {
		return false
	}
	ps := s.idx.passages[p]
	pass := s.idx.docs[di].norm.rs[ps.ns:ps.ne]
	var names [][]rune
	if len(s.atoms) > 0 && s.atoms[0].fact.Relation == schemas.RelAlias {
		names = append(names, normalize(s.atoms[0].fact.Value).rs)
	} else {
		for n := range s.names {
			names = append(names, []rune(n))
		}
	}
	for _, n := range names {
		if len(n) > 0 && indexNorm(pass, n) >= 0 {
			return true
		}
	}
	return false
}

// examInOwnChunk reports whether evidence for an examination the subject
// passed comes from one of the subject's own chunks (a chunk the KG takes
// a fact of the subject from): 崇祯十三年进士 written of another man does
// not say the subject passed in that year. Other facts, and sentences
// about someone else, take evidence from any chunk.
func (s *sentenceCheck) examInOwnChunk(a atom, ev schemas.Evidence) bool {
	if s.other || a.fact.Relation != schemas.RelJinshi || !s.passed(a) {
		return true
	}
	for _, f := range s.refs.Facts {
		if f.ChunkID == ev.ChunkID {
			return true
		}
	}
	return false
}

// slotRelation reports whether a relation is a slot of an identity
// sentence (name, 字, 号, X人): its clause is the value and little else.
func slotRelation(rel string) bool {
	switch rel {
	case schemas.RelAlias, schemas.RelCourtesyName, schemas.RelArtName, schemas.RelNativePlace:
		return true
	}
	return false
}

// ageNumber reads an age as the text or a sentence writes it: Chinese
// numerals (七十一, 七十有一), digits (71) or English words (seventy-one),
// with a trailing 岁 or "years".
func ageNumber(v string) (int, bool) {
	v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "岁"))
	v = strings.TrimSpace(strings.TrimSuffix(v, "years"))
	if n, ok := era.ParseNumeral(v); ok && v != "元" {
		return n, true
	}
	units := map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
		"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
		"sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
	tens := map[string]int{"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
		"eighty": 80, "ninety": 90}
	w := strings.ToLower(v)
	if n, ok := units[w]; ok {
		return n, true
	}
	t, u, _ := strings.Cut(w, "-")
	n, ok := tens[t]
	if !ok {
		return 0, false
	}
	if u == "" {
		return n, true
	}
	m, ok := units[u]
	return n + m, ok && m < 10
}
