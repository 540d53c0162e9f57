package eval

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// Topic pages (`annalist eval topics`) are scored against gold read from
// the text of biography volumes in the manner of the History of Ming, the
// way Segmentation reads its gold: by fixed rules over the text, never
// from the system under test. The rules, exactly:
//
//   - Listing: the main strings and parenthesised groups (parseListing)
//     of the volume's heading lines: line 1 unless it starts with "◎",
//     and every other line whose main string has no sentence punctuation.
//   - Entry: a line after line 1 that begins with a name of 2 to 4 Han
//     characters followed by "，", where the name occurs in the listing
//     and does not begin with a kinship word (子, 兄, 弟, 从子, 从弟, 从兄,
//     从孙, 侄, 父, 族, 曾孙, 妻, 母, 女, 门人): a group lists relatives
//     by kinship and given name ("兄廷谅"), which is not a name a page
//     gives them. Its opening sentence is the line up to its first "。";
//     its first paragraph is the line.
//   - Native place: the opening sentence's last clause (the text after its
//     last "，") when it ends in "人" and the text before "人" is 1 to 6
//     Han characters that are a place as written, not a relation: it must
//     not begin with an ancestry or origin word (其先, 先世, 世为, 本, 家),
//     name a relative's place (同邑, 同县, 同里, 同郡, 同乡), say the place is
//     unknown (不知, 何许) or hold a function character that no place name
//     in the corpus holds (之, 以, 授, 为, 于, 举). "刘基，字伯温，青田人。"
//     gives 青田; "陈遇，字中行，先世曹人。" and "聂铉，字器之，美和同邑人。"
//     give none.
//   - Jinshi year: the first era year in the entry's first paragraph that
//     begins a clause (after the line's start or "，。；："), optionally
//     after 举 or 登, and is followed by "进士", optionally after 举 or 登:
//     "永乐二年进士", "举洪武二十一年进士", "景泰二年举进士". An era year
//     is two Han characters that are not numerals (the era name), then 元
//     or one to three numerals, then "年". A clause that starts with
//     another subject ("任亨泰亦举洪武二十一年进士") does not begin with the
//     era year and is not read.
//   - Topics: a native place with at least min entries (distinct names)
//     is a place topic named as the text writes it (松江华亭); an era
//     year with at least min entries is a time topic (万历十一年). Its
//     gold people are those names.
//   - Held out: a topic whose name's FNV-1a 32-bit hash is 4 modulo 5 (a
//     fifth of the topics, fixed by the name alone).
//
// Scores, over the pages generated for the gold topics (a failed request
// scores as an empty page):
//
//   - coverage: gold people whose name occurs in a sentence of their
//     topic's page / gold people.
//   - citation rate: sentences with at least one citation / sentences.
//   - grounding: the persons a sentence names are the names (2 runes or
//     more) of the gold entries of every volume and of the knowledge
//     graph's persons that occur in the sentence, less those inside a
//     longer one found there; a (sentence, person) pair is grounded when
//     the name occurs in the text of a chunk the sentence cites.
//     grounding = grounded pairs / pairs; sentence_grounding = sentences
//     whose every person is grounded / sentences naming a person.

// GoldEntry is one biography entry the topic gold reads: the entry's
// subject, native place and jinshi year ("" when the text gives none).
type GoldEntry struct {
	Name  string `json:"name"`
	Place string `json:"place,omitempty"`
	Year  string `json:"year,omitempty"`
}

// GoldTopic is one topic of the gold: a native place or an era year and
// the people the text gives it.
type GoldTopic struct {
	Type    string   `json:"type"`
	Topic   string   `json:"topic"`
	People  []string `json:"people"`
	HeldOut bool     `json:"held_out,omitempty"`
}

// TopicEntries reads the entries of one volume's text by the rules above.
func TopicEntries(text string) []GoldEntry {
	lines := strings.Split(text, "\n")
	var listing [][]rune
	for i, line := range lines {
		var p parsed
		parseListing(&p, line)
		if len(p.main) == 0 && len(p.groups) == 0 {
			continue
		}
		if i == 0 && strings.HasPrefix(strings.TrimSpace(line), "◎") || hasSentencePunct(string(p.main)) {
			continue
		}
		listing = append(listing, p.main)
		listing = append(listing, p.groups...)
	}
	listed := func(name string) bool {
		rs := []rune(name)
		for _, l := range listing {
			if slicesIndex(l, rs) >= 0 {
				return true
			}
		}
		return false
	}
	var out []GoldEntry
	for _, line := range lines[min(1, len(lines)):] {
		line = strings.TrimSpace(line)
		name, ok := entryName(line)
		if !ok || !listed(name) || kinship(name) {
			continue
		}
		opening, _, _ := strings.Cut(line, "。")
		out = append(out, GoldEntry{Name: name, Place: NativePlace(opening), Year: JinshiYear(line)})
	}
	return out
}

