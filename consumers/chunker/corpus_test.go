package chunker_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"
	"github.com/annalist-dev/annalist/schemas"
)

func corpusDocs(t *testing.T, sub string) []schemas.Document {
	t.Helper()
	dir := datasettest.Require(t, sub)
	paths, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no volumes in %s: %v", dir, err)
	}
	var docs []schemas.Document
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, schemas.Document{DocID: filepath.Base(p), Text: string(b)})
	}
	return docs
}

// The Draft History of Qing volumes are biography volumes: detected as
// liezhuan from their entry openings (clans, banners, kinship clauses),
// listing or not. A volume may treat no person (one on tribes); nineteen
// in twenty must be detected.
func TestQingVolumesAreBiographies(t *testing.T) {
	docs := corpusDocs(t, "qingshigao-liezhuan")
	n := 0
	for _, d := range docs {
		if chunker.Detect(d.Text) == chunker.ProfileLiezhuan {
			n++
		} else {
			t.Logf("%s detected generic", d.DocID)
		}
	}
	if 20*n < 19*len(docs) {
		t.Errorf("%d of %d Qing volumes detected as biographies", n, len(docs))
	}
}

// On every History of Ming volume, attached people's chunks keep the
// contract: the attached chunk opens a person's own text inside a main
// person's entry, whose Entry and EntryChunk it keeps, and the chunks cut
// from its text follow it with the same SubEntry and Main.
func TestAttachedChunksOnCorpus(t *testing.T) {
	c := chunker.New(chunker.Config{})
	attached := 0
	for _, d := range corpusDocs(t, "mingshi-liezhuan") {
		chunks, err := c.Chunk(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		checkTiles(t, d, chunks)
		for _, ch := range chunks {
			if ch.Attached {
				attached++
				if ch.Main == "" || ch.Main == ch.Subject || ch.Entry != ch.Main || ch.EntryChunk == ch.ChunkID {
					t.Fatalf("%s: attached chunk %+v", d.DocID, ch)
				}
			}
		}
	}
	if attached == 0 {
		t.Fatal("no attached person in the History of Ming volumes")
	}
}

// Without the listing, the entries of the History of Ming volumes are
// found from the text: a line that opens "Name，" with a name the closing
// appraisal (赞曰) writes begins a main entry though its words may give
// no formula ("蔡迁，不详其乡里"); and the main entries cover most of
// line 1's names, in order, while few are people line 1 does not name
// (`annalist eval segmentation --no-listing` gives the exact figures).
func TestMingWithoutListing(t *testing.T) {
	c := chunker.New(chunker.Config{})
	var listedChars, coveredChars, mains, named int
	for _, d := range corpusDocs(t, "mingshi-liezhuan") {
		line1, body, _ := strings.Cut(d.Text, "\n")
		d.Text = body
		chunks, err := c.Chunk(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		starts := map[int]bool{}
		var subjects []string
		for _, ch := range chunks {
			if ch.Subject != "" && !ch.Attached {
				starts[ch.Start] = true
				subjects = append(subjects, ch.Subject)
			}
		}
		lines := strings.Split(body, "\n")
		var appraisal string
		for _, l := range lines {
			if strings.HasPrefix(l, "赞曰") {
				appraisal += l
			}
		}
		pos := 0
		for _, l := range lines {
			lr := []rune(l)
			if k := slices.Index(lr, '，'); appraisal != "" && k >= 2 && k <= 3 && strings.Contains(appraisal, string(lr[:k])) &&
				!strings.ContainsAny(string(lr[:k]), "年月日") && !starts[pos] {
				t.Errorf("%s: %q, named in the appraisal, begins no main entry", d.DocID, string(lr[:min(len(lr), 12)]))
			}
			pos += len(lr) + 1
		}
		main, groups := listingOf(line1)
		if main == "" {
			continue
		}
		listedChars += len([]rune(main))
		at := 0
		for _, s := range subjects {
			mains++
			if strings.Contains(main, s) || slices.ContainsFunc(groups, func(g string) bool { return strings.Contains(g, s) }) {
				named++
			}
			if q := strings.Index(main[at:], s); q >= 0 {
				coveredChars += len([]rune(s))
				at += q + len(s)
			}
		}
	}
	t.Logf("line 1 characters covered %d/%d, main entries listed %d/%d", coveredChars, listedChars, named, mains)
	if 100*coveredChars < 97*listedChars || 100*named < 94*mains {
		t.Errorf("without the listing: main entries cover %d of %d listed characters; %d of %d main entries are listed",
			coveredChars, listedChars, named, mains)
	}
}

// listingOf reads line 1 of a volume: the main names run together and the
// parenthesised groups; a line that is a title (◎) or prose lists nobody.
func listingOf(line string) (string, []string) {
	line = strings.TrimSpace(line)
	if strings.HasPrefix(line, "◎") || strings.ContainsAny(line, "，。：；！？") {
		return "", nil
	}
	var main strings.Builder
	var groups []string
	var cur strings.Builder
	depth := 0
	for _, r := range line {
		switch {
		case r == '(' || r == '（':
			if cur.Len() > 0 {
				groups, cur = append(groups, cur.String()), strings.Builder{}
			}
			depth++
		case r == ')' || r == '）':
			if cur.Len() > 0 {
				groups, cur = append(groups, cur.String()), strings.Builder{}
			}
			depth = max(0, depth-1)
		case strings.ContainsRune(" ◎○△·", r):
		case depth > 0:
			cur.WriteRune(r)
		default:
			main.WriteRune(r)
		}
	}
	return main.String(), groups
}
