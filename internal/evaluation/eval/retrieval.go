package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// RetrieveFunc is a retrieval system under test: the references it returns
// for a person's name, best first. A system that knows no such person
// returns no references and no error.
type RetrieveFunc func(ctx context.Context, name string) ([]schemas.Reference, error)

// RetrievalQuery is one person of the retrieval evaluation and the gold
// answer: the chunks of the person's own entry.
type RetrievalQuery struct {
	Name string `json:"name"`
	// Aliases are the courtesy, art and other names the entry's opening
	// sentence gives.
	Aliases []string `json:"aliases,omitempty"`
	File    string   `json:"file"`
	DocID   string   `json:"doc_id"`
	// Start and End are the entry's rune offsets in the document.
	Start int `json:"start"`
	End   int `json:"end"`
	// Chunks are the ids of the entry's chunks.
	Chunks []string `json:"chunks"`
	// Own are the ids of the chunks of the person's own text: the entry's
	// chunks up to the first opening of another person's own text inside
	// it — a paragraph that opens a person's entry, or an opening inside a
	// paragraph of someone line 1 names in parentheses (otherOpenings; the
	// strict definition).
	Own []string `json:"own"`
}

// RetrievalQueries reads the biography volumes under dir and returns one
// query per person listed on line 1 who has an entry of his own, with the
// entry's chunks as chunk makes them (the chunker the index was built
// with, so the ids agree).
//
// The gold answer is found in the text, not taken from the system under
// test. Line 1 is parsed as Segmentation parses it (a volume whose line 1
// lists nobody gives no query). An entry opens where listedEntries finds
// a listed name opening a sentence as entries do, and runs to the next
// listed person's opening or to the end of the volume; relatives and
// attached people introduced inside it are part of it, as the listing's
// parentheses say. The entry's chunks are those with more than half their
// characters inside it. The aliases are the courtesy, art and other names
// of the entry's opening sentence (字, 号, 一字, 别号, 自号, 初名, 小字).
func RetrievalQueries(ctx context.Context, dir string, chunk ChunkFunc) ([]RetrievalQuery, error) {
	files, err := producers.Walk([]string{dir}, producers.Options{})
	if err != nil {
		return nil, fmt.Errorf("retrieval queries: %w", err)
	}
	var out []RetrievalQuery
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		items, errs := producers.Read(f, producers.Options{})
		if len(errs) > 0 {
			return nil, fmt.Errorf("retrieval queries: read %s: %w", f.Rel, errs[0])
		}
		for _, it := range items {
			entries := listedEntries(it.Doc.Text)
			if len(entries) == 0 {
				continue
			}
			chunks, err := chunk(ctx, it.Doc)
			if err != nil {
				return nil, fmt.Errorf("retrieval queries: chunk %s: %w", f.Rel, err)
			}
			others := otherOpenings(it.Doc.Text)
			for _, e := range entries {
				q := RetrievalQuery{Name: e.name, Aliases: e.aliases, File: f.Rel, DocID: it.Doc.DocID,
					Start: e.start, End: e.end}
				ownEnd := e.end
				for _, p := range others {
					if p > e.start && p < e.end {
						ownEnd = p
						break
					}
				}
				for _, c := range chunks {
					// A chunk belongs to the entry when most of it lies inside.
					if overlap := min(c.End, e.end) - max(c.Start, e.start); 2*overlap > c.End-c.Start {
						q.Chunks = append(q.Chunks, c.ChunkID)
					}
					if overlap := min(c.End, ownEnd) - max(c.Start, e.start); 2*overlap > c.End-c.Start {
						q.Own = append(q.Own, c.ChunkID)
					}
				}
				if len(q.Chunks) > 0 {
					out = append(out, q)
				}
			}
		}
	}
	return out, nil
}

