package chunker

import (
	"fmt"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/quotes"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// quoteChunks is the one chunk of a quotation document (profile
// quotes.Profile): the quotation verbatim, whatever its length, with its
// author (the document's metadata) as subject and the document's title,
// which carries the tags. A quotation document without an author is a
// permanent error: a quotation is never published unattributed.
func quoteChunks(doc schemas.Document, lang string) ([]schemas.Chunk, error) {
	author := strings.TrimSpace(doc.Metadata[quotes.MetaAuthor])
	if author == "" {
		return nil, pipeline.Permanent(fmt.Errorf("chunk document %s: a quotation document needs metadata %q", doc.DocID, quotes.MetaAuthor))
	}
	return []schemas.Chunk{{
		ChunkID: chunkID(doc.DocID, 0), DocID: doc.DocID, Seq: 0, Total: 1,
		Collection: doc.Collection, Profile: quotes.Profile, Method: MethodPattern,
		Subject: author, Start: 0, End: text.RuneLen(doc.Text), Text: doc.Text, Lang: lang, Title: doc.Title,
	}}, nil
}
