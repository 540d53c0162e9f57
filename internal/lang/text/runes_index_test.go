package text_test

import (
	"testing"

	"github.com/annalist-dev/annalist/internal/lang/text"
)

func TestIndexRunes(t *testing.T) {
	hay := []rune("刘基宋濂叶琛宋濂")
	for _, tt := range []struct {
		needle string
		from   int
		want   int
	}{
		{"宋濂", 0, 2}, {"宋濂", 3, 6}, {"宋濂", 7, -1}, {"章溢", 0, -1}, {"", 0, -1}, {"刘基", -1, -1},
	} {
		if got := text.IndexRunes(hay, []rune(tt.needle), tt.from); got != tt.want {
			t.Errorf("IndexRunes(%q, %d) = %d, want %d", tt.needle, tt.from, got, tt.want)
		}
	}
}
