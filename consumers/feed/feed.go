// Package feed is the feed stage: it reads the pages topic, turns every
// published discussion_summary page into the discussion's summary
// (schemas.DiscussionSummary: the background sentences with the
// paragraphs they cite, each participant's opinions with the turns they
// come from and the entities they name), stores it as the discussion's
// newest feed item, which announces it to the Server-Sent Events
// listeners, and publishes it on the feed topic (compacted by discussion
// id). Pages of every other kind are ignored.
//
// Idempotent: the store keeps an item only when its page version is newer
// than the one it holds (a redelivered or older page changes nothing
// there); a redelivered page publishes the stored item again under the
// same event id (derived from the discussion id and the page version),
// and an older page publishes nothing, so the compacted topic's last word
// on a discussion is its newest summary.
package feed

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// Discussions reads stored discussions; *infra/discussionstore.Store
// implements it.
type Discussions interface {
	Discussion(ctx context.Context, tenant, id string) (d schemas.Discussion, found bool, err error)
}

// Items stores feed items and announces the stored ones;
// *infra/discussionstore.Store implements it.
type Items interface {
	// PutItem stores it unless the store holds the same or a newer
	// version of the discussion's item.
	PutItem(ctx context.Context, tenant string, it schemas.FeedItem) (stored bool, err error)
	// Item is the discussion's item the store holds.
	Item(ctx context.Context, tenant, id string) (schemas.FeedItem, error)
}

// Stage is the feed stage.
type Stage struct {
	discussions Discussions
	items       Items
	now         func() time.Time
}

// New returns the stage; both services are required.
func New(d Discussions, items Items) (*Stage, error) {
	if d == nil || items == nil {
		return nil, errors.New("new feed stage: a discussion store and a feed store are required")
	}
	return &Stage{discussions: d, items: items, now: time.Now}, nil
}

// Handler returns the stage as a pipeline.Handler.
func (s *Stage) Handler() pipeline.Handler { return s.Handle }

// Handle turns a discussion_summary page into its feed item; any other
// page yields nothing. A discussion that is not stored (the page came
// from elsewhere) still gets its item, with the participants read from
// the sections the page names.
func (s *Stage) Handle(ctx context.Context, in pipeline.Input) ([]pipeline.Output, error) {
	p, ok := pipeline.As[schemas.Page](in.Msg)
	if !ok {
		return nil, pipeline.Permanentf("feed input %s at %s/%d/%d: %T is not a page",
			in.Meta.EventID, in.Topic, in.Partition, in.Offset, in.Msg)
	}
	if p.Kind != schemas.KindDiscussionSummary {
		return nil, nil
	}
	tenant := in.Tenant()
	if tenant == "" {
		tenant = schemas.DefaultTenant
	}
	d, found, err := s.discussions.Discussion(ctx, tenant, p.Subject)
	if err != nil {
		return nil, err
	}
	var disc *schemas.Discussion
	if found {
		disc = &d
	}
	it := Item(p, disc, s.now())
	if err := it.Validate(); err != nil {
		return nil, pipeline.Permanent(fmt.Errorf("feed item of page %s version %d: %w", p.Key(), p.Version, err))
	}
	stored, err := s.items.PutItem(ctx, tenant, it)
	if err != nil {
		return nil, err
	}
	if !stored {
		// A version the store has: this page again (its output may not
		// have been produced before a crash, so it is produced again, as
		// stored), or an older one, which must not follow the newer on
		// the compacted topic.
		cur, err := s.items.Item(ctx, tenant, it.ID)
		if err != nil {
			return nil, err
		}
		if cur.Version > it.Version {
			return nil, nil
		}
		it = cur
	}
	return []pipeline.Output{{Topic: topology.Feed, Msg: it,
		EventID: "feed-" + pipeline.ContentID(tenant, it.ID, fmt.Sprint(it.Version))}}, nil
}

// Item is the feed item of a discussion_summary page: the summary
// (Summary), the page's version and request, the publication time and a
// title (Title of the discussion, or its id when it is not known).
func Item(p schemas.Page, d *schemas.Discussion, now time.Time) schemas.FeedItem {
	sum, _ := Summary(p, d)
	title := p.Subject
	if d != nil {
		title = Title(*d)
	}
	return schemas.FeedItem{ID: p.Subject, Version: p.Version, RequestID: p.RequestID,
		Published: now.UTC().Format(time.RFC3339Nano), Title: title, Summary: sum}
}

