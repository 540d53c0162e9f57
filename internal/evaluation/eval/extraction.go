package eval

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// ExtractFunc is the extractor under test: the triplets of one chunk.
type ExtractFunc func(ctx context.Context, c schemas.Chunk) ([]schemas.Triplet, error)

// ExtractionRelations are the relations Extraction scores, in report order.
var ExtractionRelations = []string{
	schemas.RelCourtesyName, schemas.RelNativePlace, schemas.RelJinshi, schemas.RelDeath, schemas.RelDeathAge,
}

// RelationScore is one relation's score over the entries of a split.
//
// Gold are the values read from the text (see Extraction);
// Found the gold values some prediction equals. Predicted are the
// distinct values the extractor gives the entry's person from chunks of
// his entry; each is Correct (it equals a gold value), Wrong (the entry has
// gold for the relation and the value is not one of them), Supported (the
// entry has no gold for the relation, but the value is written in a
// sentence of the person's own text with the relation's cue: 字X, X人,
// X…进士, X卒, 年X) or Unsupported (neither). Precision counts Correct and
// Supported as right and the rest as wrong; PrecisionGold is
// Correct / (Correct + Wrong), on the entries that have gold.
type RelationScore struct {
	Gold          int     `json:"gold"`
	Found         int     `json:"found"`
	Recall        float64 `json:"recall"`
	Predicted     int     `json:"predicted"`
	Correct       int     `json:"correct"`
	Wrong         int     `json:"wrong"`
	Supported     int     `json:"supported"`
	Unsupported   int     `json:"unsupported"`
	Precision     float64 `json:"precision"`
	PrecisionGold float64 `json:"precision_gold"`
}

// ExtractionSplit is the score of a set of volumes.
type ExtractionSplit struct {
	Volumes   int                      `json:"volumes"`
	Entries   int                      `json:"entries"`
	Relations map[string]RelationScore `json:"relations"`
}

// AttachedScore measures the people named in parentheses on line 1: how
// many get facts of their own. Listed are the people read from the
// groups (see attachedPeople); WithFact those who head at least
// one fact besides a mention; OwnEntry those who head one in a chunk of
// their own entry (an attached chunk, or one whose sub-entry is theirs).
type AttachedScore struct {
	Volumes       int     `json:"volumes"`
	Listed        int     `json:"listed"`
	WithFact      int     `json:"with_fact"`
	Share         float64 `json:"share"`
	OwnEntry      int     `json:"own_entry"`
	OwnEntryShare float64 `json:"own_entry_share"`
	// Opening are the listed people whose name (or the name as the
	// listing writes it, after a kinship word) opens a sentence of the
	// volume, "Name，…": people with text of their own, not only named in
	// passing; OpeningWithFact those of them with a fact.
	Opening         int      `json:"opening"`
	OpeningWithFact int      `json:"opening_with_fact"`
	OpeningShare    float64  `json:"opening_share"`
	Missing         []string `json:"missing,omitempty"`
}

// ExtractionError is one prediction counted wrong or unsupported, or one
// gold value not found, for reading.
type ExtractionError struct {
	File     string   `json:"file"`
	Person   string   `json:"person"`
	Relation string   `json:"relation"`
	Kind     string   `json:"kind"` // wrong, unsupported, missed
	Value    string   `json:"value"`
	Gold     []string `json:"gold,omitempty"`
}

// ExtractionReport is the result of Extraction: the development volumes
// (DevRest: those not held out), the held-out volumes (every third volume
// in file order, see heldOutVolume), all of them, and the attached
// persons.
type ExtractionReport struct {
	DevRest  ExtractionSplit `json:"dev_rest"`
	HeldOut  ExtractionSplit `json:"held_out"`
	All      ExtractionSplit `json:"all"`
	Attached AttachedScore   `json:"attached"`
	// AttachedHeldOut is Attached on the held-out volumes alone.
	AttachedHeldOut AttachedScore     `json:"attached_held_out"`
	Errors          []ExtractionError `json:"errors,omitempty"`
}

// heldOutVolume reports whether the i-th volume in file order (from 0) is
// held out: its file name is a number whose rank among the numbered
// volumes is divisible by 3 (the 1st, 4th, 7th …). A rank, not the number
// itself: a development set may already leave out the numbers divisible
// by 3. Files without a number are never held out.
func heldOutVolume(file string, rank int) bool {
	base := strings.TrimSuffix(path.Base(file), path.Ext(file))
	_, err := strconv.Atoi(base)
	return err == nil && rank%3 == 0
}

