package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/annalist-dev/annalist/internal/lang/quotes"
)

// Quotations (`annalist eval quotes`) are scored against the collection
// itself: a returned quotation is verbatim when its text is, byte for
// byte, the content of a record, and attributed when that record's author
// (one of them, when several records hold the text) is the author
// returned. It fits a tag when a record of that text and author carries
// the tag. The system has the collection ingested with the tags of the
// held-out quotations (quotes.HeldOut) withheld, so a held-out quotation
// is found for a tag by its words, its embedding and its author alone.

// Splits a quotation system ranks within.
const (
	QuoteSplitAll     = "all"
	QuoteSplitDev     = "dev"
	QuoteSplitHeldOut = "held_out"
)

// QuoteHit is one quotation a system returned.
type QuoteHit struct {
	Text    string
	Author  string
	ChunkID string
}

// QuoteSystem is what Quotes measures: the quotations that fit a query,
// best first, at most n, ranked among the quotations of split (one of the
// QuoteSplit constants; a chunk's split is its record's quotes.HeldOut).
type QuoteSystem interface {
	Quote(ctx context.Context, query string, n int, split string) ([]QuoteHit, error)
}

// QuotesOptions are the topics Quotes asks for: Random tags drawn with
// Seed from the collection's tags (every tag when there are fewer), and
// the Top most frequent tags other than Exclude.
type QuotesOptions struct {
	Random  int
	Seed    uint64
	Top     int
	Exclude string
}

// QuoteTagScore is the precision@5 of one tag's query in each split,
// and how many quotations of each split carry the tag.
type QuoteTagScore struct {
	Tag           string  `json:"tag"`
	Quotes        int     `json:"quotes"`
	DevQuotes     int     `json:"dev_quotes"`
	HeldOutQuotes int     `json:"held_out_quotes"`
	All           float64 `json:"p5_all"`
	Dev           float64 `json:"p5_dev"`
	HeldOut       float64 `json:"p5_held_out"`
}

// QuotePrecision is a macro average of precision@5 by split, over the
// tags at least five quotations of the split carry (a tag with fewer
// cannot reach 1), with the number of such tags.
type QuotePrecision struct {
	All         float64 `json:"all"`
	Dev         float64 `json:"dev"`
	HeldOut     float64 `json:"held_out"`
	TagsAll     int     `json:"tags_all"`
	TagsDev     int     `json:"tags_dev"`
	TagsHeldOut int     `json:"tags_held_out"`
}

// QuotesReport is the result of Quotes.
type QuotesReport struct {
	Records        int     `json:"records"`
	HeldOutRecords int     `json:"held_out_records"`
	Queries        int     `json:"queries"`
	Returned       int     `json:"returned"`
	Verbatim       int     `json:"verbatim"`
	Attributed     int     `json:"attributed"`
	VerbatimRate   float64 `json:"verbatim_rate"`
	AttributedRate float64 `json:"attribution_rate"`
	// Unverbatim and Misattributed list the failures (text, or text and
	// author).
	Unverbatim    []string        `json:"unverbatim,omitempty"`
	Misattributed []string        `json:"misattributed,omitempty"`
	Random        QuotePrecision  `json:"random_tags"`
	Top           QuotePrecision  `json:"top_tags"`
	TopTags       []QuoteTagScore `json:"top_tag_scores"`
	RandomTags    []QuoteTagScore `json:"random_tag_scores"`
}

// QuoteTopics are the tags of recs Quotes asks for: opt.Random drawn
// with opt.Seed from every tag, and the opt.Top most frequent but
// opt.Exclude (ties by name), each with its count.
func QuoteTopics(recs []quotes.Record, opt QuotesOptions) (random, top []string, count map[string]int) {
	count = map[string]int{}
	for _, r := range recs {
		for _, t := range r.Tags {
			count[t]++
		}
	}
	var tags []string
	for t := range count {
		tags = append(tags, t)
	}
	sort.Strings(tags)
	rng := rand.New(rand.NewPCG(opt.Seed, opt.Seed^0x9e3779b97f4a7c15))
	perm := rng.Perm(len(tags))
	for _, i := range perm[:min(opt.Random, len(tags))] {
		random = append(random, tags[i])
	}
	byCount := slices.Clone(tags)
	sort.SliceStable(byCount, func(i, j int) bool { return count[byCount[i]] > count[byCount[j]] })
	for _, t := range byCount {
		if len(top) == opt.Top {
			break
		}
		if t != opt.Exclude {
			top = append(top, t)
		}
	}
	return random, top, count
}

