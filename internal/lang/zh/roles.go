package zh

import (
	_ "embed"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/profile"
)

// Whose is a clause without a subject? Classical Chinese leaves the
// subject out while it stays the same, so a clause like "出为佥事" (was
// sent out as an assistant commissioner) is, by default, about the person
// the section tells of. The sentence can say otherwise, and the readings
// below follow its grammar:
//
//   - Another person is the subject of an earlier clause of the sentence
//     and the text does not come back to the head (by name, given name or
//     其) before the clause: the topic has moved to that person when his
//     own clause tells a step of his career ("之俊举进士，历官登莱监军副
//     使") or the sentence goes on about him for a clause or more ("刘侨者，
//     尝遣戍，……受伪命，为锦衣指挥使"). A person in power written in one
//     clause ("赵南星秉铨，召为考功员外郎") is the background of the
//     head's appointment, not its subject.
//   - The head is the subject of the clause just before and its predicate
//     is one whose subject acts on someone else in the next clause (an
//     agent's predicate, agentsTable: "居正怒，出为佥事"): the one
//     appointed or sent away is the other person the sentence named before
//     ("给事中李涞言其非礼").
//   - "为…所V" is the passive: the title and names between 为 and 所 are
//     the agent's ("为给事中李侃、御史张奎所劾": 李侃 was the supervising
//     secretary). That reading is officeFacts'.
//
// The fact then goes to the other person when the text bounds his name
// (a name the chunk introduces, a given name written in full before, a
// name written again elsewhere in the chunk, a name before 者, or a name
// whose boundary the counts of agentsTable decide), and is dropped when
// it does not: never to the head.

// subjectKind says what opens a clause.
type subjectKind int

const (
	subjNone subjectKind = iota
	subjHead
	subjSovereign
	subjOther
)

// clauseSubject is the subject a clause writes: kind, the other person's
// name when it is bounded ("" if not), and the predicate after it.
type clauseSubject struct {
	kind subjectKind
	name string
	pred string
}

// otherSubject reports whether the clause at b, inside section s, is about
// another person than s.head by the evidence of its sentence, and that
// person's name when the text bounds it ("" when it does not: the fact is
// then dropped). ownClause has already found no subject in the clause
// itself.
func (hz *han) otherSubject(text string, b int, s *section) (name string, other bool) {
	ss := sentenceStart(text, b, s.start)
	if s.hdr != nil && ss <= s.hdr.at {
		return "", false
	}
	if c := strings.LastIndex(text[ss:b], "："); c >= 0 {
		// Speech or a list: read from the words after the colon.
		ss += c + len("：")
	}
	cs := clauseStart(text, b, ss)
	if cs <= ss {
		return "", false
	}
	clauses := strings.Split(strings.TrimRight(text[ss:cs], "，、；： 　"), "，")
	var cur, lastOther clauseSubject
	curAt, since, headRef, otherBefore := -1, 0, false, false
	for i, cl := range clauses {
		sub := hz.clauseSubject(cl, text[s.start:ss], text, s)
		if sub.kind == subjNone {
			since++
			if hz.refersToHead(cl, s.head) {
				headRef = true
			}
			continue
		}
		if cur.kind == subjOther {
			otherBefore = true
		}
		cur, curAt, since = sub, i, 0
		headRef = sub.kind == subjHead || hz.refersToHead(sub.pred, s.head)
		if sub.kind == subjOther {
			lastOther = sub
		}
	}
	// The clause itself may name the head as the verb's object ("擢宗皋右佥
	// 都御史").
	end := clauseEnds.Index(text[b:])
	if end < 0 {
		end = len(text) - b
	}
	if hz.refersToHead(text[cs:b+end], s.head) {
		return "", false
	}
	switch cur.kind {
	case subjOther:
		if hz.agentAfter(clauses[curAt+1:]) || hz.namedAfter(text[b:sentenceEnd(text, b)], cur.name) {
			break
		}
		// A subject written alone ("文选郎王永光、仪制郎张嗣诚，以附政府擢京
		// 卿") has its predicate in the next clause.
		alone := cur.pred == "" || strings.HasPrefix(cur.pred, "、")
		// A person who dies or is killed leaves the sentence to the head
		// ("均用死，以泗州来降").
		if !headRef && !strings.ContainsAny(cur.pred, "死卒薨殁殂") && (since >= 1 || alone || hz.careerStep(cur.pred)) {
			if strings.Contains(cur.pred, "、") {
				return "", true
			}
			return cur.name, true
		}
	case subjHead:
		if curAt == len(clauses)-1 && (otherBefore || lastOther.kind == subjOther && lastOther != cur) &&
			hz.agents.agentive(lastRune(cur.pred)) {
			return lastOther.name, true
		}
	}
	return "", false
}

