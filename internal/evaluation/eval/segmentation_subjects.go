package eval

import (
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/schemas"
)

// The subject score reads every entry chunk's subject, main and attached,
// and says whether it is a person's name, with rules of its own,
// independent of the chunker's (see the package documentation, "Subjects").

// NotName is an entry chunk whose subject the subject score does not take
// for a person's name.
type NotName struct {
	Subject  string `json:"subject"`
	Volume   string `json:"volume"`
	Chunk    string `json:"chunk"`
	Attached bool   `json:"attached"`
	// Reason is kinship (a kinship word inside the subject), clause (a
	// name of the volume and more words), surname (a given name completed
	// with a surname neither the text nor the entry gives it) or unshown
	// (neither listed nor written as a person's at the chunk's start).
	Reason string `json:"reason"`
	// Text is the chunk's first characters.
	Text string `json:"text"`
}

// Reasons of a NotName.
const (
	NotNameKinship = "kinship"
	NotNameClause  = "clause"
	NotNameSurname = "surname"
	NotNameUnshown = "unshown"
)

// relativeWords are written before a relative's name and are never part of
// one. Single kinship characters count only after a name of the volume
// ("思诚孙清"): many given names hold 子 or 孙.
var relativeWords = []string{"从子", "从弟", "从兄", "从孙", "从父", "从祖", "族子", "族弟", "族兄", "族孙", "族父", "族叔",
	"养子", "嗣子", "犹子", "世父", "叔父", "伯父", "长子", "次子", "仲子", "季子", "少子", "幼子", "曾孙", "玄孙", "女婿", "外孙"}

// relativeChars are single kinship characters that, after a name, make the
// rest a relative's name.
const relativeChars = "子弟兄孙侄婿甥"

// subjectScore is one volume's share of the subject score.
type subjectScore struct {
	subjects, named, attached, attachedNamed int
	notNames                                 []NotName
}

// scoreSubjects scores the subjects of a volume's entry chunks: body is
// the volume's text without its heading lines, l its listing (every
// heading line), file its name.
func scoreSubjects(body string, l parsed, chunks []schemas.Chunk, file string) subjectScore {
	var s subjectScore
	var names [][]rune // subjects so far and their given names
	addName := func(n []rune) {
		if len(n) == 0 {
			return
		}
		names = append(names, n)
		if g := givenPart(n); len(g) > 0 {
			names = append(names, g)
		}
	}
	for _, c := range chunks {
		if c.Subject == "" {
			continue
		}
		subj := []rune(c.Subject)
		s.subjects++
		if c.Attached {
			s.attached++
		}
		known := slices.Clone(names)
		if c.Main != "" {
			m := []rune(c.Main)
			known = append(known, m)
			if g := givenPart(m); len(g) > 0 {
				known = append(known, g)
			}
		}
		reason := subjectReason(body, l, c, subj, known)
		if reason == "" {
			s.named++
			if c.Attached {
				s.attachedNamed++
			}
		} else {
			s.notNames = append(s.notNames, NotName{Subject: c.Subject, Volume: file, Chunk: c.ChunkID,
				Attached: c.Attached, Reason: reason, Text: snippet([]rune(c.Text), 0)})
		}
		addName(subj)
	}
	return s
}

// givenPart is a name without its first character (the surname of a
// name of two or three characters), nil for a name of one character or
// more than three.
func givenPart(n []rune) []rune {
	if len(n) < 2 || len(n) > 3 {
		return nil
	}
	return n[1:]
}

