package discourse

import (
	"regexp"
	"strings"
	"unicode"
)

// abbreviations whose period does not end a sentence (lower case, without
// the period).
var abbreviations = wordSet("abbreviations")

// SplitSentences splits English text into sentences. A sentence ends at
// '.', '!' or '?' (with any closing quotes or brackets after it) followed
// by white space and an upper-case letter, a digit or an opening quote;
// a period after a known abbreviation ("No.", "Mr.") or a single capital
// letter (an initial) does not end one.
func SplitSentences(text string) []string {
	rs := []rune(text)
	var out []string
	start := 0
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		end := i + 1
		for end < len(rs) && strings.ContainsRune("\"'”’)]", rs[end]) {
			end++
		}
		if end >= len(rs) {
			break
		}
		if !unicode.IsSpace(rs[end]) {
			continue
		}
		next := end
		for next < len(rs) && unicode.IsSpace(rs[next]) {
			next++
		}
		if next >= len(rs) {
			break
		}
		n := rs[next]
		if !(unicode.IsUpper(n) || unicode.IsDigit(n) || strings.ContainsRune("\"“‘'([", n)) {
			continue
		}
		if c == '.' && !periodEnds(rs[start:i]) {
			continue
		}
		if s := strings.TrimSpace(string(rs[start:end])); s != "" {
			out = append(out, s)
		}
		start = next
		i = next - 1
	}
	if s := strings.TrimSpace(string(rs[start:])); s != "" {
		out = append(out, s)
	}
	return out
}

// periodEnds reports whether a period after before ends a sentence: not
// after an abbreviation or an initial.
func periodEnds(before []rune) bool {
	j := len(before)
	for j > 0 && !unicode.IsSpace(before[j-1]) && before[j-1] != '(' {
		j--
	}
	word := string(before[j:])
	if word == "" {
		return true
	}
	if len([]rune(word)) == 1 && unicode.IsUpper([]rune(word)[0]) {
		return false
	}
	return !abbreviations[strings.ToLower(word)]
}

// discourseMarkers open a sentence without adding to its claim: answers,
// agreement or disagreement, connectives. They are dropped, repeatedly,
// from the start of a clause.
var discourseMarkers = wordList("discourse_markers")

// hedges are the speaker's framing of a claim ("I think that …"); the
// opinion sentence says "PersonN thinks that" instead.
var hedges = regexp.MustCompile(`(?i)^(?:i\s+(?:` + alternation("hedge_adverbs", `\s+`, false) + `)?(?:` +
	alternation("hedge_verbs", "", true) + `)|` + alternation("hedge_phrases", "", true) + `)\b(?:\s+that\b)?[,\s]*`)

var markerRE = func() *regexp.Regexp {
	alts := make([]string, 0, len(discourseMarkers))
	for _, m := range discourseMarkers {
		alts = append(alts, regexp.QuoteMeta(m))
	}
	return regexp.MustCompile(`(?i)^(?:` + strings.Join(alts, "|") + `)(?:\s*[,;:!.]+\s*|\s+)`)
}()

// objectFollows: an agreement marker followed by its object ("I agree
// with your first point") is the statement itself, not a marker.
func objectFollows(marker, rest string) bool {
	m := strings.ToLower(strings.TrimSpace(marker))
	if !strings.HasPrefix(m, "i ") && !strings.HasPrefix(m, "agreed") {
		return false
	}
	r := strings.ToLower(rest)
	return strings.HasPrefix(r, "with ") || strings.HasPrefix(r, "that ") && !strings.ContainsAny(marker, ",;:")
}

// innerHedge is a hedge after a fronted phrase ("Although his prime has
// passed, I still believe he …") or after "that" ("it's worth noting that
// I think they …"): dropped, the comma or "that" kept.
var innerHedge = regexp.MustCompile(`(?i)(?:,|\bthat)\s+i\s+(?:` + alternation("hedge_adverbs", `\s+`, false) + `)?(?:` +
	alternation("inner_hedge_verbs", "", false) + `)\b(?:\s+that\b)?\s*`)

