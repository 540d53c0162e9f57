// Package demo holds the small corpus `annalist demo` ingests: short texts
// written for the project, in classical-Chinese biography style (a
// liezhuan volume and a notebook that names its people by their courtesy
// and art names) and in English (a Markdown article and a plain text);
// and the news discussions it sends to be summarised (Discussions,
// SendDiscussions), whose summaries feed the UI's Discussions view.
package demo

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/zh/glossary"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

//go:embed corpus
var corpus embed.FS

// Documents returns the demo corpus and the shipped glossary as documents
// ready to publish, sorted by source, with the same stable ids the file producer would give them.
func Documents() ([]producers.Item, error) {
	var items []producers.Item
	err := fs.WalkDir(corpus, "corpus", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := corpus.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, "corpus/")
		title := strings.TrimSuffix(path.Base(p), path.Ext(p))
		if path.Ext(p) == ".md" {
			if first, _, ok := strings.Cut(string(data), "\n"); ok && strings.HasPrefix(first, "# ") {
				title = strings.TrimPrefix(first, "# ")
			}
		}
		it, err := producers.NewItem(schemas.Document{
			Source:     "demo/" + rel,
			Title:      title,
			Collection: "demo",
			Text:       string(data),
		})
		if err != nil {
			return err
		}
		items = append(items, it)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The glossary the knowledge solver looks terms up in is ingested like
	// any collection.
	g, err := producers.NewItem(glossary.Document())
	if err != nil {
		return nil, err
	}
	items = append(items, g)
	sort.Slice(items, func(i, j int) bool { return items[i].Doc.Source < items[j].Doc.Source })
	return items, nil
}
