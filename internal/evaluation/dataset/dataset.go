// Package dataset locates the public evaluation data that lives beside the
// repository (never inside it): $ANNALIST_DATA when set, else ../shared/data
// relative to the module root.
package dataset

import (
	"os"
	"path/filepath"
)

// EnvVar names the environment variable that overrides the data location.
const EnvVar = "ANNALIST_DATA"

// Root returns the data folder: $ANNALIST_DATA, or shared/data beside the
// module root found by walking up from the working directory. It returns ""
// when neither exists.
func Root() string {
	if d := os.Getenv(EnvVar); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			d := filepath.Join(dir, "..", "shared", "data")
			if st, err := os.Stat(d); err == nil && st.IsDir() {
				return d
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Path returns Root()/sub, or "" when it does not exist.
func Path(sub string) string {
	r := Root()
	if r == "" {
		return ""
	}
	p := filepath.Join(r, sub)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}
