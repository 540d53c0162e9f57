package api_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/schemas"
)

// POST /v1/requests takes an answer's documents (ALCE's [{title, text}])
// and publishes them with the request; a document without text is the
// client's error (400), and nothing is published.
func TestRequestAnswerWithDocuments(t *testing.T) {
	srv, _, q := generationServer(t)
	if err := q.registry().Register(nopKind(schemas.KindAnswer)); err != nil {
		t.Fatal(err)
	}
	post := func(body string) (int, string) {
		t.Helper()
		resp, err := http.Post(srv.URL+"/v1/requests", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post(`{"kind":"answer","subject":"Who?","documents":[{"title":"A","text":"One."},{"title":"B","text":" "}]}`); code != http.StatusBadRequest ||
		!strings.Contains(body, "document 2 has no text") {
		t.Fatalf("a document without text = %d %s; want 400 naming it", code, body)
	}
	if len(q.got) != 0 {
		t.Fatalf("published %+v", q.got)
	}
	if code, body := post(`{"kind":"answer","subject":"Who built the tower?","documents":[{"title":"Tower","text":"Eiffel's company built it."}]}`); code != http.StatusAccepted {
		t.Fatalf("answer with documents = %d %s; want 202", code, body)
	}
	if len(q.got) != 1 || q.got[0].Kind != schemas.KindAnswer || len(q.got[0].Documents) != 1 ||
		q.got[0].Documents[0] != (schemas.AnswerDocument{Title: "Tower", Text: "Eiffel's company built it."}) {
		t.Fatalf("published %+v", q.got)
	}
}