// Extraction chunks every volume under dir with chunk, extracts every
// chunk with extract, and scores the facts of each entry's person against
// the gold read from the entry's text. progress, when not nil, is called
// after each volume.
//
// An entry is a chunk with a subject (a main or an attached person's
// entry) and the chunks that continue it. Its person's predictions are the
// distinct tails of the triplets whose head is the subject and whose entry
// chunk is the entry's. The gold, read from the text alone:
//
//   - courtesy name and native place: the clauses of the entry's opening
//     sentence after the name, in order, while they are 字X (courtesy
//     name), another name (号, 名, 初名, 小字, X氏, 以字行) or X人 (native
//     place, which ends the reading; X举人 is a degree, not a place). 以字行
//     without a 字 clause makes the given name the courtesy name;
//   - jinshi: an era date followed by 进士 or a first place in the
//     metropolitan or palace examination (会试第一, 殿试第三人), in the
//     first four of the person's own sentences of the chunk that begins
//     the entry (ownSentences);
//   - death and age at death: the last death formula in the person's own
//     sentences of the whole entry: a clause ending in 卒 or 薨 (optionally
//     于 and a place) whose words before the verb are only his name, a time
//     and adverbs, or that follows a clause that is a time alone; its time
//     is the death, and an age written with it (卒，年七十一; 年七十一卒) the
//     age at death.
func Extraction(ctx context.Context, dir string, chunk ChunkFunc, extract ExtractFunc,
	progress func(done, total int)) (ExtractionReport, error) {
	var rep ExtractionReport
	files, err := producers.Walk([]string{dir}, producers.Options{})
	if err != nil {
		return rep, fmt.Errorf("extraction: %w", err)
	}
	g := newGoldReader()
	dev, held := newSplitCounts(), newSplitCounts()
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		items, errs := producers.Read(f, producers.Options{})
		if len(errs) > 0 {
			return rep, fmt.Errorf("extraction: read %s: %w", f.Rel, errs[0])
		}
		for _, it := range items {
			chunks, err := chunk(ctx, it.Doc)
			if err != nil {
				return rep, fmt.Errorf("extraction: chunk %s: %w", f.Rel, err)
			}
			var triplets []schemas.Triplet
			for _, c := range chunks {
				ts, err := extract(ctx, c)
				if err != nil {
					return rep, fmt.Errorf("extraction: extract %s: %w", c.ChunkID, err)
				}
				triplets = append(triplets, ts...)
			}
			sc := dev
			if heldOutVolume(f.Rel, i) {
				sc = held
			}
			sc.volumes++
			rep.Errors = append(rep.Errors, g.scoreVolume(f.Rel, chunks, triplets, sc)...)
			g.scoreAttached(it.Doc.Text, chunks, triplets, &rep.Attached)
			if sc == held {
				g.scoreAttached(it.Doc.Text, chunks, triplets, &rep.AttachedHeldOut)
			}
		}
		if progress != nil {
			progress(i+1, len(files))
		}
	}
	rep.DevRest, rep.HeldOut = dev.split(), held.split()
	all := newSplitCounts()
	all.add(dev)
	all.add(held)
	rep.All = all.split()
	for _, a := range []*AttachedScore{&rep.Attached, &rep.AttachedHeldOut} {
		a.Share = ratio(a.WithFact, a.Listed)
		a.OwnEntryShare = ratio(a.OwnEntry, a.Listed)
		a.OpeningShare = ratio(a.OpeningWithFact, a.Opening)
	}
	return rep, nil
}

type splitCounts struct {
	volumes, entries int
	rels             map[string]*RelationScore
}

func newSplitCounts() *splitCounts {
	s := &splitCounts{rels: map[string]*RelationScore{}}
	for _, r := range ExtractionRelations {
		s.rels[r] = &RelationScore{}
	}
	return s
}

func (s *splitCounts) add(o *splitCounts) {
	s.volumes += o.volumes
	s.entries += o.entries
	for r, x := range o.rels {
		y := s.rels[r]
		y.Gold += x.Gold
		y.Found += x.Found
		y.Predicted += x.Predicted
		y.Correct += x.Correct
		y.Wrong += x.Wrong
		y.Supported += x.Supported
		y.Unsupported += x.Unsupported
	}
}

func (s *splitCounts) split() ExtractionSplit {
	out := ExtractionSplit{Volumes: s.volumes, Entries: s.entries, Relations: map[string]RelationScore{}}
	for r, x := range s.rels {
		v := *x
		v.Recall = ratio(v.Found, v.Gold)
		v.Precision = ratio(v.Correct+v.Supported, v.Predicted)
		v.PrecisionGold = ratio(v.Correct, v.Correct+v.Wrong)
		out.Relations[r] = v
	}
	return out
}

