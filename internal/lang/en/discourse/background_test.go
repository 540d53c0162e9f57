package discourse_test

import (
	"slices"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/lang/en/discourse"
	"github.com/annalist-dev/annalist/schemas"
)

// harbourStory is a small news story of our own: a lead, the ruling the
// discussion is about, a quote on it, and paragraphs on other matters.
func harbourStory(turns ...string) schemas.Discussion {
	d := schemas.Discussion{ID: "harbour", Background: []schemas.Paragraph{
		{Index: 1, Text: "The city council of Marlow voted on Monday to close the old harbour to cargo ships from next spring."},
		{Index: 2, Text: "The decision ends two centuries of freight traffic and follows a long dispute with the dock workers' union over wages."},
		{Index: 3, Text: "Union leader Petra Lind called the vote a betrayal and said her members would strike for a week in protest."},
		{Index: 4, Text: "Separately, the council approved a new cycling lane along the river promenade, to be finished in the autumn."},
		{Index: 5, Text: "A local bakery on Quay Street celebrated its hundredth anniversary with free pastries for schoolchildren."},
		{Index: 6, Text: "Weather forecasters expect a mild winter with heavy rain in the western valleys."},
	}}
	for i, t := range turns {
		d.Turns = append(d.Turns, schemas.Turn{Participant: []string{"Person1", "Person2"}[i%2], Utterance: t})
	}
	return d
}

func TestSelectBackground(t *testing.T) {
	cases := []struct {
		name       string
		d          schemas.Discussion
		want, miss []int
	}{
		{
			name: "the ruling and the strike",
			d: harbourStory(
				"I think closing the harbour to cargo ships is right; freight traffic is noisy.",
				"No, the dock workers lose their wages, and a strike by the union is fair.",
				"The union's strike will not change the council's vote."),
			want: []int{1, 2, 3},
			miss: []int{5, 6},
		},
		{
			name: "the side story only",
			d: harbourStory(
				"The bakery's hundredth anniversary is lovely, free pastries for schoolchildren!",
				"Yes, a bakery that lasts a hundred years on Quay Street deserves it."),
			want: []int{5},
			miss: []int{1, 2, 6},
		},
		{
			// The pooled turns talk mostly about the harbour; the last
			// turn rests on the cycling lane alone, which it must bring in.
			name: "one turn on a side matter",
			d: harbourStory(
				"Closing the old harbour to cargo ships ends two centuries of freight traffic, a sad decision by the council.",
				"The dock workers' union and Petra Lind are right to strike over the vote and the lost wages of the dock workers.",
				"At least the cycling lane along the river promenade will be finished in the autumn."),
			want: []int{1, 4},
			miss: []int{5, 6},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, g := range []*discourse.Graph{nil, discourse.BuildGraph(c.d)} {
				got := discourse.SelectBackground(c.d, g)
				if !slices.IsSorted(got) {
					t.Errorf("graph %v: %v is not in ascending order", g != nil, got)
				}
				for _, w := range c.want {
					if !slices.Contains(got, w) {
						t.Errorf("graph %v: selection %v lacks paragraph %d", g != nil, got, w)
					}
				}
				for _, m := range c.miss {
					if slices.Contains(got, m) {
						t.Errorf("graph %v: selection %v holds paragraph %d", g != nil, got, m)
					}
				}
			}
		})
	}
}

func TestSelectBackgroundEdges(t *testing.T) {
	// Nothing shared: the lead alone.
	d := harbourStory("Hmm.", "Indeed, quite so.")
	if got := discourse.SelectBackground(d, nil); !slices.Equal(got, []int{1}) {
		t.Errorf("no shared word: got %v, want [1]", got)
	}
	// Paragraph order in the input does not matter.
	d = harbourStory("The bakery's hundredth anniversary is lovely, free pastries for schoolchildren!")
	want := discourse.SelectBackground(d, nil)
	slices.Reverse(d.Background)
	if got := discourse.SelectBackground(d, nil); !slices.Equal(got, want) {
		t.Errorf("reversed paragraphs: got %v, want %v", got, want)
	}
	// Two paragraphs or fewer: all of them.
	d.Background = d.Background[:2]
	if got := discourse.SelectBackground(d, nil); len(got) != 2 {
		t.Errorf("two paragraphs: got %v", got)
	}
	d.Background = nil
	if got := discourse.SelectBackground(d, nil); len(got) != 0 {
		t.Errorf("no paragraph: got %v", got)
	}
}

// TestSelectBackgroundKGDS scores the selection on the KGDS development
// data (BSP, as the paper computes it) and holds it to the floors it
// reaches there. Run it with -v to see the figures.
func TestSelectBackgroundKGDS(t *testing.T) {
	path := datasettest.Require(t, "kgds/dev.json")
	samples, err := eval.ReadKGDS(path)
	if err != nil {
		t.Fatal(err)
	}
	rep := eval.KGDS(samples, func(d schemas.Discussion) schemas.DiscussionSummary {
		return schemas.DiscussionSummary{ID: d.ID, Background: schemas.BackgroundSummary{
			Paragraphs: discourse.SelectBackground(d, discourse.BuildGraph(d))}}
	})
	for _, s := range []struct {
		name  string
		score eval.KGDSScore
		floor float64
	}{{"overall", rep.Overall, 0.60}, {"dev", rep.Dev, 0.60}, {"held_out", rep.HeldOut, 0.55}} {
		t.Logf("%-8s %2d samples: BSP P %.2f R %.2f F1 %.2f, selected %.0f%% of paragraphs (gold %.0f%%)", s.name, s.score.Samples,
			100*s.score.BSPPrecision, 100*s.score.BSPRecall, 100*s.score.BSPF1, 100*s.score.SelectedShare, 100*s.score.GoldShare)
		if s.score.BSPF1 < s.floor {
			t.Errorf("%s: BSP F1 %.4f below %.2f", s.name, s.score.BSPF1, s.floor)
		}
	}
}
