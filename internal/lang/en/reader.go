package en

import (
	"github.com/annalist-dev/annalist/internal/lang/factkit"
	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/schemas"
)

// Reader reads the facts of English chunks. The patterns are the same
// under every English profile. The zero value is ready.
type Reader struct{}

// Read returns the facts the English patterns state in chunk c; the
// whole text is about the persons it names, so the reading has no parts.
// It never fails.
func (Reader) Read(_ *profile.Profile, c schemas.Chunk) (factkit.Reading, error) {
	return factkit.Reading{Facts: extractEnglish(c.Text, factkit.EntryPerson(c))}, nil
}
