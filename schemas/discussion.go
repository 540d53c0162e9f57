package schemas

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// A discussion about a news story (KGDS): the background
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

// TypeDiscussion is the message type of a discussion on the discussions
// topic; TypeFeedItem of a published summary on the feed topic.
const (
	TypeDiscussion = "discussion"
	TypeFeedItem   = "feed_item"
)

func (Discussion) MessageType() string    { return TypeDiscussion }
func (Discussion) SchemaVersion() int     { return 1 }
func (d Discussion) PartitionKey() string { return d.ID }

// Reference sources of a discussion summary's reference set.
const (
	// SourceParagraph: a background paragraph of the discussion.
	SourceParagraph = "paragraph"
	// SourceTurn: a turn of the discussion.
	SourceTurn = "turn"
)

// ParagraphRef is the reference id (Reference.ChunkID, a draft's citation)
// of paragraph index of discussion id; TurnRef that of its turn (0-based).
// ParseDiscussionRef reads either back.
func ParagraphRef(id string, index int) string { return fmt.Sprintf("disc:%s:p%d", id, index) }

// TurnRef is the reference id of turn (0-based) of discussion id.
func TurnRef(id string, turn int) string { return fmt.Sprintf("disc:%s:t%d", id, turn) }

// ParseDiscussionRef reads a reference id written by ParagraphRef or
// TurnRef: the discussion id, whether it names a turn, and the paragraph
// index or turn. ok is false for any other id.
func ParseDiscussionRef(ref string) (id string, turn bool, n int, ok bool) {
	rest, found := strings.CutPrefix(ref, "disc:")
	i := strings.LastIndexByte(rest, ':')
	if !found || i <= 0 || i+2 > len(rest) {
		return "", false, 0, false
	}
	id, tail := rest[:i], rest[i+1:]
	if tail[0] != 'p' && tail[0] != 't' {
		return "", false, 0, false
	}
	v, err := strconv.Atoi(tail[1:])
	if err != nil || v < 0 || strings.TrimLeft(tail[1:], "0123456789") != "" {
		return "", false, 0, false
	}
	return id, tail[0] == 't', v, true
}

// FeedItem is one published discussion summary on the feed topic
// (compacted by discussion id: the newest version of a discussion's
// summary replaces the older): the summary, the page version it was read
// from and when.
type FeedItem struct {
	ID        string            `json:"id"`
	Version   int               `json:"version"`
	RequestID string            `json:"request_id,omitempty"`
	Published string            `json:"published"`
	Title     string            `json:"title,omitempty"`
	Summary   DiscussionSummary `json:"summary"`
}

func (FeedItem) MessageType() string    { return TypeFeedItem }
func (FeedItem) SchemaVersion() int     { return 1 }
func (f FeedItem) PartitionKey() string { return f.ID }

// Validate checks a feed item: an id, a positive version, the summary's
// id the item's, every sentence cited.
func (f FeedItem) Validate() error {
	if err := required(TypeFeedItem, [2]string{"id", f.ID}, [2]string{"published", f.Published}); err != nil {
		return err
	}
	if f.Version <= 0 {
		return invalid(TypeFeedItem, "version must be positive")
	}
	if f.Summary.ID != f.ID {
		return invalid(TypeFeedItem, "summary id %q is not the item's %q", f.Summary.ID, f.ID)
	}
	for i, s := range f.Summary.Background.Sentences {
		if len(s.Citations) == 0 {
			return invalid(TypeFeedItem, "background sentence %d has no citation", i)
		}
	}
	for _, o := range f.Summary.Opinions {
		for i, s := range o.Sentences {
			if len(s.Citations) == 0 {
				return invalid(TypeFeedItem, "opinion sentence %d of %s has no citation", i, o.Participant)
			}
		}
	}
	return nil
}