// otherOpenings are the offsets at which another person's own text
// begins, as the segmentation's entry score reads entry openings: the
// paragraphs that open a person's entry, and the openings inside a
// paragraph of people line 1 names in parentheses ("…一时皆以为荣。元震，
// 字元东，…" where line 1 lists "饶伸(兄位刘元震元霖)"): the listing says
// they are attached to the entry, and their text runs from there. Such a
// person may be written after the words that bring him in, a place or an
// office ("参政洪云蒸，长沙人"), and introduced by 者 without a formula
// ("合肥陈文者，南北征伐"): a sentence whose first clause is at most
// maxIntroduced characters ending in a group's name and 者 opens that
// person's text too; so does a sentence that first says who the person
// is, then names him after 者 or 有 in one of its first three clauses
// ("以地震言事者，又有邓洪震，宣化人", "居首者余翱，字大振").
func otherOpenings(doc string) []int {
	first, _, _ := strings.Cut(doc, "\n")
	var l parsed
	parseListing(&l, strings.TrimSpace(first))
	rs := []rune(doc)
	var out []int
	for _, o := range entryOpenings(rs) {
		if o.paragraph {
			out = append(out, o.pos)
			continue
		}
		e := o.pos
		for e < len(rs) && text.IsHan(rs[e]) {
			e++
		}
		if e-o.pos >= 1 && endsWithGroupName(rs[o.pos:e], l.groups) {
			out = append(out, o.pos)
		}
	}
	for i := 1; i < len(rs); i++ {
		if rs[i-1] != '\n' && rs[i-1] != '。' || slices.Contains(out, i) {
			continue
		}
		e := i
		for e < len(rs) && e-i <= maxIntroduced && text.IsHan(rs[e]) {
			e++
		}
		if e-i >= 3 && e+1 < len(rs) && rs[e] == '，' && rs[e-1] == '者' && endsWithGroupName(rs[i:e-1], l.groups) ||
			namedAfterWho(rs, i, l.groups) || namedSubject(rs, i, rs[i-1] == '\n', l.groups) {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// namedAfterWho reports whether the sentence at i names, in one of its
// first three clauses, a person a group writes (two characters or more)
// right after 者 or 有 and right before "，" or "者，".
func namedAfterWho(rs []rune, i int, groups [][]rune) bool {
	clauses := 0
	for j := i; j < len(rs) && clauses < 3; j++ {
		switch r := rs[j]; {
		case r == '。' || r == '\n' || r == '；':
			return false
		case r == '，':
			clauses++
		case (r == '者' || r == '有') && j+1 < len(rs):
			for n := 4; n >= 2; n-- {
				q := j + 1 + n
				if q+1 >= len(rs) || !(rs[q] == '，' || rs[q] == '者' && rs[q+1] == '，') {
					continue
				}
				if groupWrites(groups, rs[j+1:q]) {
					return true
				}
			}
		}
	}
	return false
}

// namedSubject reports whether the sentence at i makes a person a group
// writes (two to four characters, after at most maxIntroduced characters
// that bring him in) its subject: the name, then 亦 ("时御史古田林英亦在
// 广德募兵"), or a stop and a courtesy name ("同邑萧鎡。字孟勤"), or, at
// the start of a line, the name alone and "，" ("孙锐，袭伯爵") unless a
// kinship word writes it ("子重杰，举于乡" goes on the entry's text, as
// the segmentation's openings read it).
func namedSubject(rs []rune, i int, lineStart bool, groups [][]rune) bool {
	e := i
	for e < len(rs) && e-i < maxIntroduced+4 && text.IsHan(rs[e]) {
		e++
	}
	for q := i + 2; q <= e; q++ {
		for n := min(4, q-i); n >= 2; n-- {
			if q-n-i > maxIntroduced || !groupWrites(groups, rs[q-n:q]) {
				continue
			}
			switch {
			case q < len(rs) && rs[q] == '亦':
				return true
			case q+1 < len(rs) && rs[q] == '。' && (rs[q+1] == '字' || rs[q+1] == '名'):
				return true
			case lineStart && q == e && q-n == i && q < len(rs) && rs[q] == '，' && !kinWritten(rs[i:q]):
				return true
			}
		}
	}
	return false
}

// kinWritten reports a name written after a kinship word of a group.
func kinWritten(name []rune) bool {
	for _, k := range groupKin {
		if strings.HasPrefix(string(name), k) {
			return true
		}
	}
	return false
}

// maxIntroduced bounds the first clause that introduces a person by 者:
// the words bringing him in (a place, an office, 又有) and the name.
const maxIntroduced = 10

// endsWithGroupName reports whether a parenthesised group of the listing
// writes run, or a name of two characters or more that ends it.
func endsWithGroupName(run []rune, groups [][]rune) bool {
	for k := 0; k == 0 || k+2 <= len(run); k++ {
		if groupWrites(groups, run[k:]) {
			return true
		}
	}
	return false
}

// groupWrites reports whether a parenthesised group of the listing
// writes w.
func groupWrites(groups [][]rune, w []rune) bool {
	for _, g := range groups {
		if text.IndexRunes(g, w, 0) >= 0 {
			return true
		}
	}
	return false
}

// entry is a listed person's own entry found in a volume's text.
type entry struct {
	name       string
	aliases    []string
	start, end int
}

// listedEntries finds the entries of the people line 1 lists. An entry
// opens a sentence — at the start of a line or after "。" — with a name,
// then "，", and the sentence has the shape of an entry's opening (a clause
// giving a courtesy or art name, or one ending in 人: the native place).
// The name is a name of line 1's main string, of two to four Han
// characters, or, at the start of a line, a given name the main string
// shows after one surname character ("濂，字习古" for 王濂) when the
// sentence gives a courtesy or art name. Each name counts once, at its
// first opening; an entry runs to the next one or to the end of the text.
func listedEntries(doc string) []entry {
	first, _, _ := strings.Cut(doc, "\n")
	first = strings.TrimSpace(first)
	if strings.HasPrefix(first, "◎") {
		return nil
	}
	var l parsed
	parseListing(&l, first)
	if len(l.main) == 0 || hasSentencePunct(string(l.main)) {
		return nil
	}
	main := string(l.main)
	rs := []rune(doc)
	var out []entry
	seen := map[string]bool{}
	lineStart := false
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '\n':
			lineStart = true
			continue
		case lineStart && (r == ' ' || r == '\t' || r == '\u3000'):
			continue
		}
		atLine := lineStart
		lineStart = false
		if !atLine && (i == 0 || rs[i-1] != '。') {
			continue
		}
		if i == 0 {
			continue // line 1 is the listing
		}
		comma := -1
		for j := i; j < len(rs) && j <= i+4; j++ {
			if rs[j] == '，' {
				comma = j
				break
			}
		}
		if comma < 0 {
			continue
		}
		name := string(rs[i:comma])
		if !allHan(name) {
			continue
		}
		end := comma
		for end < len(rs) && rs[end] != '。' && rs[end] != '\n' {
			end++
		}
		aliases, shaped := openingAliases(string(rs[comma+1 : end]))
		full := ""
		switch n := utf8.RuneCountInString(name); {
		case n >= 2 && n <= 4 && strings.Contains(main, name) && (shaped || atLine):
			full = name
		case atLine && n >= 1 && n <= 2 && len(aliases) > 0 && strings.Count(main, name) == 1:
			if at := text.IndexRunes(l.main, []rune(name), 0); at > 0 {
				full = string(l.main[at-1 : at+n])
			}
		case n == 3 && len(aliases) > 0:
			full = variantOf(l.main, []rune(name))
		}
		if full == "" || seen[full] {
			continue
		}
		seen[full] = true
		if k := len(out); k > 0 {
			out[k-1].end = i
		}
		out = append(out, entry{name: full, aliases: aliases, start: i})
	}
	if k := len(out); k > 0 {
		out[k-1].end = len(rs)
	}
	return out
}

// variantOf returns the three-character name of main that name writes
// with one variant character (叶应骢 for the listed 叶应聪): the same
// surname, one of the two other characters different, and no other
// window of main that close; "" otherwise.
func variantOf(main, name []rune) string {
	found := ""
	for i := 0; i+3 <= len(main); i++ {
		w := main[i : i+3]
		if w[0] != name[0] || (w[1] != name[1]) == (w[2] != name[2]) {
			continue
		}
		if found != "" {
			return ""
		}
		found = string(w)
	}
	return found
}

// openingAliases reads the clauses of an entry's opening sentence (after
// the name): 字X, 号X, 一字X, 别号X, 初名X, 小字X give aliases; shaped is
// true when the sentence gives an alias or ends a clause with 人 (the
// native place).
func openingAliases(sentence string) (aliases []string, shaped bool) {
	for _, clause := range strings.Split(sentence, "，") {
		clause = strings.TrimSpace(clause)
		for _, p := range []string{"一字", "别号", "自号", "初名", "小字", "字", "号"} {
			v, ok := strings.CutPrefix(clause, p)
			if !ok {
				continue
			}
			if n := utf8.RuneCountInString(v); n >= 2 && n <= 4 && allHan(v) && !slices.Contains(aliases, v) {
				aliases = append(aliases, v)
				shaped = true
			}
			break
		}
		if strings.HasSuffix(clause, "人") {
			shaped = true
		}
	}
	return aliases, shaped
}

func allHan(s string) bool {
	for _, r := range s {
		if !text.IsHan(r) {
			return false
		}
	}
	return s != ""
}

// RetrievalScore is one system's macro-averaged score.
type RetrievalScore struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	// Answered counts the queries the system returned references for.
	Answered int `json:"answered"`
	// MeanReferences is the mean number of references per query.
	MeanReferences float64 `json:"mean_references"`
}

