package support

import (
	"embed"
	"math"
	"regexp"
	"strings"
	"unicode"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/wordlist"
)

// wordFiles holds the word lists of the judge (internal/lang/wordlist says
// the shape).
//
//go:embed data/*.txt
var wordFiles embed.FS

var (
	words     = wordlist.New(wordFiles, "data", "support")
	stopWords = words.Set("stop_words")
	negations = words.Set("negations")
)

// citationMarker matches the citation markers of a claim: "[1]", "[1, 3]",
// "[2][4]".
var citationMarker = regexp.MustCompile(`\s*\[\d+(?:\s*[,;–-]\s*\d+)*\]`)

// StripCitations removes citation markers such as "[1]" or "[2, 3]" from a
// claim and trims the white space they leave.
func StripCitations(claim string) string {
	return strings.TrimSpace(citationMarker.ReplaceAllString(claim, ""))
}

// sourceHeader matches the first line of an evidence passage that opens
// with its citation number and address ("[3] https://…"), with the blank
// lines after it.
var sourceHeader = regexp.MustCompile(`^\s*\[\d+\][ \t]*\S*[ \t]*\n\s*`)

// token is one word of a text: its stem key, where it is (runes), and
// what kind of word it is.
type token struct {
	stem       string
	start, end int
	content    bool // not a stop word
	number     bool
	capital    bool // capitalised, not at the start of its sentence
	negation   bool
}

// sentence is one sentence of a passage, its runes [start, end) in the
// passage, and its tokens.
type sentence struct {
	passage    int
	start, end int
	tokens     []token
	stems      map[string]bool
	negated    bool
}

// tokenize splits rs[from:to] into tokens, offsets in rs.
func tokenize(rs []rune, from, to int) []token {
	var out []token
	first := true
	for i := from; i < to; {
		if !isWordRune(rs[i]) {
			i++
			continue
		}
		j := i
		for j < to && (isWordRune(rs[j]) || (rs[j] == '\'' || rs[j] == '’') && j+1 < to && isWordRune(rs[j+1])) {
			j++
		}
		w := strings.ReplaceAll(strings.ToLower(string(rs[i:j])), "’", "'")
		t := token{start: i, end: j}
		t.number = unicode.IsDigit(rs[i])
		t.capital = !first && unicode.IsUpper(rs[i])
		t.negation = negations[w]
		t.content = !stopWords[w] && !t.negation && (t.number || len([]rune(w)) > 1)
		t.stem = stem(w)
		out = append(out, t)
		first = false
		i = j
	}
	return out
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// stem is a light English stemmer: a possessive, a plural or a verb ending
// is cut, and the key is the first six letters of what is left, so that
// "organise", "organised" and "organising" share one.
func stem(w string) string {
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "'")
	if unicode.IsDigit([]rune(w)[0]) {
		return strings.NewReplacer(",", "", ".", "").Replace(w)
	}
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		w = w[:n-3] + "y"
	case n > 4 && strings.HasSuffix(w, "sses"):
		w = w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:n-1]
	}
	for _, suf := range []string{"ing", "ed", "ly"} {
		if len(w) > len(suf)+3 && strings.HasSuffix(w, suf) {
			w = w[:len(w)-len(suf)]
			if k := len(w); k > 2 && w[k-1] == w[k-2] && !strings.ContainsRune("lsz", rune(w[k-1])) {
				w = w[:k-1]
			}
			break
		}
	}
	w = strings.TrimSuffix(w, "e")
	if r := []rune(w); len(r) > 6 {
		w = string(r[:6])
	}
	return w
}

// passageSentences splits passage p (its index i) into sentences, after
// its source header when it has one; offsets are runes of the passage.
func passageSentences(i int, p string) []sentence {
	rs := []rune(p)
	body := 0
	if loc := sourceHeader.FindStringIndex(p); loc != nil {
		body = len([]rune(p[:loc[1]]))
	}
	var out []sentence
	for _, sp := range text.SentencesRunes(rs[body:]) {
		s := sentence{passage: i, start: body + sp.Start, end: body + sp.End, stems: map[string]bool{}}
		for s.end > s.start && unicode.IsSpace(rs[s.end-1]) {
			s.end--
		}
		s.tokens = tokenize(rs, s.start, s.end)
		if len(s.tokens) == 0 {
			continue
		}
		for _, t := range s.tokens {
			s.stems[t.stem] = true
			s.negated = s.negated || t.negation
		}
		out = append(out, s)
	}
	return out
}

// FeatureNames names the features of a claim and its evidence, in the order
// Features returns them and the model file lists them.
var FeatureNames = []string{
	"coverage_idf",      // share of the claim's content (weighted by rarity in the evidence) found anywhere in it
	"coverage",          // share of the claim's content words found, unweighted
	"best_sentence_idf", // the weighted share one sentence holds
	"best_window_idf",   // the weighted share three consecutive sentences hold
	"bigrams",           // share of the claim's content-word pairs found close together in one sentence
	"numbers_missing",   // share of the claim's numbers the evidence lacks
	"names_missing",     // share of the claim's capitalised words the evidence lacks
	"negation_mismatch", // the claim is negated and its best sentence not, or the reverse
	"claim_words",       // log of the number of the claim's content words
	"evidence_words",    // log of the number of the evidence's words
	"missing_mass",      // the rarity-weighted content the evidence lacks, in words
}