// stripFraming drops leading discourse markers and hedges, as often as they
// stack ("No, I think that …"), and hedges after a fronted phrase.
func stripFraming(s string) string {
	s = innerHedge.ReplaceAllStringFunc(strings.TrimSpace(s), func(m string) string {
		if m[0] == ',' {
			return ", "
		}
		return m[:4] + " "
	})
	for {
		t := s
		if m := markerRE.FindString(t); m != "" && len(m) < len(t) && !objectFollows(m, t[len(m):]) {
			// a marker that is the clause's own subject or verb is kept:
			// "So far …" has no comma and is caught only with one.
			t = t[len(m):]
		}
		if m := hedges.FindString(t); m != "" && len(m) < len(t) {
			t = t[len(m):]
		}
		t = strings.TrimSpace(t)
		if t == s {
			return s
		}
		s = t
	}
}

// auxiliaries and modals: a clause with one of these has a finite verb.
var auxiliaries = wordSet("auxiliaries")

// clauseSubjects may open an independent clause after "and" or "but".
var clauseSubjects = wordSet("clause_subjects")

func hasFiniteVerb(words []string) bool {
	if len(words) >= 2 && personalSubjects[strings.ToLower(words[0])] {
		return true
	}
	for _, w := range words {
		lw := strings.ToLower(strings.Trim(w, ",.;:!?\"'"))
		if auxiliaries[lw] || (len(lw) > 4 && strings.HasSuffix(lw, "ed")) {
			return true
		}
	}
	return false
}

// subjectOf returns the words of a clause before its first auxiliary: the
// subject an elliptical "… and would …" shares.
func subjectOf(words []string) []string {
	for i, w := range words {
		if auxiliaries[strings.ToLower(w)] {
			return words[:i]
		}
	}
	return nil
}

var clauseBreak = regexp.MustCompile(`(?i)\s*;\s*|,?\s+(?:` + alternation("clause_break_conjunctions", "", false) + `)\s+|,\s+(?:` +
	alternation("clause_break_adverbs", "", false) + `)\s*,?\s*`)

// AtomicStatements splits one utterance into atomic statements: sentences,
// then clauses joined by ";", "and", "but" and the like when both sides are
// full clauses, dropping discourse markers and hedges ("No, I think …").
// A right-hand clause that shares the left one's subject ("… was too long
// and would have ruined …") gets the subject written out. "because" keeps
// its reason attached: the reason is part of the opinion.
func AtomicStatements(utterance string) []string {
	var out []string
	for _, sent := range SplitSentences(utterance) {
		sent = strings.TrimRight(strings.TrimSpace(sent), ".!?")
		var parts []string
		rest := sent
		for {
			locs := clauseBreak.FindAllStringIndex(rest, -1)
			split := false
			for _, loc := range locs {
				left := stripFraming(rest[:loc[0]])
				right := stripFraming(rest[loc[1]:])
				lw, rw := strings.Fields(left), strings.Fields(right)
				if len(lw) < 3 || len(rw) < 2 || !hasFiniteVerb(lw) {
					continue
				}
				first := strings.ToLower(rw[0])
				sep := strings.TrimSpace(rest[loc[0]:loc[1]])
				switch {
				case auxiliaries[first]:
					subj := subjectOf(lw)
					if len(subj) == 0 {
						continue
					}
					right = strings.Join(subj, " ") + " " + right
				case clauseSubjects[first] || startsWithName(rw[0]):
					if !hasFiniteVerb(rw) {
						continue
					}
				case strings.HasPrefix(sep, ";") || strings.HasPrefix(sep, ","):
					if !hasFiniteVerb(rw) {
						continue
					}
				default:
					continue
				}
				parts = append(parts, left)
				rest = right
				split = true
				break
			}
			if !split {
				break
			}
		}
		parts = append(parts, stripFraming(rest))
		for _, p := range parts {
			p = strings.TrimSpace(strings.Trim(p, " ,;:"))
			if len(strings.Fields(p)) >= 2 {
				out = append(out, p)
			}
		}
	}
	return out
}

func startsWithName(w string) bool {
	r := []rune(w)
	return len(r) > 1 && unicode.IsUpper(r[0]) && w != "I"
}

// personalSubjects: a clause that opens with one of these has its verb next.
var personalSubjects = wordSet("personal_subjects")
