package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runHelp runs `annalist help ARGS...` in-process.
func runHelp(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), append([]string{"annalist", "help"}, args...), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// TestHelpMarkdownIsTheCommandsPage keeps docs/commands.md equal to
// `annalist help --markdown`: the page is generated, never edited by hand.
func TestHelpMarkdownIsTheCommandsPage(t *testing.T) {
	out, stderr, code := runHelp(t, "--markdown")
	if code != 0 {
		t.Fatalf("help --markdown: exit %d: %s", code, stderr)
	}
	path := filepath.Join("..", "..", "..", filepath.FromSlash(commandsDocFile))
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v\nwrite it with `%s` at the repository root", err, regenerateCommandsDoc)
	}
	if string(page) == out {
		return
	}
	got, want := strings.Split(string(page), "\n"), strings.Split(out, "\n")
	line := 0
	for line < len(got) && line < len(want) && got[line] == want[line] {
		line++
	}
	diff := "\n  page: (ends)"
	if line < len(got) {
		diff = "\n  page: " + got[line]
	}
	if line < len(want) {
		diff += "\n  help: " + want[line]
	} else {
		diff += "\n  help: (ends)"
	}
	t.Errorf("%s differs from `annalist help --markdown` from line %d:%s\n"+
		"the reference lives in internal/wiring/cli/help.go; regenerate the page with `%s` at the repository root",
		commandsDocFile, line+1, diff, regenerateCommandsDoc)
}

// TestHelpCoversEveryCommand ties the reference to the registry: every
// registered command has a usage line, and every usage line belongs to a
// registered command and starts with its name.
func TestHelpCoversEveryCommand(t *testing.T) {
	cmds := commands()
	for name := range cmds {
		found := false
		for _, e := range helpReference {
			found = found || e.command == name
		}
		if !found {
			t.Errorf("command %q is registered but has no entry in helpReference (internal/wiring/cli/help.go)", name)
		}
	}
	for _, e := range helpReference {
		if _, ok := cmds[e.command]; !ok {
			t.Errorf("helpReference names %q, which is not a registered command", e.command)
		}
		if e.usage != e.command && !strings.HasPrefix(e.usage, e.command+" ") {
			t.Errorf("usage %q does not start with its command %q", e.usage, e.command)
		}
		if strings.TrimSpace(e.description) == "" {
			t.Errorf("usage %q has no description", e.usage)
		}
	}
}

func TestHelpPlainText(t *testing.T) {
	out, _, code := runHelp(t)
	if code != 0 {
		t.Fatalf("help: exit %d", code)
	}
	for name := range commands() {
		if !strings.Contains(out, "\n  "+name+" ") {
			t.Errorf("help does not list %q:\n%s", name, out)
		}
	}
	for _, e := range helpReference {
		if !strings.Contains(out, "annalist "+e.usage+"\n") {
			t.Errorf("help does not show the usage line %q", e.usage)
		}
	}

	one, _, code := runHelp(t, "dlt")
	if code != 0 || !strings.Contains(one, "annalist dlt replay TOPIC") || strings.Contains(one, "annalist ingest PATH") {
		t.Errorf("help dlt: exit %d, want dlt's reference only:\n%s", code, one)
	}
	if _, stderr, code := runHelp(t, "nosuch"); code != 2 || !strings.Contains(stderr, `unknown command "nosuch"`) {
		t.Errorf("help nosuch: exit %d %q, want a usage error", code, stderr)
	}
	if _, _, code := runHelp(t, "dlt", "--markdown"); code != 2 {
		t.Errorf("help dlt --markdown: exit %d, want 2", code)
	}
}

// TestHelpFlagsStillPrintUsage: no command, -h and --help print the usage
// on stderr as they always did.
func TestHelpFlagsStillPrintUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
	}{{nil, 2}, {[]string{"-h"}, 0}, {[]string{"--help"}, 0}} {
		var out, errb bytes.Buffer
		code := Run(context.Background(), append([]string{"annalist"}, c.args...), strings.NewReader(""), &out, &errb)
		if code != c.code || !strings.Contains(errb.String(), "usage: annalist COMMAND") || out.Len() != 0 {
			t.Errorf("annalist %v: exit %d, stdout %q, stderr %q", c.args, code, out.String(), errb.String())
		}
	}
}

// TestWrapKeepsCodeSpansWhole: the Markdown is wrapped at spaces, never
// inside a code span, and list items indent their continuation.
func TestHelpWrapKeepsCodeSpansWhole(t *testing.T) {
	lines := wrapDescription("- one two `three four five` six", 12)
	want := []string{"- one two", "  `three four five`", "  six"}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Errorf("wrap: %q, want %q", lines, want)
	}
}