func slicesIndex(hay, needle []rune) int {
	for i := 0; i+len(needle) <= len(hay); i++ {
		if slices.Equal(hay[i:i+len(needle)], needle) {
			return i
		}
	}
	return -1
}

// entryName is the name a line opens with: 2 to 4 Han characters before
// its first "，".
func entryName(line string) (string, bool) {
	name, _, ok := strings.Cut(line, "，")
	if !ok {
		return "", false
	}
	rs := []rune(name)
	if len(rs) < 2 || len(rs) > 4 || !allHan(name) {
		return "", false
	}
	return name, true
}

var kinWords = []string{"子", "兄", "弟", "从子", "从弟", "从兄", "从孙", "侄", "父", "族", "曾孙", "妻", "母", "女", "门人"}

// kinship says whether a name begins with a kinship word.
func kinship(name string) bool {
	for _, k := range kinWords {
		if strings.HasPrefix(name, k) {
			return true
		}
	}
	return false
}

var (
	placeStarts    = []string{"其先", "先世", "世为", "本", "家"}
	placeRelations = []string{"同邑", "同县", "同里", "同郡", "同乡", "不知", "何许"}
	placeFunction  = "之以授为于举"
)

// NativePlace is the native place an opening sentence (without its "。")
// gives, or "".
func NativePlace(opening string) string {
	i := strings.LastIndex(opening, "，")
	if i < 0 {
		return ""
	}
	clause := opening[i+len("，"):]
	place, ok := strings.CutSuffix(clause, "人")
	rs := []rune(place)
	if !ok || len(rs) < 1 || len(rs) > 6 || !allHan(place) || strings.ContainsAny(place, placeFunction) {
		return ""
	}
	for _, p := range placeStarts {
		if strings.HasPrefix(place, p) {
			return ""
		}
	}
	for _, p := range placeRelations {
		if strings.Contains(place, p) {
			return ""
		}
	}
	return place
}

const numerals = "一二三四五六七八九十"

// JinshiYear is the era year of the first jinshi degree a paragraph
// records by the rule above, or "".
func JinshiYear(par string) string {
	rs := []rune(par)
	for i := 0; i < len(rs); i++ {
		if i > 0 && !strings.ContainsRune("，。；：", rs[i-1]) {
			continue
		}
		j := i
		if j < len(rs) && (rs[j] == '举' || rs[j] == '登') {
			j++
		}
		year, n := eraYear(rs[j:])
		if n == 0 {
			continue
		}
		k := j + n
		if k < len(rs) && (rs[k] == '举' || rs[k] == '登') {
			k++
		}
		if strings.HasPrefix(string(rs[k:]), "进士") {
			return year
		}
	}
	return ""
}

// eraYear reads an era year at the start of rs: two Han characters that
// are not numerals, 元 or one to three numerals, 年. It returns the year
// and its length in runes, or 0.
func eraYear(rs []rune) (string, int) {
	if len(rs) < 4 {
		return "", 0
	}
	for _, r := range rs[:2] {
		if !unicode.Is(unicode.Han, r) || strings.ContainsRune(numerals+"元年", r) {
			return "", 0
		}
	}
	k := 2
	if rs[k] == '元' {
		k++
	} else {
		for k < len(rs) && k < 5 && strings.ContainsRune(numerals, rs[k]) {
			k++
		}
		if k == 2 {
			return "", 0
		}
	}
	if k >= len(rs) || rs[k] != '年' {
		return "", 0
	}
	return string(rs[:k+1]), k + 1
}

// HeldOut says whether a topic is in the held-out fifth.
func HeldOut(topic string) bool {
	h := fnv.New32a()
	h.Write([]byte(topic))
	return h.Sum32()%5 == 4
}

// TopicGold reads the entries of every volume under the folders and
// returns the topics with at least min people, places first then years,
// each by descending size then name, and every entry name read (the
// grounding check's persons).
func TopicGold(dirs []string, minPeople int) ([]GoldTopic, []string, error) {
	files, err := producers.Walk(dirs, producers.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("topic gold: %w", err)
	}
	places, years := map[string][]string{}, map[string][]string{}
	var names []string
	for _, f := range files {
		items, errs := producers.Read(f, producers.Options{})
		if len(errs) > 0 {
			return nil, nil, fmt.Errorf("topic gold: read %s: %w", f.Rel, errs[0])
		}
		for _, it := range items {
			for _, e := range TopicEntries(it.Doc.Text) {
				names = append(names, e.Name)
				if e.Place != "" {
					places[e.Place] = append(places[e.Place], e.Name)
				}
				if e.Year != "" {
					years[e.Year] = append(years[e.Year], e.Name)
				}
			}
		}
	}
	var out []GoldTopic
	for _, g := range []struct {
		typ string
		m   map[string][]string
	}{{schemas.TopicPlace, places}, {schemas.TopicTime, years}} {
		var ts []GoldTopic
		for t, ps := range g.m {
			slices.Sort(ps)
			ps = slices.Compact(ps)
			if len(ps) >= minPeople {
				ts = append(ts, GoldTopic{Type: g.typ, Topic: t, People: ps, HeldOut: HeldOut(t)})
			}
		}
		slices.SortFunc(ts, func(a, b GoldTopic) int {
			if d := len(b.People) - len(a.People); d != 0 {
				return d
			}
			return strings.Compare(a.Topic, b.Topic)
		})
		out = append(out, ts...)
	}
	slices.Sort(names)
	return out, slices.Compact(names), nil
}