// RetrievalMiss is a query a system scored poorly on (F1 < 0.5).
type RetrievalMiss struct {
	System    string  `json:"system"`
	Name      string  `json:"name"`
	File      string  `json:"file"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
}

// RetrievalReport is the result of Retrieval: one score per system, under
// the system's name in JSON.
type RetrievalReport struct {
	Queries int
	// Strict says the scores use the strict definition.
	Strict bool
	Scores map[string]RetrievalScore
	Misses []RetrievalMiss
}

// MarshalJSON writes {"queries", "averaging": "macro", <system>: score …,
// "misses" when kept}.
func (r RetrievalReport) MarshalJSON() ([]byte, error) {
	m := map[string]any{"queries": r.Queries, "averaging": "macro", "strict": r.Strict}
	for name, s := range r.Scores {
		m[name] = s
	}
	if len(r.Misses) > 0 {
		m["misses"] = r.Misses
	}
	return json.Marshal(m)
}

// Retrieval runs every system on every query and scores it. For one query
// and system: recall is the share of the entry's chunks retrieved;
// precision the share of retrieved chunks that are the entry's own or
// whose text contains the person's name or one of the entry's aliases;
// F1 their harmonic mean (0 when both are 0). A system that retrieves
// nothing scores 0 on all three. Scores are macro averages over queries,
// F1 included (the mean of per-query F1, not the F1 of the means).
// progress, when not nil, is called after each query.
func Retrieval(ctx context.Context, queries []RetrievalQuery, systems map[string]RetrieveFunc,
	progress func(done, total int)) (RetrievalReport, error) {
	return RetrievalWith(ctx, queries, systems, RetrievalOptions{}, progress)
}

// RetrievalOptions choose the definition of a relevant chunk.
type RetrievalOptions struct {
	// Strict scores against the person's own text (RetrievalQuery.Own):
	// recall is the share of it retrieved, and a retrieved chunk is
	// relevant when it is part of it or names the person; a chunk of an
	// attached person's or a relative's entry inside the person's entry
	// is relevant only when it names the person.
	Strict bool
}

// RetrievalWith is Retrieval under the given definition.
func RetrievalWith(ctx context.Context, queries []RetrievalQuery, systems map[string]RetrieveFunc,
	opts RetrievalOptions, progress func(done, total int)) (RetrievalReport, error) {
	rep := RetrievalReport{Queries: len(queries), Scores: map[string]RetrievalScore{}, Strict: opts.Strict}
	names := make([]string, 0, len(systems))
	for n := range systems {
		names = append(names, n)
	}
	slices.Sort(names)
	sums := make(map[string]*RetrievalScore, len(names))
	refs := make(map[string]int, len(names))
	for _, n := range names {
		sums[n] = &RetrievalScore{}
	}
	for i, q := range queries {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		for _, n := range names {
			got, err := systems[n](ctx, q.Name)
			if err != nil {
				return rep, fmt.Errorf("retrieval: %s for %s (%s): %w", n, q.Name, q.File, err)
			}
			gold := q.Chunks
			if opts.Strict {
				gold = q.Own
			}
			p, r := scoreQuery(q, gold, got)
			f := f1(p, r)
			s := sums[n]
			s.Precision += p
			s.Recall += r
			s.F1 += f
			refs[n] += len(got)
			if len(got) > 0 {
				s.Answered++
			}
			if f < 0.5 {
				rep.Misses = append(rep.Misses, RetrievalMiss{System: n, Name: q.Name, File: q.File,
					Precision: p, Recall: r})
			}
		}
		if progress != nil {
			progress(i+1, len(queries))
		}
	}
	for _, n := range names {
		s := *sums[n]
		if k := float64(len(queries)); k > 0 {
			s.Precision /= k
			s.Recall /= k
			s.F1 /= k
			s.MeanReferences = float64(refs[n]) / k
		}
		rep.Scores[n] = s
	}
	return rep, nil
}

// scoreQuery scores the references got for q against the gold chunks.
func scoreQuery(q RetrievalQuery, gold []string, got []schemas.Reference) (precision, recall float64) {
	if len(got) == 0 || len(gold) == 0 {
		return 0, 0
	}
	own := make(map[string]bool, len(gold))
	for _, id := range gold {
		own[id] = true
	}
	hit, precise := 0, 0
	seen := map[string]bool{}
	for _, r := range got {
		if seen[r.ChunkID] {
			continue
		}
		seen[r.ChunkID] = true
		switch {
		case own[r.ChunkID]:
			hit++
			precise++
		case strings.Contains(r.Text, q.Name) || slices.ContainsFunc(q.Aliases, func(a string) bool {
			return strings.Contains(r.Text, a)
		}):
			precise++
		}
	}
	return float64(precise) / float64(len(seen)), float64(hit) / float64(len(gold))
}

func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}
