package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A data directory made inside a git work tree is ignored by git, its own
// .gitignore saying so, wherever it is made; one the user wrote is kept.
func TestDataDirIsIgnoredByGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is not on PATH: %v", err)
	}
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	dir := filepath.Join(repo, "sub", "state")
	l, err := lockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.f.Close()
	if err := os.WriteFile(filepath.Join(dir, "endpoints.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", repo, "status", "--porcelain", "--untracked-files=all").CombinedOutput()
	if err != nil {
		t.Fatalf("git status: %v\n%s", err, out)
	}
	if s := strings.TrimSpace(string(out)); s != "" {
		t.Errorf("git sees the data directory's files:\n%s", s)
	}

	own := filepath.Join(repo, "mine")
	if err := os.MkdirAll(own, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(own, ".gitignore"), []byte("*.log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l2, err := lockDir(own)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.f.Close()
	if b, _ := os.ReadFile(filepath.Join(own, ".gitignore")); string(b) != "*.log\n" {
		t.Errorf("the user's .gitignore was replaced by %q", b)
	}
}