// Quotes asks sys for five quotations for every topic of QuoteTopics in
// every split and scores what it returns against recs.
func Quotes(ctx context.Context, sys QuoteSystem, recs []quotes.Record, opt QuotesOptions) (QuotesReport, error) {
	type key struct{ text, author string }
	tagsOf := map[key]map[string]bool{}
	authors := map[string][]string{}
	rep := QuotesReport{Records: len(recs)}
	for _, r := range recs {
		if quotes.HeldOut(r.ID) {
			rep.HeldOutRecords++
		}
		k := key{r.Content, r.Author}
		if tagsOf[k] == nil {
			tagsOf[k] = map[string]bool{}
			authors[r.Content] = append(authors[r.Content], r.Author)
		}
		for _, t := range r.Tags {
			tagsOf[k][t] = true
		}
	}
	random, top, count := QuoteTopics(recs, opt)
	held := map[string]int{}
	for _, r := range recs {
		if quotes.HeldOut(r.ID) {
			for _, t := range r.Tags {
				held[t]++
			}
		}
	}
	score := func(tag string) (QuoteTagScore, error) {
		s := QuoteTagScore{Tag: tag, Quotes: count[tag], DevQuotes: count[tag] - held[tag], HeldOutQuotes: held[tag]}
		for _, split := range []string{QuoteSplitAll, QuoteSplitDev, QuoteSplitHeldOut} {
			hits, err := sys.Quote(ctx, tag, 5, split)
			if err != nil {
				return s, fmt.Errorf("quote %q (%s): %w", tag, split, err)
			}
			rep.Queries++
			fit := 0
			for _, h := range hits {
				rep.Returned++
				as, ok := authors[h.Text]
				if !ok {
					rep.Unverbatim = append(rep.Unverbatim, h.Text)
					continue
				}
				rep.Verbatim++
				if !slices.Contains(as, h.Author) {
					rep.Misattributed = append(rep.Misattributed, fmt.Sprintf("%q — %s", h.Text, h.Author))
					continue
				}
				rep.Attributed++
				if tagsOf[key{h.Text, h.Author}][tag] {
					fit++
				}
			}
			p := float64(fit) / 5
			switch split {
			case QuoteSplitAll:
				s.All = p
			case QuoteSplitDev:
				s.Dev = p
			default:
				s.HeldOut = p
			}
		}
		return s, nil
	}
	for _, part := range []struct {
		tags   []string
		scores *[]QuoteTagScore
		macro  *QuotePrecision
	}{{random, &rep.RandomTags, &rep.Random}, {top, &rep.TopTags, &rep.Top}} {
		for _, tag := range part.tags {
			s, err := score(tag)
			if err != nil {
				return rep, err
			}
			*part.scores = append(*part.scores, s)
			m := part.macro
			for _, c := range []struct {
				n   int
				p   float64
				sum *float64
				k   *int
			}{{s.Quotes, s.All, &m.All, &m.TagsAll}, {s.DevQuotes, s.Dev, &m.Dev, &m.TagsDev}, {s.HeldOutQuotes, s.HeldOut, &m.HeldOut, &m.TagsHeldOut}} {
				if c.n >= 5 {
					*c.sum += c.p
					*c.k++
				}
			}
		}
		m := part.macro
		for _, c := range []struct {
			sum *float64
			k   int
		}{{&m.All, m.TagsAll}, {&m.Dev, m.TagsDev}, {&m.HeldOut, m.TagsHeldOut}} {
			if c.k > 0 {
				*c.sum /= float64(c.k)
			}
		}
	}
	if rep.Returned > 0 {
		rep.VerbatimRate = float64(rep.Verbatim) / float64(rep.Returned)
		rep.AttributedRate = float64(rep.Attributed) / float64(rep.Returned)
	}
	return rep, nil
}
