package chunker_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/internal/dataset/datasettest"
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