// goldReader reads the gold of an entry from its text.
type goldReader struct {
	eras *era.Table
}

func newGoldReader() *goldReader { return &goldReader{eras: era.Default()} }

// entryText is one person's entry: the chunk that begins it and the
// continuation chunks cut from it, in order.
type entryText struct {
	person string
	chunk  string
	text   string
	first  string // the text of the chunk that begins the entry
}

// entries groups a volume's chunks by the entry they belong to, and says
// which entry each chunk is in (of): a chunk with a subject begins an
// entry (main or attached); a chunk without one continues the attached
// entry of the person it names in SubEntry, or else the main entry that
// begins at its EntryChunk (an attached person's chunks keep the main
// person's EntryChunk, so the main person's text after them is his again).
func entries(chunks []schemas.Chunk) (out []entryText, of map[string]int) {
	of = map[string]int{}
	byChunk := map[string]int{}
	for _, c := range chunks {
		i, ok := -1, false
		switch {
		case c.Subject != "":
			out = append(out, entryText{person: c.Subject, chunk: c.ChunkID, text: c.Text, first: c.Text})
			i = len(out) - 1
			byChunk[c.ChunkID] = i
			of[c.ChunkID] = i
			continue
		case c.SubEntry != "" && len(out) > 0 && out[len(out)-1].person == c.SubEntry:
			i, ok = len(out)-1, true
		case c.SubEntry == "":
			i, ok = byChunk[c.EntryChunk]
		}
		if ok {
			out[i].text += "\n" + c.Text
			of[c.ChunkID] = i
		}
	}
	return out, of
}

// scoreVolume scores the entries of one volume into sc and returns the
// errors to read.
func (g *goldReader) scoreVolume(file string, chunks []schemas.Chunk, triplets []schemas.Triplet, sc *splitCounts) []ExtractionError {
	type key struct {
		entry int
		rel   string
	}
	es, of := entries(chunks)
	pred := map[key][]string{}
	for _, t := range triplets {
		i, in := of[t.ChunkID]
		k := key{i, t.Relation}
		if _, ok := sc.rels[t.Relation]; !ok || !in || slices.Contains(pred[k], t.Head+"\x00"+t.Tail) {
			continue
		}
		// Only facts whose head is the entry's person count: the person
		// the entry chunk names.
		pred[k] = append(pred[k], t.Head+"\x00"+t.Tail)
	}
	var errs []ExtractionError
	for ei, e := range es {
		sc.entries++
		gold := g.gold(e)
		own := g.ownSentences(e)
		for _, rel := range ExtractionRelations {
			rs := sc.rels[rel]
			var vals []string
			for _, ht := range pred[key{ei, rel}] {
				h, t, _ := strings.Cut(ht, "\x00")
				if h == e.person && !slices.Contains(vals, t) {
					vals = append(vals, t)
				}
			}
			gs := gold[rel]
			rs.Gold += len(gs)
			for _, v := range gs {
				if slices.ContainsFunc(vals, func(p string) bool { return sameGold(rel, v, p) }) {
					rs.Found++
				} else {
					errs = append(errs, ExtractionError{File: file, Person: e.person, Relation: rel, Kind: "missed", Value: v})
				}
			}
			for _, v := range vals {
				rs.Predicted++
				switch {
				case slices.ContainsFunc(gs, func(x string) bool { return sameGold(rel, x, v) }):
					rs.Correct++
				case len(gs) > 0:
					rs.Wrong++
					errs = append(errs, ExtractionError{File: file, Person: e.person, Relation: rel, Kind: "wrong", Value: v, Gold: gs})
				case g.cued(own, rel, v):
					rs.Supported++
				default:
					rs.Unsupported++
					errs = append(errs, ExtractionError{File: file, Person: e.person, Relation: rel, Kind: "unsupported", Value: v})
				}
			}
		}
	}
	return errs
}