// clauseSubject reads the subject a clause opens with, after time words
// and connectives: the head (his name or given name), a sovereign, or
// another person written by a name the chunk knows, a given name whose
// full name the text wrote before (before), a title and a name, or a name
// and 者.
func (hz *han) clauseSubject(cl, before, whole string, s *section) clauseSubject {
	cl = strings.TrimLeft(cl, " 　")
	_, g := hz.surname(s.head)
	for range 4 {
		if cl == "" {
			break
		}
		switch {
		case s.head != "" && strings.HasPrefix(cl, s.head):
			return clauseSubject{kind: subjHead, pred: cl[len(s.head):]}
		case g != "" && strings.HasPrefix(cl, g) && (utf8.RuneCountInString(g) >= 2 || len(cl) > len(g) && !hz.startsOffice(cl[len(g):])):
			return clauseSubject{kind: subjHead, pred: cl[len(g):]}
		}
		for _, n := range []int{3, 2, 1} {
			if p := firstRunes(cl, n); p != "" && sovereign(p) {
				return clauseSubject{kind: subjSovereign, pred: cl[len(p):]}
			}
		}
		if sub, ok := hz.otherNamed(cl, before, whole, s); ok {
			return sub
		}
		if loc := hz.times.of(cl).FindStringIndex(cl); loc != nil && loc[1] > 0 {
			cl = strings.TrimLeft(cl[loc[1]:], "，")
			continue
		}
		cut := false
		for _, w := range ownClauseWords {
			if rest, ok := strings.CutPrefix(cl, w); ok {
				cl, cut = rest, true
				break
			}
		}
		if !cut {
			break
		}
	}
	return clauseSubject{}
}

// otherNamed reads another person opening cl: a name the chunk introduces
// or a given name written in full before it, a title and a name ("给事中
// 李涞言其非礼"), or a clause that is a name and 者 ("打儿汉者").
func (hz *han) otherNamed(cl, before, whole string, s *section) (clauseSubject, bool) {
	_, g := hz.surname(s.head)
	isHead := func(n string) bool {
		return n == s.head || n == g || strings.Contains(s.head, n) || strings.Contains(n, s.head)
	}
	// A name the chunk introduces (its headers, relatives, sub-entries).
	for n := range s.others {
		if utf8.RuneCountInString(n) >= 2 && strings.HasPrefix(cl, n) && !isHead(n) {
			if full := hz.fullBefore(before, n); full != "" {
				n2 := full
				return clauseSubject{kind: subjOther, name: n2, pred: cl[len(n):]}, true
			}
			return clauseSubject{kind: subjOther, name: n, pred: cl[len(n):]}, true
		}
	}
	if strings.ContainsRune(coverbs, firstRune(cl)) {
		return clauseSubject{}, false
	}
	// "之俊举进士" after "灵石宋之俊": a given name written in full before.
	if w := firstRunes(cl, 2); w != "" && nameLike(w) && !isHead(w) && !officeBannedSet.In(w) {
		if full := hz.fullBefore(before, w); full != "" && !isHead(full) {
			return clauseSubject{kind: subjOther, name: full, pred: cl[len(w):]}, true
		}
	}
	// "打儿汉者", "故都督掌锦衣卫刘侨者": the clause is a person and 者.
	if rest, ok := strings.CutSuffix(cl, "者"); ok && !officeBannedSet.In(rest) {
		rs := []rune(rest)
		if len(rs) >= 2 && len(rs) <= 4 && nameLike(rest) && !isHead(rest) && hz.agents.surname(rs[0]) {
			return clauseSubject{kind: subjOther, name: rest}, true
		}
		for _, n := range []int{3, 2} {
			if len(rs) > n+1 && hz.officeEnding(rs[:len(rs)-n]) != "" {
				if w := string(rs[len(rs)-n:]); nameLike(w) && !isHead(w) && hz.agents.surname(rs[len(rs)-n]) {
					return clauseSubject{kind: subjOther, name: w}, true
				}
			}
		}
	}
	// A title, then a name of two or three characters, then the predicate.
	rs := []rune(cl)
	for k := min(len(rs)-2, 12); k >= 2; k-- {
		if !hz.cleanTitle(string(rs[:k])) {
			continue
		}
		name, pred, ok := hz.nameAfterTitle(rs[k:], whole)
		if !ok {
			return clauseSubject{}, false
		}
		if name != "" && (isHead(name) || g != "" && strings.HasSuffix(name, g)) {
			return clauseSubject{}, false
		}
		return clauseSubject{kind: subjOther, name: name, pred: pred}, true
	}
	return clauseSubject{}, false
}

