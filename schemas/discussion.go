package schemas

import (
	"encoding/json"
	"fmt"
	"strings"
)

// A discussion about a news story (seed 003, KGDS): the background
// paragraphs a reader needs and the turns of its participants. Its summary
// is the background that supports the discussion and each participant's
// opinions as clear atomic statements, every implicit reference replaced
// by the entity it denotes, each sentence cited to the paragraph or turn
// it rests on.

// Paragraph is one background paragraph; Index is the paragraph_index the
// source gives it (KGDS counts from 1).
type Paragraph struct {
	Index int    `json:"paragraph_index"`
	Text  string `json:"paragraph_text"`
}

// Turn is one utterance of a participant.
type Turn struct {
	Participant string `json:"participant"`
	Utterance   string `json:"utterance"`
}

// Discussion is the input of a discussion summary. Its JSON is the KGDS
// sample's (SBK, KGD, id), so a KGDS record is accepted as it is; other
// fields of a record are ignored.
type Discussion struct {
	ID         string      `json:"id,omitempty"`
	Background []Paragraph `json:"SBK"`
	Turns      []Turn      `json:"KGD"`
}

// UnmarshalJSON accepts the KGDS record: SBK, KGD and an id that may be a
// string or a number; every other field is ignored.
func (d *Discussion) UnmarshalJSON(b []byte) error {
	var raw struct {
		ID         json.RawMessage `json:"id"`
		Background []Paragraph     `json:"SBK"`
		Turns      []Turn          `json:"KGD"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	d.Background, d.Turns, d.ID = raw.Background, raw.Turns, ""
	if len(raw.ID) > 0 && string(raw.ID) != "null" {
		var s string
		if err := json.Unmarshal(raw.ID, &s); err != nil {
			var n json.Number
			if err := json.Unmarshal(raw.ID, &n); err != nil {
				return fmt.Errorf("discussion id: %s is neither a string nor a number", raw.ID)
			}
			s = n.String()
		}
		d.ID = s
	}
	return nil
}

// Validate checks a discussion's structure: at least one paragraph with
// text, unique paragraph indices, at least one turn, every turn with a
// participant and an utterance.
func (d Discussion) Validate() error {
	if len(d.Background) == 0 {
		return invalid("discussion", "no background paragraph (SBK)")
	}
	seen := map[int]bool{}
	for i, p := range d.Background {
		if strings.TrimSpace(p.Text) == "" {
			return invalid("discussion", "paragraph %d (index %d) has no text", i, p.Index)
		}
		if seen[p.Index] {
			return invalid("discussion", "paragraph index %d given twice", p.Index)
		}
		seen[p.Index] = true
	}
	if len(d.Turns) == 0 {
		return invalid("discussion", "no turn (KGD)")
	}
	for i, t := range d.Turns {
		if strings.TrimSpace(t.Participant) == "" || strings.TrimSpace(t.Utterance) == "" {
			return invalid("discussion", "turn %d has no participant or no utterance", i)
		}
	}
	return nil
}

// Paragraph returns the background paragraph of index, if there is one.
func (d Discussion) Paragraph(index int) (Paragraph, bool) {
	for _, p := range d.Background {
		if p.Index == index {
			return p, true
		}
	}
	return Paragraph{}, false
}

// Participants lists the participants in the order they first speak.
func (d Discussion) Participants() []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range d.Turns {
		if !seen[t.Participant] {
			seen[t.Participant] = true
			out = append(out, t.Participant)
		}
	}
	return out
}

// ParagraphCitation cites a background paragraph.
type ParagraphCitation struct {
	Paragraph int `json:"paragraph_index"`
}

// TurnCitation cites a turn: its 0-based index in the discussion's turns.
type TurnCitation struct {
	Turn int `json:"turn"`
}

// BackgroundSentence is one sentence of the background summary.
type BackgroundSentence struct {
	Text      string              `json:"text"`
	Citations []ParagraphCitation `json:"citations"`
}

// BackgroundSummary is the background a reader needs: the supporting
// paragraphs (extractive, KGDS's BSP task) and their sentences.
type BackgroundSummary struct {
	Paragraphs []int                `json:"paragraphs"`
	Sentences  []BackgroundSentence `json:"sentences"`
}

// OpinionSentence is one atomic opinion: "Person1 thinks that …", the
// entities it names (names of the background, for a reader to link), the
// turn it comes from.
type OpinionSentence struct {
	Text      string         `json:"text"`
	Entities  []string       `json:"entities"`
	Citations []TurnCitation `json:"citations"`
}

// ParticipantOpinions are one participant's opinions.
type ParticipantOpinions struct {
	Participant string            `json:"participant"`
	Sentences   []OpinionSentence `json:"sentences"`
}

// DiscussionSummary is the summary of one discussion.
type DiscussionSummary struct {
	ID         string                `json:"id"`
	Background BackgroundSummary     `json:"background"`
	Opinions   []ParticipantOpinions `json:"opinions"`
}
