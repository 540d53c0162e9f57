package discourse

import (
	"hash/fnv"
	"strings"
	"unicode"

	"github.com/annalist-dev/annalist/schemas"
)

// Summarize summarises a discussion offline: the background paragraphs
// SelectBackground chooses, each sentence cited to its paragraph, and per
// participant (in the order they first speak) the atomic opinions of their
// turns as "PersonN thinks that …", implicit references resolved through
// the discussion's graph, each sentence citing its turn and listing the
// background entities it names (canonical names).
func Summarize(d schemas.Discussion) schemas.DiscussionSummary {
	g := BuildGraph(d)
	s := schemas.DiscussionSummary{ID: d.ID}
	s.Background.Paragraphs = SelectBackground(d, g)
	s.Background.Sentences = []schemas.BackgroundSentence{}
	for _, i := range s.Background.Paragraphs {
		p, ok := d.Paragraph(i)
		if !ok {
			continue
		}
		for _, t := range SplitSentences(p.Text) {
			s.Background.Sentences = append(s.Background.Sentences, schemas.BackgroundSentence{
				Text: t, Citations: []schemas.ParagraphCitation{{Paragraph: i}},
			})
		}
	}
	byParticipant := map[string]int{}
	for _, p := range d.Participants() {
		byParticipant[p] = len(s.Opinions)
		s.Opinions = append(s.Opinions, schemas.ParticipantOpinions{Participant: p, Sentences: []schemas.OpinionSentence{}})
	}
	r := NewResolver(g)
	r.Focus(s.Background.Paragraphs)
	for _, o := range Opinions(d, g, r) {
		k := byParticipant[o.participant]
		s.Opinions[k].Sentences = append(s.Opinions[k].Sentences, o.OpinionSentence)
	}
	return s
}

type opinion struct {
	participant string
	schemas.OpinionSentence
}

// Opinions returns the atomic opinions of a discussion's turns in turn
// order, references resolved by r (which keeps the discussion's history).
func Opinions(d schemas.Discussion, g *Graph, r *Resolver) []opinion {
	var out []opinion
	if r.scopes == nil {
		r.ScopeTurns(d.Turns)
	}
	for ti, t := range d.Turns {
		mid := capitalisedMid(t.Utterance)
		for _, st := range AtomicStatements(t.Utterance) {
			for _, ts := range r.ResolveStatements(tokenize(st), ti, t.Participant) {
				text := opinionText(t.Participant, ts, g, mid)
				ents := []string{}
				for _, e := range g.EntitiesIn(text) {
					ents = append(ents, e.Name)
				}
				out = append(out, opinion{t.Participant, schemas.OpinionSentence{
					Text: text, Entities: ents, Citations: []schemas.TurnCitation{{Turn: ti}},
				}})
			}
		}
	}
	return out
}

// firstPersonVerbs: the speaker's own verb after "I" in the third person.
var firstPersonVerbs = map[string]string{
	"am": "is", "'m": "is", "have": "has", "'ve": "has", "do": "does", "don't": "doesn't",
	"was": "was", "can": "can", "could": "could", "would": "would", "will": "will",
	"should": "should", "must": "must", "might": "might", "may": "may", "had": "had",
	"did": "did", "didn't": "didn't", "can't": "can't", "won't": "won't",
}

// opinionText writes a statement as the participant's opinion: "PersonN
// thinks that <statement>"; a statement about the speaker ("I'm
// dissatisfied …", "I hope …") is written with the participant as its
// subject ("PersonN is dissatisfied …"); "my", "me" become the participant.
func opinionText(participant string, ts []token, g *Graph, mid map[string]bool) string {
	for i := range ts {
		switch strings.ToLower(ts[i].Text) {
		case "my", "mine":
			ts[i].Text = participant + "'s"
		case "me", "myself":
			ts[i].Text = participant
		}
	}
	first := firstWord(ts)
	if first >= 0 && ts[first].Text == "I" {
		rest := ts[first+1:]
		if len(rest) > 0 {
			// "I'm" is tokenised as one word
			if v, ok := firstPersonVerbs[strings.ToLower(rest[0].Text)]; ok {
				rest[0].Text = v
			} else {
				k := 0
				for k < len(rest)-1 && adverbs[strings.ToLower(rest[k].Text)] {
					k++
				}
				rest[k].Text = thirdPerson(rest[k].Text)
			}
		}
		return finish(participant + " " + render(rest))
	}
	if first >= 0 {
		lw := strings.ToLower(ts[first].Text)
		switch {
		case lw == "i'm":
			ts[first].Text = "is"
			return finish(participant + " " + render(ts[first:]))
		case lw == "i've":
			ts[first].Text = "has"
			return finish(participant + " " + render(ts[first:]))
		case !ts[first].Name && !startsName(g, ts, first) && !isAllCaps(ts[first].Text) && !strings.HasPrefix(ts[first].Text, "Person") && !mid[ts[first].Text]:
			ts[first].Text = lowerFirst(ts[first].Text)
		}
	}
	return finish(participant + " thinks that " + render(ts))
}

var adverbs = wordSet("adverbs")

func thirdPerson(v string) string {
	lv := strings.ToLower(v)
	switch {
	case lv == "" || !isLowerWord(v):
		return v
	case strings.HasSuffix(lv, "s") || strings.HasSuffix(lv, "sh") || strings.HasSuffix(lv, "ch") || strings.HasSuffix(lv, "x") || strings.HasSuffix(lv, "o"):
		return v + "es"
	case strings.HasSuffix(lv, "y") && len(lv) > 1 && !strings.ContainsRune("aeiou", rune(lv[len(lv)-2])):
		return v[:len(v)-1] + "ies"
	}
	return v + "s"
}

func firstWord(ts []token) int {
	for i, t := range ts {
		if t.Text != "" {
			return i
		}
	}
	return -1
}

func lowerFirst(s string) string {
	r := []rune(s)
	if len(r) > 1 && unicode.IsUpper(r[1]) {
		return s
	}
	r[0] = unicode.ToLower(r[0])
	return string(r)
}

func finish(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimRight(s, ",;: ")
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "!") {
		s += "."
	}
	return s
}

// HeldOut reports whether a sample belongs to the held-out fifth: its id's
// FNV-1a hash falls in the last fifth. Development figures are reported
// without these samples, held-out figures on them alone.
func HeldOut(id string) bool {
	h := fnv.New32a()
	h.Write([]byte(id))
	return h.Sum32()%5 == 4
}

func startsName(g *Graph, ts []token, i int) bool {
	if e, _ := g.match(ts, i); e != nil {
		return true
	}
	w := strings.TrimSuffix(strings.TrimSuffix(ts[i].Text, "'s"), "'")
	return g.Lookup(w) != nil
}

// capitalisedMid are the words a text writes capitalised inside a
// sentence: names, which keep their capital when an opinion opens with
// them ("I feel Bolt should …" → "… thinks that Bolt should …").
func capitalisedMid(text string) map[string]bool {
	out := map[string]bool{}
	for _, s := range SplitSentences(text) {
		ts := tokenize(s)
		for i := 1; i < len(ts); i++ {
			if isCapitalised(ts[i].Text) && ts[i].Text != "I" && !sentenceOpener(ts[i-1].Text) {
				out[ts[i].Text] = true
			}
		}
	}
	return out
}