var (
	reGoldZi    = regexp.MustCompile(`^(?:一字|又字|更字|字)(\p{Han}{1,3})$`)
	reGoldName  = regexp.MustCompile(`^(?:自号|别号|号|一名|初名|原名|本名|旧名|名|小字|小名)\p{Han}{1,5}$|^\p{Han}{1,4}氏$|^以字行$`)
	reGoldPlace = regexp.MustCompile(`^(?:其先|先世)?(?:亦|本)?(\p{Han}{1,8}?)人$`)
	// reGoldTime is a time without an era: 二年, 二年十二月, 十年春.
	reGoldTime = regexp.MustCompile(`^(?:元|[〇一二三四五六七八九十]{1,3})年(?:(?:正|闰?[一二三四五六七八九十]{1,2}|冬|腊)月)?[春夏秋冬]?$`)
	// reGoldMonth is what may follow an era date in a death's time.
	reGoldMonth = regexp.MustCompile(`^(?:(?:正|闰?[一二三四五六七八九十]{1,2}|冬|腊)月)?[春夏秋冬]?$`)
	reGoldAge   = regexp.MustCompile(`^年([一二三四五六七八九十百]{1,4}(?:有[一二三四五六七八九])?)$`)
)

// kinLead are the words that open a sentence about a relative (父朝荣，…).
var kinLead = []string{"其", "曾祖", "高祖", "祖", "父", "母", "妻", "从子", "从孙", "从弟", "从兄", "族子", "族孙",
	"长子", "次子", "季子", "养子", "嗣子", "曾孙", "子", "孙", "弟", "兄", "侄", "叔", "伯", "女", "婿"}

// deathAdverbs may stand between a death's time and 卒.
var deathAdverbs = []string{"以疾", "以病", "寻", "遂", "竟", "未几", "俄", "已而", "亦", "乃", "即", "病"}

// gold reads an entry's gold values: the opening sentence's courtesy
// names and native place, the jinshi year of the opening sentences and
// the closing death formula's time and age.
func (g *goldReader) gold(e entryText) map[string][]string {
	out := map[string][]string{}
	first, _, _ := strings.Cut(e.first, "。")
	first, _, _ = strings.Cut(first, "\n")
	cls := strings.Split(strings.TrimSpace(first), "，")
	byCourtesy := false
	for _, cl := range cls[1:] {
		if m := reGoldZi.FindStringSubmatch(cl); m != nil {
			out[schemas.RelCourtesyName] = append(out[schemas.RelCourtesyName], m[1])
			continue
		}
		if cl == "以字行" {
			byCourtesy = true
		}
		if reGoldName.MatchString(cl) {
			continue
		}
		if m := reGoldPlace.FindStringSubmatch(cl); m != nil && !strings.HasSuffix(m[1], "举") {
			out[schemas.RelNativePlace] = append(out[schemas.RelNativePlace], m[1])
		}
		break
	}
	// "吴伯宗，名祐，以字行": the name he is known by is his courtesy name.
	if byCourtesy && len(out[schemas.RelCourtesyName]) == 0 && utf8.RuneCountInString(e.person) >= 2 {
		_, size := utf8.DecodeRuneInString(e.person)
		out[schemas.RelCourtesyName] = []string{e.person[size:]}
	}
	for i, s := range g.openingSentences(e) {
		if i >= 4 {
			break
		}
		if y := g.jinshiIn(s); y != "" && !slices.Contains(out[schemas.RelJinshi], y) {
			out[schemas.RelJinshi] = append(out[schemas.RelJinshi], y)
		}
	}
	var t, a string
	for _, s := range g.ownSentences(e) {
		if dt, da, ok := g.deathIn(s, e.person); ok {
			t, a = dt, da
		}
	}
	if t != "" {
		out[schemas.RelDeath] = []string{t}
	}
	if a != "" {
		out[schemas.RelDeathAge] = []string{a}
	}
	return out
}

// openingSentences are the sentences of the chunk that begins the entry,
// from the first on, that are the person's own (see ownSentences).
func (g *goldReader) openingSentences(e entryText) []string {
	return g.own(e.first, e.person)
}

// ownSentences are the sentences of the person's whole entry that may be
// about him: not those that open with a kinship word (父朝荣，…) unless
// the word is followed by his given name (子龙，… in 姜龙's entry), nor,
// after a sentence that names a relative that way or tells a succession
// (子隐王尚炳嗣), the sentences of its paragraph until one opens with his
// name or given name, nor the historian's appraisal (赞曰).
func (g *goldReader) ownSentences(e entryText) []string { return g.own(e.text, e.person) }

