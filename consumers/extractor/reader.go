package extractor

import (
	"github.com/annalist-dev/annalist/internal/lang/en"
	"github.com/annalist-dev/annalist/internal/lang/factkit"
	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/zh"
	"github.com/annalist-dev/annalist/schemas"
)

// Reader reads the facts a language's hand-made rules state in a chunk:
// internal/lang/zh for classical Chinese, internal/lang/en for
// English. The stage picks the reader by the language of the chunk's
// profile.
type Reader interface {
	// Read returns the facts of chunk c read with profile p, the parts of
	// its text by the person each is about, and, when the reader offers
	// it, its reading of known persons (see factkit.Reading). An error is
	// a profile the reader cannot build its rules from.
	Read(p *profile.Profile, c schemas.Chunk) (factkit.Reading, error)
}

// defaultReaders are the readers by profile language: a chunk in any
// other language yields no hand-made facts.
func defaultReaders() map[string]Reader {
	return map[string]Reader{
		profile.LangChinese: &zh.Reader{},
		profile.LangEnglish: en.Reader{},
	}
}

// readerOf is the reader of chunk c's profile language, or nil.
func (e *Extractor) readerOf(c schemas.Chunk) Reader {
	return e.readers[e.profileOf(c).Language]
}