// nameAfterTitle reads the name at the start of rs, after a title: two or
// three characters, none of them a character of a clause's words. name is
// "" when neither the text (whole, written elsewhere before a boundary)
// nor the counts bound it (ok still true: a person is named).
func (hz *han) nameAfterTitle(rs []rune, whole string) (name, pred string, ok bool) {
	if len(rs) < 2 || officeBannedSet.In(string(rs[:2])) || kinNameStopSet.In(string(rs[:2])) || !nameLike(string(rs[:2])) ||
		!hz.agents.surname(rs[0]) {
		return "", "", false
	}
	if hz.startsOffice(string(rs)) {
		// "尚书兼…": a longer title, no name.
		return "", "", false
	}
	if len(rs) == 2 {
		return string(rs), "", true
	}
	two, three := string(rs[:2]), string(rs[:min(3, len(rs))])
	switch {
	case rs[2] == '、' || rs[2] == '者' || rs[2] == '等':
		return two, string(rs[2:]), true
	case len(rs) >= 4 && (rs[3] == '、' || rs[3] == '者' || rs[3] == '等'):
		return three, string(rs[3:]), true
	}
	bounded := func(n string) bool {
		for _, r := range "，、。；等者所" {
			if strings.Contains(whole, n+string(r)) {
				return true
			}
		}
		return false
	}
	switch b2, b3 := bounded(two), len(rs) >= 3 && bounded(three); {
	case b3:
		return three, string(rs[3:]), true
	case b2:
		return two, string(rs[2:]), true
	}
	switch hz.agents.nameLength(rs[2]) {
	case 2:
		return two, string(rs[2:]), true
	case 3:
		return three, string(rs[3:]), true
	}
	return "", string(rs[2:]), true
}

// agentAfter reports whether one of the clauses makes someone else an
// office holder ("引为庶吉士": drew him in as a bachelor): the subject
// before them is the agent of an appointment, not its object.
func (hz *han) agentAfter(clauses []string) bool {
	for _, cl := range clauses {
		cl = strings.TrimLeft(cl, " 　")
		r, size := utf8.DecodeRuneInString(cl)
		if rest, ok := strings.CutPrefix(cl[size:], "为"); ok && !officeVerbStart(r) && hz.longestOffice(rest) != "" {
			return true
		}
	}
	return false
}

// namedAfter reports whether the rest of the sentence names the other
// person again ("擢右佥都御史，代广胤": he replaced 刘广胤): the clause's
// subject is not he.
func (hz *han) namedAfter(rest, name string) bool {
	if name == "" {
		return false
	}
	_, g := hz.surname(name)
	return strings.Contains(rest, name) || utf8.RuneCountInString(g) >= 2 && strings.Contains(rest, g)
}

// sentenceEnd returns the offset where the sentence holding b ends.
func sentenceEnd(text string, b int) int {
	if i := sentenceEnds.Index(text[b:]); i >= 0 {
		return b + i
	}
	return len(text)
}

// coverbs open a clause with an object, not a subject: "用大学士杨荣荐",
// "从都督蒋贵征…", "以御史智铤言".
const coverbs = "用以从由与及偕同随率命令使遣请为自代"

// fullBefore returns the full name written in before whose given name is
// w ("宋之俊" for 之俊), after a character that begins names of the
// listings, or where a name can begin (nameStart) and before a boundary
// ("灵石宋之俊、"); "" if none.
func (hz *han) fullBefore(before, w string) string {
	for i := strings.Index(before, w); i >= 0; {
		if r, size := utf8.DecodeLastRuneInString(before[:i]); size > 0 && r != utf8.RuneError {
			after, _ := utf8.DecodeRuneInString(before[i+len(w):])
			if sur, given := hz.surname(string(r) + w); sur != "" && given == w &&
				!strings.ContainsRune(clauseBoundaries+officeBanned, r) &&
				(hz.agents.surname(r) || hz.nameStart(before[:i-size]) && strings.ContainsRune("，、。；者等", after)) {
				return string(r) + w
			}
		}
		j := strings.Index(before[i+len(w):], w)
		if j < 0 {
			break
		}
		i += len(w) + j
	}
	return ""
}