func (g *goldReader) own(text, person string) []string {
	given := ""
	if utf8.RuneCountInString(person) >= 2 {
		_, size := utf8.DecodeRuneInString(person)
		given = person[size:]
	}
	var out []string
	for _, para := range strings.Split(text, "\n") {
		other := false
		for _, s := range strings.Split(para, "。") {
			s = strings.TrimSpace(s)
			if s == "" || strings.HasPrefix(s, "赞曰") {
				continue
			}
			if strings.HasPrefix(s, person) || given != "" && strings.HasPrefix(s, given) {
				out, other = append(out, s), false
				continue
			}
			k := slices.IndexFunc(kinLead, func(k string) bool { return strings.HasPrefix(s, k) })
			switch {
			case k >= 0 && given != "" && strings.HasPrefix(s[len(kinLead[k]):], given):
				// "子龙，字梦宾" in 姜龙's own entry names him.
				out, other = append(out, s), false
			case k >= 0:
				// "父升，字志高，…" introduces the father: the sentences
				// after it without a subject are his ("嘉靖十四年进士").
				// "父授之书" does not.
				// So does a succession ("子隐王尚炳嗣"): the heir is the
				// subject after it.
				rest := s[len(kinLead[k]):]
				other = other || reKinNamed.MatchString(rest) && !reKinSaid.MatchString(rest) || strings.ContainsAny(rest, "嗣袭")
			case !other:
				out = append(out, s)
			}
		}
	}
	return out
}

// reKinNamed is a relative's name after a kinship word: one or two
// characters and a comma.
var reKinNamed = regexp.MustCompile(`^\p{Han}{1,2}[，、]`)

// reKinSaid is a statement about a relative, not a name: "父农也" (his
// father was a farmer).
var reKinSaid = regexp.MustCompile(`^\p{Han}?[也矣者][，、]`)

// jinshiIn returns the era year of "X年进士" in a sentence (举万历十一年进士,
// 万历二十年进士, 嘉靖中进士), or "".
func (g *goldReader) jinshiIn(s string) string {
	for _, d := range g.eras.Find(s) {
		rs := []rune(s)
		rest := string(rs[d.End:])
		rest = strings.TrimLeft(rest, "，、")
		for _, w := range []string{"又", "复"} {
			rest = strings.TrimPrefix(rest, w)
		}
		for _, w := range []string{"举", "成", "登", "中"} {
			rest = strings.TrimPrefix(rest, w)
		}
		for _, w := range []string{"进士", "会试第", "廷试第", "殿试第"} {
			if strings.HasPrefix(rest, w) {
				return d.Text
			}
		}
	}
	return ""
}

// deathIn reads a death formula in one of the person's sentences: a
// clause that ends in 卒 or 薨 (optionally 于 and a place) whose words
// before the verb are only the person's name, a time and adverbs, or that
// follows a clause that is a time alone ("十年，卒于官"); and an age
// written with it (卒，年七十一; 年七十一卒).
func (g *goldReader) deathIn(s, person string) (timeS, age string, ok bool) {
	cls := strings.FieldsFunc(s, func(r rune) bool { return r == '，' || r == '；' })
	given := ""
	if utf8.RuneCountInString(person) >= 2 {
		_, size := utf8.DecodeRuneInString(person)
		given = person[size:]
	}
	for i, cl := range cls {
		v := strings.IndexAny(cl, "卒薨")
		if v < 0 {
			continue
		}
		after := cl[v+len("卒"):]
		if after != "" && !strings.HasPrefix(after, "于") && !reGoldAge.MatchString("年"+strings.TrimPrefix(after, "年")) {
			continue
		}
		if strings.HasPrefix(after, "于") && utf8.RuneCountInString(after) > 5 {
			continue
		}
		p := cl[:v]
		p = strings.TrimPrefix(p, person)
		if given != "" {
			p = strings.TrimPrefix(p, given)
		}
		a := ""
		if j := strings.Index(p, "年"); j >= 0 {
			if m := reGoldAge.FindStringSubmatch(p[j:]); m != nil && (j == 0 || g.isTime(p[:j])) {
				a, p = m[1], p[:j]
			}
		}
		for changed := true; changed; {
			changed = false
			for _, w := range deathAdverbs {
				if strings.HasSuffix(p, w) {
					p, changed = strings.TrimSuffix(p, w), true
				}
			}
		}
		switch {
		case p == "":
			if i > 0 && g.isTime(cls[i-1]) {
				p = cls[i-1]
			}
		case !g.isTime(p):
			continue
		}
		if a == "" {
			if strings.HasPrefix(after, "年") {
				if m := reGoldAge.FindStringSubmatch(after); m != nil {
					a = m[1]
				}
			} else if i+1 < len(cls) {
				if m := reGoldAge.FindStringSubmatch(cls[i+1]); m != nil {
					a = m[1]
				}
			}
		}
		if p == "" && a == "" {
			continue
		}
		timeS, age, ok = p, a, true
	}
	return timeS, age, ok
}

