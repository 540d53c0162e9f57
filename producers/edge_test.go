package producers_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

func TestCheckText(t *testing.T) {
	ok := []string{"叶向高，字进卿。\n", "tab\tand\r\nnewline", "a literal \uFFFD replacement character"}
	for _, s := range ok {
		if err := producers.CheckText("doc", s); err != nil {
			t.Errorf("CheckText(%q) = %v", s, err)
		}
	}
	bad := []struct{ text, want string }{
		{"ab\xffcd", "invalid UTF-8 at byte 2"},
		{"red: \x1b[31mX\x1b[0m", "control character U+001B at byte 5"},
		{"nul\x00", "control character U+0000 at byte 3"},
		{"form\ffeed", "control character U+000C at byte 4"},
		{"字\u0085", "control character U+0085 at byte 3"},
		{"del\x7f", "control character U+007F at byte 3"},
	}
	for _, c := range bad {
		err := producers.CheckText("notes/a.txt", c.text)
		if !errors.Is(err, producers.ErrInput) || !strings.Contains(err.Error(), c.want) ||
			!strings.Contains(err.Error(), "notes/a.txt") {
			t.Errorf("CheckText(%q) = %v; want ErrInput naming the document and %q", c.text, err, c.want)
		}
	}
}

func TestNewItemRefusesAtTheEdge(t *testing.T) {
	cases := []struct {
		doc  schemas.Document
		want string
	}{
		{schemas.Document{Source: "a", Text: "text", Profile: "nope"}, `unknown profile "nope" (profiles: `},
		{schemas.Document{DocID: "../../etc/passwd", Text: "text"}, "doc_id"},
		{schemas.Document{DocID: "a/b/c", Text: "text"}, "doc_id"},
		{schemas.Document{DocID: strings.Repeat("a", 100_000), Text: "text"}, "doc_id of 100000 characters"},
		{schemas.Document{Source: "a", Text: "\x1b[2Jcleared"}, "control character U+001B at byte 0"},
	}
	for _, c := range cases {
		_, err := producers.NewItem(c.doc)
		if !errors.Is(err, producers.ErrInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewItem(%.60q) = %v; want ErrInput with %q", c.doc.DocID+c.doc.Text, err, c.want)
		}
	}
	for _, p := range []string{"", "liezhuan", "generic", "english", "glossary"} {
		if _, err := producers.NewItem(schemas.Document{Source: "a", Text: "text", Profile: p}); err != nil {
			t.Errorf("profile %q: %v", p, err)
		}
	}
}

// TestJSONLKeepsTheTextRule: a JSON record's text is checked before
// encoding/json turns invalid bytes and unpaired surrogates into U+FFFD,
// so JSONL on stdin, a .jsonl file and HTTP refuse what a .txt file
// refuses.
func TestJSONLKeepsTheTextRule(t *testing.T) {
	bad := map[string]string{
		"raw byte":         "{\"text\":\"ab\xffcd\"}",
		"lone high":        `{"text":"ab\ud800cd"}`,
		"lone low":         `{"text":"ab\udc00cd"}`,
		"escaped control":  `{"text":"\u001b[31mred"}`,
		"unknown profile":  `{"text":"ok","profile":"nope"}`,
		"id with a slash":  `{"text":"ok","doc_id":"a/b/c"}`,
		"id with dot-dots": `{"text":"ok","doc_id":"..%2F.."}`,
	}
	for name, line := range bad {
		items, errs := producers.ReadJSONL(strings.NewReader(line+"\n"), "stdin", producers.JSONLDefaults{})
		if len(items) != 0 || len(errs) != 1 || !errors.Is(errs[0], producers.ErrInput) {
			t.Errorf("%s: %d items, errors %v; want one ErrInput", name, len(items), errs)
		}
	}
	items, errs := producers.ReadJSONL(strings.NewReader(`{"text":"smile \ud83d\ude00 \\ud800 as text","doc_id":"x:1"}`+"\n"),
		"stdin", producers.JSONLDefaults{})
	if len(errs) != 0 || len(items) != 1 || items[0].Doc.Text != "smile 😀 \\ud800 as text" {
		t.Fatalf("a surrogate pair and an escaped backslash: %v %v", items, errs)
	}
}

func TestHTTPRefusesInvalidUTF8(t *testing.T) {
	sink := &sliceSink{}
	h := producers.DocumentsHandler(sink, 1<<16)
	for _, body := range []string{"{\"text\":\"ab\xffcd\"}", `{"documents":[{"text":"ab\udfffcd"}]}`,
		"{\"text\":\"ok\"}\n{\"text\":\"\xc3\"}"} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/v1/documents", strings.NewReader(body))
		if strings.Contains(body, "\n") {
			req.Header.Set("Content-Type", "application/x-ndjson")
		}
		h.ServeHTTP(rec, req)
		if strings.Contains(body, "\n") {
			// One good record, one bad: the good one is published and
			// the bad one listed, never stored with U+FFFD.
			if rec.Code != http.StatusAccepted || !strings.Contains(rec.Body.String(), "invalid UTF-8") {
				t.Errorf("%q: %d %s", body, rec.Code, rec.Body)
			}
			continue
		}
		if rec.Code != http.StatusBadRequest {
			t.Errorf("%q: %d %s; want 400", body, rec.Code, rec.Body)
		}
	}
	for _, it := range sink.items {
		if strings.ContainsRune(it.Doc.Text, '\uFFFD') {
			t.Errorf("published %q", it.Doc.Text)
		}
	}
}