// TopicPageFunc is the system under test: it generates the page of a
// topic. A request that failed returns a nil page and the reason; err is
// kept for failures of the evaluation itself (a store down), which stop
// it.
type TopicPageFunc func(ctx context.Context, topic string) (page *schemas.Page, failure string, err error)

// TopicScore is the scores of a set of topic pages; the rules are in
// the comment at the top of this file.
type TopicScore struct {
	Topics       int     `json:"topics"`
	Failed       int     `json:"failed"`
	GoldPeople   int     `json:"gold_people"`
	Covered      int     `json:"covered"`
	Coverage     float64 `json:"coverage"`
	Sentences    int     `json:"sentences"`
	Cited        int     `json:"cited"`
	CitationRate float64 `json:"citation_rate"`
	// Named counts (sentence, person) pairs, Grounded those whose person
	// occurs in a cited chunk.
	Named     int     `json:"named"`
	Grounded  int     `json:"grounded"`
	Grounding float64 `json:"grounding"`
	// SentencesNaming are sentences naming a person; SentencesGrounded
	// those whose every person is grounded.
	SentencesNaming   int     `json:"sentences_naming"`
	SentencesGrounded int     `json:"sentences_grounded"`
	SentenceGrounding float64 `json:"sentence_grounding"`
}

func (s *TopicScore) add(o TopicScore) {
	s.Topics += o.Topics
	s.Failed += o.Failed
	s.GoldPeople += o.GoldPeople
	s.Covered += o.Covered
	s.Sentences += o.Sentences
	s.Cited += o.Cited
	s.Named += o.Named
	s.Grounded += o.Grounded
	s.SentencesNaming += o.SentencesNaming
	s.SentencesGrounded += o.SentencesGrounded
}

func (s *TopicScore) rates() {
	s.Coverage = ratio(s.Covered, s.GoldPeople)
	s.CitationRate = ratio(s.Cited, s.Sentences)
	s.Grounding = ratio(s.Grounded, s.Named)
	s.SentenceGrounding = ratio(s.SentencesGrounded, s.SentencesNaming)
}

// TopicResult is one topic's page and score.
type TopicResult struct {
	GoldTopic
	Score   TopicScore `json:"score"`
	Version int        `json:"version,omitempty"`
	Millis  float64    `json:"ms"`
	Failure string     `json:"failure,omitempty"`
	// Missing are the gold people the page does not name.
	Missing []string `json:"missing,omitempty"`
	// Ungrounded are "person: sentence" for the pairs not grounded.
	Ungrounded []string `json:"ungrounded,omitempty"`
}

// TopicsReport is the JSON of `annalist eval topics`.
type TopicsReport struct {
	// Overall is every topic; ByType per topic type (place, time); Dev
	// and HeldOut the two splits.
	Overall TopicScore            `json:"overall"`
	ByType  map[string]TopicScore `json:"by_type"`
	Dev     TopicScore            `json:"dev"`
	HeldOut TopicScore            `json:"held_out"`
	// Pages is the pages published; PagesPerSecond them over Seconds,
	// the wall time of the generation with Concurrency requests in
	// flight.
	Pages          int           `json:"pages"`
	Failures       int           `json:"failures"`
	Seconds        float64       `json:"seconds"`
	PagesPerSecond float64       `json:"pages_per_second"`
	Concurrency    int           `json:"concurrency"`
	MinPeople      int           `json:"min_people"`
	Results        []TopicResult `json:"results,omitempty"`
}