// isTime reports whether s is a time alone: an era date (万历五年, 万历中)
// or a year of the era in course (二年十二月), with a month or a season.
func (g *goldReader) isTime(s string) bool {
	if reGoldTime.MatchString(s) {
		return true
	}
	ds := g.eras.Find(s)
	if len(ds) != 1 || ds[0].Start != 0 {
		return false
	}
	return reGoldMonth.MatchString(string([]rune(s)[ds[0].End:]))
}

// cued reports whether a value is written with its relation's cue in one
// of the person's own sentences.
func (g *goldReader) cued(sentences []string, rel, v string) bool {
	for _, s := range sentences {
		switch rel {
		case schemas.RelCourtesyName:
			if strings.Contains(s, "字"+v) {
				return true
			}
		case schemas.RelNativePlace:
			if strings.Contains(s, v+"人") || strings.Contains(s, v+"举人") {
				return true
			}
		case schemas.RelJinshi:
			if g.jinshiIn(s) == v {
				return true
			}
		case schemas.RelDeath:
			if i := strings.Index(s, v); i >= 0 && strings.ContainsAny(firstRunes(s[i+len(v):], 4), "卒薨") {
				return true
			}
		case schemas.RelDeathAge:
			if strings.Contains(s, "年"+v) && strings.ContainsAny(s, "卒薨") {
				return true
			}
		}
	}
	return false
}

// firstRunes is the first n runes of s.
func firstRunes(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// listedPerson is a person named in a parenthesised group of line 1: the
// full name, and the name as the listing writes it (the given name after
// a kinship word: 琏 of "子琏璟").
// listedPerson is a person a group names: full, the name as read (with
// the main person's surname when the group writes a relative's given
// name), written, as the group writes it, and alt, the same-surname
// reading of a name the group leaves ambiguous: a two-character name that
// may be a relative's given name ("(孙大顺大临)": 陶大临), or a name
// opening with 孙, which is a surname and the word for grandson ("秦金
// (孙柱)": 秦柱).
type listedPerson struct{ full, written, alt string }

// listingGroups reads line 1 as parseListing does, and gives each
// parenthesised group with the main string before it.
func listingGroups(line string) (groups [][]rune, before [][]rune) {
	depth := 0
	var main, cur []rune
	for _, r := range line {
		switch {
		case r == '(' || r == '（':
			if depth == 0 {
				cur = nil
			}
			depth++
		case r == ')' || r == '）':
			if depth > 0 {
				depth--
				if depth == 0 && len(cur) > 0 {
					groups = append(groups, cur)
					before = append(before, slices.Clone(main))
				}
			}
		case r == ' ' || r == '　' || r == '\t' || r == '◎' || r == '○' || r == '△' || r == '·':
		case depth > 0:
			cur = append(cur, r)
		default:
			main = append(main, r)
		}
	}
	return groups, before
}

// attachedPeople reads the people of a volume's parenthesised groups, with
// the volume's text (line 1 excluded) as evidence of where names end:
// a group is cut into full names the text writes, kinship words, given
// names after a kinship word (completed with the surname of the main
// person the group follows) and the main person's given name before a
// kinship word ("瑜子之陶"); the cut with the fewest, most usual names
// wins. A group no cut explains is left out.
func attachedPeople(docText string) []listedPerson {
	line, body, _ := strings.Cut(docText, "\n")
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "◎") {
		return nil
	}
	groups, before := listingGroups(line)
	var out []listedPerson
	for gi, g := range groups {
		if hasSentencePunct(strings.TrimRight(string(g), "。")) {
			continue
		}
		main := mainBefore(before[gi], body)
		// "(沈懋学懋学从孙寿民)": 沈懋学, then his grandnephew 寿民, a
		// relative of the person the group names before, not of main.
		if i, n, k := relativeOf(g, body); k > 0 {
			out = append(out, cutGroup(g[:i+n], main, body)...)
			out = append(out, cutGroup(g[i+n+k:], string(g[i:i+n]), body)...)
			continue
		}
		out = append(out, siblings(cutGroup(g, main, body))...)
	}
	return out
}

