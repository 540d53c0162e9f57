package claims

import "testing"

// TestWordLists holds every embedded word list to the shape
// internal/lang/wordlist.Check describes.
func TestWordLists(t *testing.T) {
	for _, err := range words.Check() {
		t.Error(err)
	}
}
