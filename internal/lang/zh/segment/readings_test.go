package segment_test

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/kit/goldentest"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/segment"
)

// reading is one case of testdata/readings.jsonl: a volume written for
// the test in the manner of the histories and the scholars' records, and
// what the liezhuan rules read in it. Only the fields a case gives are
// checked.
type reading struct {
	Name string `json:"name"`
	// Text is the volume; "{pad N}" stands for N times pad.
	Text string `json:"text"`
	// Entries are the persons the pieces open, in order: a main entry's
	// as "name", an attached person's as "name<main".
	Entries []string `json:"entries"`
	// Sub maps the first six characters of every piece to the attached
	// person it opens, empty for pieces that open none.
	Sub map[string]string `json:"sub"`
	// Listed are the parenthesised groups of the volume's listing.
	Listed []string `json:"listed"`
	// Biography says whether lines of the volume open entries with a name
	// and a formula (EntryOpenings), the evidence a profile is detected by.
	Biography *bool `json:"biography"`
}

// pad is a sentence that names nobody, to give entries a biography's
// length.
const pad = "历官有声，民甚德之。"

var padRE = regexp.MustCompile(`\{pad (\d+)\}`)

// loadReadings reads testdata/readings.jsonl (internal/kit/goldentest)
// with each "{pad N}" written out.
func loadReadings(t *testing.T) []reading {
	t.Helper()
	cases, err := goldentest.Read[reading](os.DirFS("testdata"), "readings.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]reading, 0, len(cases))
	for _, c := range cases {
		r := c.Value
		r.Text = padRE.ReplaceAllStringFunc(r.Text, func(m string) string {
			k, _ := strconv.Atoi(padRE.FindStringSubmatch(m)[1])
			return strings.Repeat(pad, k)
		})
		out = append(out, r)
	}
	return out
}

// TestReadings reads every volume of testdata/readings.jsonl with the
// liezhuan rules and checks what the case gives.
func TestReadings(t *testing.T) {
	p, ok := profile.Default().Get(profile.Liezhuan)
	if !ok {
		t.Fatal("no liezhuan profile")
	}
	rules := segment.New(p)
	cases := loadReadings(t)
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			rs := []rune(tc.Text)
			d := segment.NewDoc(rs, text.SentencesRunes(rs))
			pieces := rules.Read(d, rules.Marks(d))
			pos := 0
			var entries []string
			sub := map[string]string{}
			for _, pc := range pieces {
				if pc.Start != pos || pc.End <= pc.Start {
					t.Fatalf("piece [%d,%d) after offset %d: the pieces do not tile the text", pc.Start, pc.End, pos)
				}
				pos = pc.End
				head := string(rs[pc.Start:min(pc.End, pc.Start+6)])
				sub[head] = ""
				switch {
				case pc.Kind == segment.MarkEntry && pc.Subject != "":
					entries = append(entries, pc.Subject)
				case pc.Kind == segment.MarkSub && pc.Subject != "":
					if pc.Main == "" {
						t.Errorf("piece %q: attached person %q outside any entry", head, pc.Subject)
					}
					entries = append(entries, pc.Subject+"<"+pc.Main)
					sub[head] = pc.Subject
				}
			}
			if pos != len(rs) {
				t.Fatalf("the pieces cover %d of %d characters", pos, len(rs))
			}
			if tc.Entries != nil && !slices.Equal(entries, tc.Entries) {
				t.Errorf("entries %q, want %q", entries, tc.Entries)
			}
			if tc.Sub != nil && fmt.Sprint(sub) != fmt.Sprint(tc.Sub) {
				t.Errorf("attached people by piece\n got %q\nwant %q", sub, tc.Sub)
			}
			if tc.Listed != nil && !slices.Equal(rules.Listed(d), tc.Listed) {
				t.Errorf("listed %q, want %q", rules.Listed(d), tc.Listed)
			}
			if tc.Biography != nil {
				if got := rules.EntryOpenings(d) > 0; got != *tc.Biography {
					t.Errorf("opens entries: %v, want %v", got, *tc.Biography)
				}
			}
		})
	}
}