// relativeOf finds in a group a name the text writes, followed by its
// given name and a kinship word: "孙孟明孟明子邦辅" (孙孟明, and 孟明's son
// 邦辅). It returns the name's offset i and length n, and the length k of
// the given name repeated (0 if the group has no such run).
func relativeOf(g []rune, body string) (i, n, k int) {
	for i := 0; i < len(g); i++ {
		for n := 3; n >= 2; n-- {
			if i+n+n-1 > len(g) || !strings.Contains(body, string(g[i:i+n])) {
				continue
			}
			given := g[i+1 : i+n]
			rest := g[i+n:]
			if len(rest) <= len(given) || !slices.Equal(rest[:len(given)], given) {
				continue
			}
			after := string(rest[len(given):])
			if slices.ContainsFunc(groupKin, func(w string) bool { return strings.HasPrefix(after, w) && len([]rune(after)) > len([]rune(w)) }) {
				return i, n, len(given)
			}
		}
	}
	return 0, 0, 0
}

// siblings completes a given name the cut left alone with the surname of
// the full name before it in the group when the two share a generation
// character: "(钱士升士晋)" lists 钱士升 and his brother 钱士晋.
func siblings(ps []listedPerson) []listedPerson {
	for i := 1; i < len(ps); i++ {
		p, q := []rune(ps[i].full), []rune(ps[i-1].full)
		if ps[i].full == ps[i].written && len(p) == 2 && len(q) == 3 && q[1] == p[0] && !slices.Contains(groupKin, string(q[0])) {
			ps[i].full = string(q[0]) + ps[i].full
		}
		if ps[i].alt == ps[i].full {
			ps[i].alt = ""
		}
	}
	return ps
}

// mainBefore is the main person a group follows: the longest name (four
// to two characters) ending the main string before it that opens a
// paragraph of the text.
func mainBefore(m []rune, body string) string {
	for l := 4; l >= 2; l-- {
		if len(m) < l {
			continue
		}
		n := string(m[len(m)-l:])
		if strings.HasPrefix(body, n+"，") || strings.Contains(body, "\n"+n+"，") {
			return n
		}
	}
	if len(m) >= 3 {
		return string(m[len(m)-3:])
	}
	return string(m)
}

// groupKin are the kinship words a group writes before a relative's given
// name, longest first where one begins another.
var groupKin = []string{"从子", "从孙", "从弟", "从兄", "从父", "从祖", "族子", "族孙", "族父", "族叔", "族兄", "族弟", "曾孙", "子", "孙", "弟", "兄", "侄", "父", "叔", "婿", "甥"}

func cutGroup(g []rune, main, body string) []listedPerson {
	type state struct {
		cost   float64
		ok     bool
		prev   int
		prevK  bool
		person *listedPerson
	}
	surname, given := "", ""
	if rs := []rune(main); len(rs) >= 2 {
		surname, given = string(rs[:1]), string(rs[1:])
	}
	n := len(g)
	// best[i][k]: the cheapest cut of g[:i]; k says a kinship word came.
	best := make([][2]state, n+1)
	best[0][0] = state{ok: true}
	relax := func(i, j int, k bool, cost float64, p *listedPerson, fromK bool) {
		ki := 0
		if k {
			ki = 1
		}
		from := best[i][0]
		if fromK {
			from = best[i][1]
		}
		c := from.cost + cost
		if cur := best[j][ki]; !cur.ok || c < cur.cost {
			best[j][ki] = state{cost: c, ok: true, prev: i, prevK: fromK, person: p}
		}
	}
	for i := 0; i < n; i++ {
		for _, fromK := range []bool{false, true} {
			st := best[i][0]
			if fromK {
				st = best[i][1]
			}
			if !st.ok {
				continue
			}
			if strings.ContainsRune("等。，、", g[i]) {
				relax(i, i+1, fromK, 0, nil, fromK)
			}
			for l, cost := range map[int]float64{3: 1, 2: 1.05, 4: 1.1} {
				if i+l > n || strings.ContainsAny(string(g[i:i+l]), "等〈〉") {
					continue
				}
				w := string(g[i : i+l])
				p := &listedPerson{full: w, written: w}
				// 士晋 after 钱士升: a brother by his given name, who shares
				// the generation character.
				if gr := []rune(given); l == 2 && len(gr) == 2 && g[i] == gr[0] && surname != "" {
					p.full = surname + w
				}
				switch {
				case surname == "" || p.full != w:
				case g[i] == '孙' && l <= 3:
					p.alt = surname + string(g[i+1:i+l])
				case l == 2:
					p.alt = surname + w
				}
				kinFirst := slices.ContainsFunc(groupKin, func(k string) bool { return k != "孙" && strings.HasPrefix(w, k) })
				switch {
				case !strings.Contains(body, w):
				case kinFirst:
					// "子龙，字梦宾" opens the son's entry, yet 子 is his
					// relation to the main person, not his surname.
					relax(i, i+l, fromK, cost+0.2, p, fromK)
				case strings.HasPrefix(body, w+"，") || strings.Contains(body, "\n"+w+"，"):
					// The name opens a paragraph: a person's entry.
					relax(i, i+l, fromK, cost-0.3, p, fromK)
				default:
					relax(i, i+l, fromK, cost, p, fromK)
				}
			}
			for _, k := range groupKin {
				if kr := []rune(k); i+len(kr) <= n && string(g[i:i+len(kr)]) == k {
					relax(i, i+len(kr), true, 0.02, nil, fromK)
				}
			}
			if given != "" {
				if gr := []rune(given); i+len(gr) < n && string(g[i:i+len(gr)]) == given {
					relax(i, i+len(gr), fromK, 0.01, nil, fromK)
				}
			}
			if !fromK {
				continue
			}
			for l := 1; l <= 2 && i+l <= n; l++ {
				w := string(g[i : i+l])
				if strings.ContainsAny(w, "等。，、") {
					continue
				}
				seen := strings.Contains(body, surname+w) || strings.Contains(body, w+"，字")
				if l == 2 {
					seen = seen || strings.Contains(body, w)
				}
				for _, k := range groupKin {
					seen = seen || strings.Contains(body, k+w)
				}
				if seen {
					relax(i, i+l, true, 0.9, &listedPerson{full: surname + w, written: w}, true)
				}
			}
		}
	}
	end := best[n][0]
	endK := false
	if b := best[n][1]; b.ok && (!end.ok || b.cost < end.cost) {
		end, endK = b, true
	}
	if !end.ok {
		return nil
	}
	var out []listedPerson
	for i, k := n, endK; i > 0; {
		st := best[i][0]
		if k {
			st = best[i][1]
		}
		if st.person != nil {
			out = append(out, *st.person)
		}
		i, k = st.prev, st.prevK
	}
	slices.Reverse(out)
	return out
}