// Topics generates a page per gold topic, conc at a time, and scores
// them. persons are the names whose mentions grounding checks (besides
// every gold person). progress, when not nil, is called after each page.
func Topics(ctx context.Context, gold []GoldTopic, persons []string, page TopicPageFunc, conc int, progress func(done, total int)) (TopicsReport, error) {
	rep := TopicsReport{Concurrency: conc, ByType: map[string]TopicScore{}}
	names := map[string]bool{}
	for _, p := range persons {
		if len([]rune(p)) >= 2 {
			names[p] = true
		}
	}
	for _, t := range gold {
		for _, p := range t.People {
			if len([]rune(p)) >= 2 {
				names[p] = true
			}
		}
	}
	finder := newNameFinder(names)
	results := make([]TopicResult, len(gold))
	next := make(chan int)
	var mu sync.Mutex
	var firstErr error
	done := 0
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < max(1, conc); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t0 := time.Now()
				p, failure, err := page(ctx, gold[i].Topic)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("topic %q: %w", gold[i].Topic, err)
				}
				mu.Unlock()
				if err != nil {
					continue
				}
				r := scoreTopic(gold[i], p, failure, finder)
				r.Millis = float64(time.Since(t0).Microseconds()) / 1000
				results[i] = r
				mu.Lock()
				done++
				if progress != nil {
					progress(done, len(gold))
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range gold {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	rep.Seconds = time.Since(start).Seconds()
	if firstErr != nil {
		return rep, firstErr
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	for _, r := range results {
		rep.Overall.add(r.Score)
		bt := rep.ByType[r.Type]
		bt.add(r.Score)
		rep.ByType[r.Type] = bt
		if r.HeldOut {
			rep.HeldOut.add(r.Score)
		} else {
			rep.Dev.add(r.Score)
		}
		if r.Failure != "" {
			rep.Failures++
		} else {
			rep.Pages++
		}
	}
	rep.Overall.rates()
	rep.Dev.rates()
	rep.HeldOut.rates()
	for k, v := range rep.ByType {
		v.rates()
		rep.ByType[k] = v
	}
	if rep.Seconds > 0 {
		rep.PagesPerSecond = float64(rep.Pages) / rep.Seconds
	}
	rep.Results = results
	return rep, nil
}

// scoreTopic scores one page against its topic's gold.
func scoreTopic(t GoldTopic, p *schemas.Page, failure string, f nameFinder) TopicResult {
	r := TopicResult{GoldTopic: t, Failure: failure}
	r.Score.Topics = 1
	r.Score.GoldPeople = len(t.People)
	if p == nil {
		if r.Failure == "" {
			r.Failure = "no page"
		}
		r.Score.Failed = 1
		r.Missing = t.People
		return r
	}
	r.Version = p.Version
	for _, person := range t.People {
		named := false
		for _, s := range p.Sentences {
			if strings.Contains(s.Text, person) {
				named = true
				break
			}
		}
		if named {
			r.Score.Covered++
		} else {
			r.Missing = append(r.Missing, person)
		}
	}
	for _, s := range p.Sentences {
		r.Score.Sentences++
		if len(s.Citations) > 0 {
			r.Score.Cited++
		}
		persons := f.find(s.Text)
		if len(persons) == 0 {
			continue
		}
		r.Score.SentencesNaming++
		all := true
		for _, n := range persons {
			r.Score.Named++
			ok := false
			for _, c := range s.Citations {
				if strings.Contains(c.Text, n) {
					ok = true
					break
				}
			}
			if ok {
				r.Score.Grounded++
			} else {
				all = false
				r.Ungrounded = append(r.Ungrounded, n+": "+s.Text)
			}
		}
		if all {
			r.Score.SentencesGrounded++
		}
	}
	r.Score.rates()
	return r
}

// nameFinder finds the persons a sentence names.
type nameFinder struct {
	// byFirst indexes the names by their first rune.
	byFirst map[rune][]string
}

func newNameFinder(names map[string]bool) nameFinder {
	f := nameFinder{byFirst: map[rune][]string{}}
	for n := range names {
		r := []rune(n)[0]
		f.byFirst[r] = append(f.byFirst[r], n)
	}
	for _, ns := range f.byFirst {
		slices.Sort(ns)
	}
	return f
}

// find returns the names that occur in text, less those that only occur
// inside a longer name found at the same place, sorted.
func (f nameFinder) find(text string) []string {
	rs := []rune(text)
	type hit struct{ at, end int }
	found := map[string][]hit{}
	for i, r := range rs {
		for _, n := range f.byFirst[r] {
			nr := []rune(n)
			if i+len(nr) <= len(rs) && slices.Equal(rs[i:i+len(nr)], nr) {
				found[n] = append(found[n], hit{i, i + len(nr)})
			}
		}
	}
	var out []string
	for n, hs := range found {
		inside := func(h hit) bool {
			for m, os := range found {
				if len(m) <= len(n) {
					continue
				}
				for _, o := range os {
					if o.at <= h.at && h.end <= o.end {
						return true
					}
				}
			}
			return false
		}
		free := false
		for _, h := range hs {
			if !inside(h) {
				free = true
				break
			}
		}
		if free {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}