// Summary reads a discussion_summary page as the discussion's summary.
// A sentence citing paragraphs only (schemas.ParagraphRef) is a
// background sentence; Background.Paragraphs are the cited paragraph
// indices in the order they are first cited. A sentence citing turns only
// (schemas.TurnRef) of one participant is an opinion of that participant;
// the participants are in the order they first speak in d (in the order
// their first opinion comes on the page when d is nil, the participant
// then being the sentence's section). Every other sentence is skipped and
// counted: no citation, a citation that is not of this discussion, a
// paragraph or turn d does not have, turns and paragraphs together, or
// turns of several participants. d may be nil (a discussion not stored);
// the summary's id is the page's subject.
func Summary(p schemas.Page, d *schemas.Discussion) (sum schemas.DiscussionSummary, skipped int) {
	sum = schemas.DiscussionSummary{ID: p.Subject,
		Background: schemas.BackgroundSummary{Paragraphs: []int{}, Sentences: []schemas.BackgroundSentence{}},
		Opinions:   []schemas.ParticipantOpinions{}}
	byParticipant := map[string][]schemas.OpinionSentence{}
	var order []string
	for _, s := range p.Sentences {
		paragraphs, turns, ok := cited(p.Subject, s.Citations, d)
		if !ok {
			skipped++
			continue
		}
		if len(paragraphs) > 0 {
			bs := schemas.BackgroundSentence{Text: s.Text}
			for _, n := range paragraphs {
				bs.Citations = append(bs.Citations, schemas.ParagraphCitation{Paragraph: n})
				if !slices.Contains(sum.Background.Paragraphs, n) {
					sum.Background.Paragraphs = append(sum.Background.Paragraphs, n)
				}
			}
			sum.Background.Sentences = append(sum.Background.Sentences, bs)
			continue
		}
		who, ok := participant(turns, s.Section, d)
		if !ok {
			skipped++
			continue
		}
		op := schemas.OpinionSentence{Text: s.Text, Entities: slices.Clone(s.Entities)}
		if op.Entities == nil {
			op.Entities = []string{}
		}
		for _, t := range turns {
			op.Citations = append(op.Citations, schemas.TurnCitation{Turn: t})
		}
		if _, seen := byParticipant[who]; !seen {
			order = append(order, who)
		}
		byParticipant[who] = append(byParticipant[who], op)
	}
	if d != nil {
		order = slices.DeleteFunc(d.Participants(), func(who string) bool { return byParticipant[who] == nil })
	}
	for _, who := range order {
		sum.Opinions = append(sum.Opinions, schemas.ParticipantOpinions{Participant: who, Sentences: byParticipant[who]})
	}
	return sum, skipped
}

// cited reads a sentence's citations: the paragraphs it cites, or the
// turns, each once in the order cited. ok is false for a sentence citing
// nothing usable, both kinds, or anything that is not a paragraph or turn
// of discussion id (of d, when d is known).
func cited(id string, cs []schemas.Citation, d *schemas.Discussion) (paragraphs, turns []int, ok bool) {
	for _, c := range cs {
		did, turn, n, ok := schemas.ParseDiscussionRef(c.ChunkID)
		if !ok || did != id {
			return nil, nil, false
		}
		switch {
		case turn:
			if d != nil && n >= len(d.Turns) {
				return nil, nil, false
			}
			if !slices.Contains(turns, n) {
				turns = append(turns, n)
			}
		default:
			if d != nil {
				if _, found := d.Paragraph(n); !found {
					return nil, nil, false
				}
			}
			if !slices.Contains(paragraphs, n) {
				paragraphs = append(paragraphs, n)
			}
		}
	}
	if (len(paragraphs) == 0) == (len(turns) == 0) {
		return nil, nil, false
	}
	return paragraphs, turns, true
}

// participant is whose opinion a sentence citing turns is: the speaker of
// the turns in d (one speaker for all), else the sentence's section.
func participant(turns []int, section string, d *schemas.Discussion) (string, bool) {
	if d == nil {
		section = strings.TrimSpace(section)
		return section, section != "" && !strings.EqualFold(section, "background")
	}
	who := d.Turns[turns[0]].Participant
	for _, t := range turns[1:] {
		if d.Turns[t].Participant != who {
			return "", false
		}
	}
	return who, true
}

// Title is a discussion's headline for a reader: the first sentence of
// its first paragraph, cut on a word at about 100 characters.
func Title(d schemas.Discussion) string {
	if len(d.Background) == 0 {
		return d.ID
	}
	t := strings.Join(strings.Fields(d.Background[0].Text), " ")
	for i := 20; i < len(t); i++ {
		if (t[i] == '.' || t[i] == '!' || t[i] == '?') && (i+1 == len(t) || t[i+1] == ' ') {
			t = t[:i+1]
			break
		}
	}
	const most = 100
	if utf8.RuneCountInString(t) <= most {
		return t
	}
	cut := string([]rune(t)[:most])
	if j := strings.LastIndexByte(cut, ' '); j > most/2 {
		cut = cut[:j]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}