// nameStart reports whether a name may begin right after pre: at a
// clause boundary or after an office title ("推官郎国栋").
func (hz *han) nameStart(pre string) bool {
	r, _ := utf8.DecodeLastRuneInString(pre)
	if pre == "" || strings.ContainsRune(clauseBoundaries, r) {
		return true
	}
	rs := []rune(pre)
	return hz.officeEnding(rs[max(0, len(rs)-10):]) != ""
}

// refersToHead reports whether a clause may speak of the head: it writes
// his name or given name ("言经虽老尚可用" of 周经: a given name of one
// character is often another word, but the reading that keeps the head
// is the safe one), or refers to someone by 其 or 之, who may be he.
func (hz *han) refersToHead(cl, head string) bool {
	if head == "" {
		return false
	}
	_, g := hz.surname(head)
	return strings.Contains(cl, head) || g != "" && strings.Contains(cl, g) || strings.ContainsAny(cl, "其之")
}

// careerStep reports whether a predicate tells a step of its subject's
// own career: a degree or an appointment.
func (hz *han) careerStep(pred string) bool {
	if strings.Contains(pred, "进士") || strings.Contains(pred, "举人") || strings.Contains(pred, "乡举") {
		return true
	}
	for i, r := range pred {
		if officeVerbStart(r) {
			rest := pred[i:]
			if m := officeAt(rest); m != nil && rest[m[2]:m[3]] != "为" && hz.longestOffice(rest[m[4]:m[5]]) != "" {
				return true
			}
		}
	}
	return false
}

// startsOffice reports whether s opens with an office title.
func (hz *han) startsOffice(s string) bool {
	rs := []rune(s)
	for k := min(len(rs), 8); k >= 2; k-- {
		if hz.officePhrase(string(rs[:k])) {
			return true
		}
	}
	return false
}