// scoreAttached adds a volume's listed attached people to sc: whether
// each heads a fact besides a mention, and whether one such fact comes
// from a chunk of his own entry.
func (g *goldReader) scoreAttached(docText string, chunks []schemas.Chunk, triplets []schemas.Triplet, sc *AttachedScore) {
	people := attachedPeople(docText)
	if len(people) == 0 {
		return
	}
	sc.Volumes++
	byID := map[string]schemas.Chunk{}
	for _, c := range chunks {
		byID[c.ChunkID] = c
	}
	for _, p := range people {
		sc.Listed++
		names := []string{p.full}
		if utf8.RuneCountInString(p.written) >= 2 && p.written != p.full {
			names = append(names, p.written)
		}
		if p.alt != "" && p.alt != p.full {
			names = append(names, p.alt)
		}
		fact, own := false, false
		for _, t := range triplets {
			if t.Relation == schemas.RelMention || !slices.Contains(names, t.Head) {
				continue
			}
			fact = true
			c := byID[t.ChunkID]
			if slices.Contains(names, c.SubEntry) || slices.Contains(names, byID[t.EntryChunk].Subject) {
				own = true
				break
			}
		}
		opens := opensSentence(docText, p)
		if opens {
			sc.Opening++
		}
		if fact {
			sc.WithFact++
			if opens {
				sc.OpeningWithFact++
			}
		} else {
			sc.Missing = append(sc.Missing, p.full)
		}
		if own {
			sc.OwnEntry++
		}
	}
}

// sameGold reports whether a predicted value is the gold value: the same
// words, or for a native place the county of "province之county" (浙之山阴:
// 山阴).
func sameGold(rel, gold, v string) bool {
	if gold == v {
		return true
	}
	_, county, ok := strings.Cut(gold, "之")
	return rel == schemas.RelNativePlace && ok && county == v
}

// opensSentence reports whether a listed person's name, or the name as
// the listing writes it after a kinship word, opens a sentence of the
// volume's text (line 1 aside) followed by a comma.
func opensSentence(docText string, p listedPerson) bool {
	_, body, _ := strings.Cut(docText, "\n")
	forms := []string{p.full + "，"}
	if p.written != p.full {
		forms = append(forms, p.written+"，")
		for _, k := range groupKin {
			forms = append(forms, k+p.written+"，")
		}
	}
	for _, f := range forms {
		for i := strings.Index(body, f); i >= 0; {
			r, _ := utf8.DecodeLastRuneInString(body[:i])
			if i == 0 || strings.ContainsRune("。\n；：", r) {
				return true
			}
			j := strings.Index(body[i+len(f):], f)
			if j < 0 {
				break
			}
			i += len(f) + j
		}
	}
	return false
}
