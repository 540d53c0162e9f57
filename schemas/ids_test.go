package schemas_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/schemas"
)

func TestValidID(t *testing.T) {
	good := []string{"d", "叶向高传-3f2a9c01b2d4", "mingshi-liezhuan-卷二百四十-0a1b2c3d4e5f-0003",
		"r0193a5b2c4d1a2b3c4d5e6", "a.b_c:d-e", strings.Repeat("x", schemas.MaxIDChars),
		strings.Repeat("字", schemas.MaxIDChars)}
	for _, id := range good {
		if err := schemas.ValidID("doc_id", id); err != nil {
			t.Errorf("ValidID(%q) = %v; want nil", id, err)
		}
	}
	bad := []string{"", "../../etc/passwd", "a/b/c", "a..b", "..", "a b", "a\\b", "{t}", "a\x1b[31m",
		"a\x00", "tab\there", "a?b", "a#b", "a%2Fb", "\xff", strings.Repeat("x", 100_000),
		strings.Repeat("字", schemas.MaxIDChars+1)}
	for _, id := range bad {
		err := schemas.ValidID("doc_id", id)
		if !errors.Is(err, schemas.ErrInvalid) {
			t.Errorf("ValidID(%.40q) = %v; want ErrInvalid", id, err)
			continue
		}
		if len(err.Error()) > 300 {
			t.Errorf("ValidID of a %d-byte id: error of %d bytes; a refused id must not come back whole", len(id), len(err.Error()))
		}
	}
}