// firstRunes returns the first n runes of s, or "" if s is shorter.
func firstRunes(s string, n int) string {
	i := 0
	for range n {
		if i >= len(s) {
			return ""
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// agentsTable holds what the corpus counts say of clause roles, read from
// data/clause_roles.tsv (generated from the development volumes
// by TestClauseRolesTable):
//
//   - for the last character of a clause, how often the next clause opens
//     with a verb of appointment or punishment (出, 谪, 擢 …) and how often
//     that verb takes 之, an object other than its subject ("帝怒，下之
//     吏"). A character after which 之 comes far more often than after
//     clauses in general ends an agent's predicate: its subject acts on
//     someone else in the next clause.
//   - for a character, how many names of the listings begin with it: a
//     name read from the text alone must begin with a surname;
//   - for a character after a two-character name, how often it follows a
//     name the volumes' listings write with two characters and how often
//     it is the third of a name they write with three: whether a title
//     and "李涞言" name 李涞 or 李涞言.
type agentsTable struct {
	next            map[rune][2]int // clauses ending with the rune: followed by an appointment verb, with 之
	baseN, baseO    int
	follow, name3   map[rune]int
	followN, name3N int
	first           map[rune]int
}

// surname reports whether a name of the listings begins with r.
func (t *agentsTable) surname(r rune) bool {
	return t != nil && t.first[r] > 0
}

// agentive reports whether clauses ending with r are followed by 之
// significantly more often than clauses in general: the chance of as many
// under the overall rate is below 0.1 % (binomial tail).
func (t *agentsTable) agentive(r rune) bool {
	if t == nil || t.baseN == 0 {
		return false
	}
	c, ok := t.next[r]
	if !ok {
		return false
	}
	return binomialTail(c[0], c[1], float64(t.baseO)/float64(t.baseN)) < 0.001
}

// nameLength says whether the character after a title and two characters
// ends a name of two (2), is the third of a name of three (3), or the
// counts cannot tell (0): the odds, from the listings, must be four to one
// either way.
func (t *agentsTable) nameLength(r rune) int {
	if t == nil || t.followN == 0 || t.name3N == 0 {
		return 0
	}
	f := (float64(t.follow[r]) + 0.5) / float64(t.followN)
	n := (float64(t.name3[r]) + 0.5) / float64(t.name3N)
	switch {
	case f > 4*n:
		return 2
	case n > 4*f:
		return 3
	}
	return 0
}

// binomialTail is P(X ≥ k) for X ~ Binomial(n, p).
func binomialTail(n, k int, p float64) float64 {
	if k <= 0 {
		return 1
	}
	sum := 0.0
	for i := k; i <= n; i++ {
		lg := lgamma(n+1) - lgamma(i+1) - lgamma(n-i+1)
		sum += math.Exp(lg + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p))
	}
	return sum
}

func lgamma(n int) float64 {
	v, _ := math.Lgamma(float64(n))
	return v
}

// ClauseRolesFile holds the counts of agentsTable, counted on the
// liezhuan profile's volumes; the classical-Chinese rules of every
// Chinese profile read them.
const ClauseRolesFile = "clause_roles.tsv"

//go:embed data/clause_roles.tsv
var clauseRoles []byte

// loadAgents reads the counts the Chinese rules of p use.
func loadAgents(p *profile.Profile) (*agentsTable, error) {
	if p.Language != profile.LangChinese {
		return nil, nil
	}
	return parseAgents(clauseRoles)
}

// parseAgents reads clause_roles.tsv: rows "next", a character, the
// clauses it ends that an appointment verb follows, those with 之; rows
// "follow" and "name3", a character and its count; a character "*" gives
// the totals.
func parseAgents(b []byte) (*agentsTable, error) {
	t := &agentsTable{next: map[rune][2]int{}, follow: map[rune]int{}, name3: map[rune]int{}, first: map[rune]int{}}
	err := tsvRows(b, func(line int, f []string) error {
		if len(f) < 3 {
			return fmt.Errorf("%s line %d: want kind, character and counts", ClauseRolesFile, line)
		}
		var ns []int
		for _, s := range f[2:] {
			n, err := strconv.Atoi(s)
			if err != nil {
				return fmt.Errorf("%s line %d: %w", ClauseRolesFile, line, err)
			}
			ns = append(ns, n)
		}
		r, _ := utf8.DecodeRuneInString(f[1])
		total := f[1] == "*"
		switch {
		case f[0] == "next" && len(ns) == 2 && total:
			t.baseN, t.baseO = ns[0], ns[1]
		case f[0] == "next" && len(ns) == 2:
			t.next[r] = [2]int{ns[0], ns[1]}
		case f[0] == "follow" && total:
			t.followN = ns[0]
		case f[0] == "follow":
			t.follow[r] = ns[0]
		case f[0] == "name3" && total:
			t.name3N = ns[0]
		case f[0] == "name3":
			t.name3[r] = ns[0]
		case f[0] == "first":
			t.first[r] = ns[0]
		default:
			return fmt.Errorf("%s line %d: unknown row %q", ClauseRolesFile, line, strings.Join(f, "\t"))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// passiveAgent reads the words after an office written after 为 when the
// clause is the passive "为…所V" ("为给事中李侃、御史张奎所劾"): the office
// is the agent's, and agent is his name, the words up to 、, 等 or 所 when
// they are a name ("" when they are not). ok is false when the clause is
// no passive.
func (hz *han) passiveAgent(after string) (agent string, ok bool) {
	end := strings.IndexAny(after, "，。；：\n")
	if end < 0 {
		end = len(after)
	}
	cl := after[:end]
	i := strings.Index(cl, "所")
	if i <= 0 || utf8.RuneCountInString(cl[:i]) > 16 {
		return "", false
	}
	name := cl[:i]
	if j := strings.IndexAny(name, "、等"); j >= 0 {
		name = name[:j]
	}
	if n := utf8.RuneCountInString(name); n < 2 || n > 4 || !nameLike(name) || officeBannedSet.In(name) {
		return "", true
	}
	return name, true
}

// subjectOf returns the head of a fact found at b in section s, and its
// pattern: s.head and pattern, or the other person the sentence makes the
// clause's subject (otherSubject), with ".other_subject" added; "" when
// the sentence names another person it does not bound.
func (hz *han) subjectOf(text string, b int, s *section, pattern string) (string, string) {
	other, ok := hz.otherSubject(text, b, s)
	switch {
	case !ok:
		return s.head, pattern
	case other == "":
		return "", pattern
	}
	return other, pattern + ".other_subject"
}