// reading is what the judge reads of a claim and its evidence.
type reading struct {
	claim     []token
	content   []string // the claim's content stems, unique, in order
	weight    map[string]float64
	sentences []sentence
	features  []float64
}

// read computes the features of claim against passages.
func read(claim string, passages []string) reading {
	claim = StripCitations(claim)
	crs := []rune(claim)
	var r reading
	r.claim = tokenize(crs, 0, len(crs))
	for i, p := range passages {
		r.sentences = append(r.sentences, passageSentences(i, p)...)
	}
	seen := map[string]bool{}
	for _, t := range r.claim {
		if t.content && !seen[t.stem] {
			seen[t.stem] = true
			r.content = append(r.content, t.stem)
		}
	}
	// Rarity over the evidence's sentences: a word in every sentence
	// weighs least, one in none most.
	n := float64(len(r.sentences))
	r.weight = map[string]float64{}
	evWords := 0
	for _, s := range r.sentences {
		evWords += len(s.tokens)
	}
	var total float64
	for _, c := range r.content {
		df := 0
		for _, s := range r.sentences {
			if s.stems[c] {
				df++
			}
		}
		r.weight[c] = math.Log((n+1)/(float64(df)+1)) + 1
		total += r.weight[c]
	}
	f := make([]float64, len(FeatureNames))
	f[8] = math.Log1p(float64(len(r.content)))
	f[9] = math.Log1p(float64(evWords))
	if len(r.content) == 0 || len(r.sentences) == 0 {
		r.features = f
		return r
	}
	found := map[string]bool{}
	for _, s := range r.sentences {
		for _, c := range r.content {
			if s.stems[c] {
				found[c] = true
			}
		}
	}
	var foundW, missW float64
	for _, c := range r.content {
		if found[c] {
			foundW += r.weight[c]
		} else {
			missW += r.weight[c]
		}
	}
	f[0] = foundW / total
	f[1] = float64(len(found)) / float64(len(r.content))
	best := -1
	for i := range r.sentences {
		c := r.cover(r.sentences[i : i+1])
		if c > f[2] || best < 0 {
			f[2], best = c, i
		}
		hi := min(i+3, len(r.sentences))
		for hi > i+1 && r.sentences[hi-1].passage != r.sentences[i].passage {
			hi--
		}
		f[3] = max(f[3], r.cover(r.sentences[i:hi]))
	}
	f[4] = r.bigrams()
	f[5] = r.missingShare(func(t token) bool { return t.number })
	f[6] = r.missingShare(func(t token) bool { return t.capital && !t.number })
	claimNeg := false
	for _, t := range r.claim {
		claimNeg = claimNeg || t.negation
	}
	if claimNeg != r.sentences[best].negated {
		f[7] = 1
	}
	f[10] = missW
	r.features = f
	return r
}

// cover is the weighted share of the claim's content that ss hold.
func (r *reading) cover(ss []sentence) float64 {
	var got, total float64
	for _, c := range r.content {
		total += r.weight[c]
		for _, s := range ss {
			if s.stems[c] {
				got += r.weight[c]
				break
			}
		}
	}
	if total == 0 {
		return 0
	}
	return got / total
}

// bigrams is the share of the claim's consecutive content-word pairs that
// some sentence holds within three words of each other.
func (r *reading) bigrams() float64 {
	var pairs [][2]string
	prev := ""
	for _, t := range r.claim {
		if !t.content {
			continue
		}
		if prev != "" && prev != t.stem {
			pairs = append(pairs, [2]string{prev, t.stem})
		}
		prev = t.stem
	}
	if len(pairs) == 0 {
		return 0
	}
	got := 0
	for _, p := range pairs {
		if r.pairNear(p) {
			got++
		}
	}
	return float64(got) / float64(len(pairs))
}

func (r *reading) pairNear(p [2]string) bool {
	for _, s := range r.sentences {
		if !s.stems[p[0]] || !s.stems[p[1]] {
			continue
		}
		for i, t := range s.tokens {
			if t.stem != p[0] && t.stem != p[1] {
				continue
			}
			for j := max(0, i-3); j < min(len(s.tokens), i+4); j++ {
				if j != i && s.tokens[j].stem != t.stem && (s.tokens[j].stem == p[0] || s.tokens[j].stem == p[1]) {
					return true
				}
			}
		}
	}
	return false
}

// missingShare is the share of the claim's tokens of a kind the evidence
// lacks (0 when the claim has none).
func (r *reading) missingShare(kind func(token) bool) float64 {
	n, miss := 0, 0
	for _, t := range r.claim {
		if !kind(t) {
			continue
		}
		n++
		in := false
		for _, s := range r.sentences {
			if s.stems[t.stem] {
				in = true
				break
			}
		}
		if !in {
			miss++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(miss) / float64(n)
}

// Features returns the features of claim against passages, in the order
// of FeatureNames.
func Features(claim string, passages []string) []float64 {
	return read(claim, passages).features
}
