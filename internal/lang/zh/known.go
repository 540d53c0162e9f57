package zh

import (
	"strings"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/factkit"
	"github.com/annalist-dev/annalist/schemas"
)

// knownTimeLeads are clauses that may open a sentence before its subject
// without being one: "十二月，南礼主事周镳上言", "是年，叶向高…".
var knownTimeLeads = wordSet("time_leads")

// knownSentence is a sentence whose subject may be a known person: the
// names it may open with (longest first) and where they start.
type knownSentence struct {
	at, end int
	names   []string
}

// knownSentences lists the sentences of text that open (after a time
// clause at most) with a name-shaped word of two to four characters, and
// lie outside the sections the chunk's own headers attribute. others are
// the names the chunk introduces itself, never taken as known subjects.
func (hz *han) knownSentences(text string, secs []section, others map[string]bool) []knownSentence {
	var out []knownSentence
	sentenceStarts(text, func(at int, _ bool) {
		at += len(text[at:]) - len(strings.TrimLeft(text[at:], " 　\t"))
		end := len(text)
		if j := hanEndSet.Index(text[at:]); j >= 0 {
			end = at + j
		}
		if at >= end || sectionAt(secs, at) != nil && sectionAt(secs, at).head != "" {
			return
		}
		if cl, _, ok := strings.Cut(text[at:end], "，"); ok && hz.timeLead(cl) {
			at += len(cl) + len("，")
		}
		var ks knownSentence
		ks.at, ks.end = at, end
		s := text[at:end]
		for n, i := 0, 0; i < len(s) && n < 4; n++ {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			if n >= 1 && nameLike(s[:i]) && !others[s[:i]] {
				ks.names = append([]string{s[:i]}, ks.names...)
			}
		}
		if len(ks.names) > 0 {
			out = append(out, ks)
		}
	})
	return out
}

// timeLead reports whether a clause is a date or a time word alone.
func (hz *han) timeLead(cl string) bool {
	if knownTimeLeads[cl] {
		return true
	}
	// Every time the patterns below read ends in one of these: a clause
	// that does not is no time, and the era pattern need not run.
	if r, _ := utf8.DecodeLastRuneInString(cl); !strings.ContainsRune("年中末初月春夏秋冬", r) {
		return false
	}
	if hz.times.of(cl).matchesAll(cl) {
		return true
	}
	t := strings.TrimSuffix(strings.TrimPrefix(cl, "闰"), "月")
	return t != cl && t != "" && strings.Trim(t, "正一二三四五六七八九十冬腊") == ""
}

// knownFacts finds the facts of the known persons that open sentences of
// a chunk outside entries: each such sentence becomes a section headed by
// the name as written (the KG writer resolves it by its aliases), and the
// jinshi, office and death patterns run on those sections only, with the
// checks that keep a clause about someone else from being his. Patterns
// are marked ".known".
func knownFacts(hz *han, text string, secs []section, known func(string) bool, add func(factkit.Fact)) {
	others := map[string]bool{}
	if len(secs) > 0 {
		others = secs[0].others
	}
	var ksecs []section
	for _, k := range hz.knownSentences(text, secs, others) {
		for _, n := range k.names {
			if known(n) {
				ksecs = append(ksecs, section{start: k.at, end: k.end, head: n,
					full: utf8.RuneCountInString(n) >= 3, others: others})
				break
			}
		}
	}
	if len(ksecs) == 0 {
		return
	}
	mark := func(f factkit.Fact) {
		f.Pattern += ".known"
		if f.HeadType == "" {
			f.HeadType = schemas.EntityPerson
		}
		if f.Method == "" {
			f.Method = factkit.MethodRegex
		}
		add(f)
	}
	hz.jinshiFacts(text, ksecs, mark)
	hz.officeFacts(text, ksecs, mark)
	hz.deathFacts(text, ksecs, mark)
}
