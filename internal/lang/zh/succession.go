package zh

import (
	"strings"
	"unicode/utf8"
)

// Hereditary titles pass from one holder to the next in a sentence of
// their own: "子隐王尚炳嗣" (his son, Prince Yin 尚炳, succeeded), "庶兄怀王志
// 均由渭南王嗣", "子辉祖嗣". What follows is about the heir, up to the next
// succession or the end of the paragraph; a princes' or nobles' entry is
// often a chain of such paragraphs, and none of their deaths or offices is
// the entry person's. The pattern of a succession is the profile's
// (han.reHeir: the kinship words of the heir role).

// succession is a sentence or clause that makes an heir the subject.
type succession struct {
	at, nameEnd int // byte offsets: the kinship word, the end of the name
	kin, name   string
	of          string // the predecessor's name when written before the kinship word
	titled      bool   // the heir is written with a title: the name is his given name
	indirect    bool   // "以其子…", "以再从子…": had someone's relative succeed
}

// successions finds the successions of text, in order.
func (hz *han) successions(text string) []succession {
	var out []succession
	try := func(at int) {
		window := text[at:min(len(text), at+60)]
		if !strings.Contains(window, "嗣") && !strings.Contains(window, "袭") {
			return
		}
		m := hz.reHeir.FindStringSubmatchIndex(window)
		if m == nil {
			return
		}
		name := text[at+m[8] : at+m[9]]
		titled := m[6] >= 0
		if !titled && (kinNameStopSet.In(name) || strings.ContainsRune(kinNameFirstStop, firstRune(name))) {
			return
		}
		sc := succession{at: at, nameEnd: at + m[9], kin: text[at+m[4] : at+m[5]], name: name, titled: titled}
		if m[2] >= 0 {
			sc.of = text[at+m[2] : at+m[3]]
		}
		r, _ := utf8.DecodeRuneInString(window)
		sc.indirect = strings.ContainsRune("以命诏令", r)
		out = append(out, sc)
	}
	try(0)
	for i := 0; i < len(text); {
		j := clauseEnds.Index(text[i:])
		if j < 0 {
			break
		}
		_, size := utf8.DecodeRuneInString(text[i+j:])
		i += j + size
		for i < len(text) && (text[i] == ' ' || strings.HasPrefix(text[i:], "　")) {
			_, size := utf8.DecodeRuneInString(text[i:])
			i += size
		}
		if i < len(text) {
			try(i)
		}
	}
	return out
}

// splitSuccessions gives each succession in secs a section of its own,
// about the heir, up to the next succession, the end of its paragraph or
// the end of the section it sits in; the rest of that section is again
// its person's. The predecessor is the heir of the paragraph just before
// when the succession is in the first sentence of the next one (a title
// passes down a chain of paragraphs: "…永乐三年卒。子俊嗣。\n俊卒，弟杰嗣"),
// else the section's person, unless a continuation chunk merely inherited
// him (a title's history runs through generations of chunks), the
// sentence before was about a relative ("父把思台，…。子胜嗣"), or
// the text says "以其子…" (其 may be whoever was just named); a
// predecessor named before the kinship word ("表荣子端王知烊嗣") must be the
// section's person or, for a prince, is taken as written, and any other
// such sentence ("授法曾孙禄世袭") is not read. A succession after a clause
// with another subject's death ("利死，子麟嗣") is someone else's and is
// not read either. The heir of a same-surname kinship word takes his
// family's surname when it is the entry's (a title stays in the entry's
// family), unless he is written with a title (a prince: his given name).
func (hz *han) splitSuccessions(text, entry string, secs []section) []section {
	esur, _ := hz.surname(entry)
	for _, sc := range hz.successions(text) {
		j := -1
		for k := range secs {
			if sc.at >= secs[k].start && sc.at < secs[k].end {
				j = k
			}
		}
		if j < 0 || hz.othersDeath(text, sc.at, secs[j]) {
			continue
		}
		s := secs[j]
		end := s.end
		if nl := strings.IndexByte(text[sc.at:s.end], '\n'); nl >= 0 {
			end = sc.at + nl
		}
		pred, family := s.head, ""
		switch {
		case s.after != "" && !strings.Contains(text[s.start:sc.at], "。"):
			pred = s.after
			if s.afterFull {
				family = s.after
			}
		case s.inherited:
			pred = ""
			if esur != "" {
				family = s.head
			}
		case s.full:
			family = s.head
		}
		if pred == s.head && hz.foreignPrevious(text, sc.at, &s) {
			// "父把思台，…。子胜嗣": the father's heir.
			pred = ""
		}
		if sc.of != "" {
			if _, g := hz.surname(pred); sc.of != pred && sc.of != g {
				if !sc.titled {
					continue
				}
				pred = sc.of
			}
		}
		if sc.indirect {
			pred = ""
		}
		if esur == "" || !strings.HasPrefix(family, esur) {
			family = ""
		}
		heir := section{start: sc.at, end: end, head: sc.name, pred: pred, kin: sc.kin,
			hdr: &hanHeader{at: sc.at, bodyEnd: sc.nameEnd, end: end, body: sc.name}, others: s.others}
		if sur, _ := hz.surname(family); !sc.titled && sur != "" && utf8.RuneCountInString(sc.name) <= 2 {
			if !strings.HasPrefix(sc.name, sur) {
				heir.head = sur + sc.name
			}
			heir.full = true
		} else if !sc.titled && esur != "" && !hz.fullShape(sc.name) {
			// "子庭竹嗣" where the family's name is not made out: a given
			// name alone names no one in full (a prince's house writes
			// its heirs by given name, and its entry has no surname).
			heir.head = ""
		}
		// A later heir of the same paragraph is the one the next
		// paragraph's succession follows.
		for k := range secs {
			if secs[k].start == end && secs[k].after != "" {
				secs[k].after, secs[k].afterFull = heir.head, heir.full
			}
		}
		var repl []section
		if sc.at > s.start {
			before := s
			before.end = sc.at
			repl = append(repl, before)
		}
		repl = append(repl, heir)
		if end < s.end {
			repl = append(repl, section{start: end, end: s.end, head: s.head, full: s.full, inherited: s.inherited,
				after: heir.head, afterFull: heir.full, others: s.others})
		}
		secs = append(secs[:j], append(repl, secs[j+1:]...)...)
	}
	return secs
}

// othersDeath reports whether the clause before a succession at b, in the
// same sentence, tells the death of someone other than the section's
// person ("利死，子麟嗣").
func (hz *han) othersDeath(text string, b int, s section) bool {
	ss := sentenceStart(text, b, s.start)
	if ss == b {
		return false
	}
	prev := strings.TrimSuffix(text[ss:b], "，")
	cs := clauseStart(text, len(prev)+ss, ss)
	clause := text[cs : ss+len(prev)]
	for _, v := range []string{"死", "卒", "薨", "殁"} {
		if subj, ok := strings.CutSuffix(clause, v); ok && subj != "" && !hz.ownClause(subj, s.head) && !hz.ownClause(subj, s.after) {
			return true
		}
	}
	return false
}
