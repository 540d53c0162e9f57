// Package profiletest gives tests the embedded corpus profiles plus test
// profiles added as files only (testdata/qingshi: a corpus that extends
// liezhuan), which is how a new corpus is added. Only tests import it.
package profiletest

import (
	"embed"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/annalist-dev/annalist/internal/lang/profile"
)

//go:embed testdata
var testdata embed.FS

// Set loads the embedded profiles and the test profiles into one set; it
// fails t when any file does not load.
func Set(t testing.TB) *profile.Set {
	t.Helper()
	extra, err := fs.Sub(testdata, "testdata")
	if err != nil {
		t.Fatal(err)
	}
	m := fstest.MapFS{}
	for _, root := range []fs.FS{profile.Data(), extra} {
		err := fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(root, p)
			m[p] = &fstest.MapFile{Data: b}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	s, err := profile.Load(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