// subjectReason says why subj, the subject of c, is not a person's name,
// or "" when it is one; known are the names of the volume the subject
// may not begin with. An attached subject the listing writes counts when
// the volume's text writes it too, or it is a given name the listing
// writes completed with the main person's surname: the listing runs
// names together, and a run across two of them ("宇曹元" in "(刘宇曹元)")
// is none.
func subjectReason(body string, l parsed, c schemas.Chunk, subj []rune, known [][]rune) string {
	s := string(subj)
	for _, w := range relativeWords {
		if strings.Contains(s, w) {
			return NotNameKinship
		}
	}
	// A main entry's name as the listing writes it is the listing's.
	if !c.Attached && inListing(l, subj) {
		return ""
	}
	for _, k := range known {
		if len(k) >= len(subj) || !hasRunePrefix(subj, k) || inListing(l, subj) && strings.Contains(body, s) {
			continue
		}
		if strings.ContainsRune(relativeChars, subj[len(k)]) && len(subj) > len(k)+1 {
			return NotNameKinship
		}
		return NotNameClause
	}
	// written reports the name written with the k characters before what
	// the listing or the chunk writes: a surname the main person has, or
	// the name as the volume's text writes it (not the listing, which runs
	// names together).
	written := func(k int) bool {
		if k > 0 {
			if m := []rune(c.Main); len(m) >= k && hasRunePrefix(m, subj[:k]) {
				return true
			}
			if kinOf(c.Text, subj, k, known) {
				return true
			}
		}
		return strings.Contains(body, s)
	}
	completed := false
	for k := 0; k <= 2 && len(subj)-k >= 1; k++ {
		if inListing(l, subj[k:]) {
			if written(k) {
				return ""
			}
			completed = true
		}
	}
	switch shown := shownAsPerson(c.Text, subj); {
	case shown < 0:
	case shown == 0 || written(shown):
		return ""
	default:
		completed = true
	}
	if completed {
		return NotNameSurname
	}
	return NotNameUnshown
}

// kinOf reports whether the chunk's first sentence writes the given name
// subj[k:] right after a kinship word or character after the given name of a
// name of the volume with the surname subj[:k] ("瑜子之陶" for 邱之陶 when
// 邱瑜 is one): the relative bears that surname.
func kinOf(chunkText string, subj []rune, k int, known [][]rune) bool {
	first, _, _ := strings.Cut(chunkText, "。")
	for _, n := range known {
		if len(n) <= k || !hasRunePrefix(n, subj[:k]) {
			continue
		}
		for _, w := range append(strings.Split(relativeChars, ""), relativeWords...) {
			if strings.Contains(first, string(n[k:])+w+string(subj[k:])) {
				return true
			}
		}
	}
	return false
}

// jointClause reports the clause after the names of a joint entry that
// says who they are: a native place, a clan or a banner, or a courtesy
// name; "紫荆、居庸二关，名为关塞" names two passes.
func jointClause(c []rune) bool {
	return nativeClause(c) || clanClause(c) || bannerClause(c) || len(c) > 1 && c[0] == '字'
}

// inListing reports whether the listing writes name: in its main string
// or one of its groups.
func inListing(l parsed, name []rune) bool {
	if text.IndexRunes(l.main, name, 0) >= 0 {
		return true
	}
	for _, g := range l.groups {
		if text.IndexRunes(g, name, 0) >= 0 {
			return true
		}
	}
	return false
}

func hasRunePrefix(s, p []rune) bool {
	if len(p) > len(s) {
		return false
	}
	for i := range p {
		if s[i] != p[i] {
			return false
		}
	}
	return true
}

// shownAsPerson looks in the first sentence of a chunk's text for the
// subject written as a person's: the subject, or the subject without its
// first one or two characters (a given name the chunker completed),
// followed by "，" or "者，" and a clause that says who the person is
// (personClause), or by "、", the other names of a joint entry, "，" and
// a clause that says where they are from or who they are (jointClause). It returns how many characters of the subject the text
// leaves out (0, 1 or 2), or -1 when the sentence does not show it.
func shownAsPerson(chunkText string, subj []rune) int {
	rs := []rune(chunkText)
	end := 0
	for end < len(rs) && rs[end] != '。' && rs[end] != '\n' {
		end++
	}
	first := rs[:end]
	for k := 0; k <= 2 && len(subj)-k >= 1; k++ {
		w := subj[k:]
		for q := text.IndexRunes(first, w, 0); q >= 0; q = text.IndexRunes(first, w, q+1) {
			e := q + len(w)
			if e < len(first) && first[e] == '者' {
				e++
			}
			joint := false
			for e < len(first) && first[e] == '、' {
				// A joint entry: "李志善、志勃，湖南安化人".
				for e++; e < len(first) && text.IsHan(first[e]); e++ {
				}
				joint = true
			}
			if e >= len(first) || first[e] != '，' {
				continue
			}
			if c := clauseFrom(rs, e+1); joint && jointClause(c) || !joint && personClause(c) {
				return k
			}
		}
	}
	return -1
}
