package chunker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/internal/kit/llmtest"
	"github.com/annalist-dev/annalist/schemas"
)

// always is a model that gives answer to every call.
func always(answer string) *llmtest.Model { return llmtest.Repeat(answer) }

// windowText extracts the text the chunker put into a prompt.
func windowText(user string) string {
	_, rest, _ := strings.Cut(user, "Text:\n")
	text, _, _ := strings.Cut(rest, "\nAnswer:")
	text, _, _ = strings.Cut(text, "\nYour previous answer was rejected")
	return text
}

var openingRE = regexp.MustCompile(`(?m)^([^\s，。(（]{1,4})(，字[^，。]{1,4})`)

// oracle answers like a model that follows the prompt: every line that
// opens with a name and 字 begins an entry; a one-character name is a
// relative.
func oracle(c llmtest.Call) (string, error) {
	var a struct {
		Entries []map[string]any `json:"entries"`
	}
	a.Entries = []map[string]any{}
	for _, m := range openingRE.FindAllStringSubmatch(windowText(c.User()), -1) {
		e := map[string]any{"subject": m[1], "anchor": m[1] + m[2]}
		if len([]rune(m[1])) == 1 {
			e["relative"] = true
		}
		a.Entries = append(a.Entries, e)
	}
	b, err := json.Marshal(a)
	return string(b), err
}

const validListedAnswer = `{"entries":[
 {"subject":"林思远","anchor":"林思远，字子久"},
 {"subject":"思道","anchor":"思道，字子行","relative":true},
 {"subject":"许德明","anchor":"许德明，吴江人"},
 {"subject":"韩正","anchor":"韩正，字守中"},
 {"subject":"孙彦","anchor":"孙彦，字伯英"},
 {"subject":"周通","anchor":"周通者"}]}`

func TestLLMValidAnswer(t *testing.T) {
	for _, answer := range []string{validListedAnswer, "```json\n" + validListedAnswer + "\n```"} {
		m := always(answer)
		c := chunker.New(chunker.Config{}, chunker.WithModel(m))
		doc := schemas.Document{DocID: "v", Text: volListed}
		res, err := c.Segment(context.Background(), doc)
		if err != nil {
			t.Fatal(err)
		}
		checkTiles(t, doc, res.Chunks)
		if res.Method != chunker.MethodLLM || res.Fallback != "" || res.LLMCalls != 1 {
			t.Fatalf("method %q fallback %q calls %d", res.Method, res.Fallback, res.LLMCalls)
		}
		want := []piece{
			{"林思远(弟思", "", "", "", ""},
			{"林思远，字子", "林思远", "林思远", "", ""},
			{"思道，字子行", "林思道", "林思远", "林思道", "林思远"},
			{"许德明，吴江", "许德明", "许德明", "", ""},
			{"韩正，字守中", "韩正", "韩正", "", ""},
			{"孙彦，字伯英", "孙彦", "孙彦", "", ""},
			{"周通者，吴县", "周通", "周通", "", ""},
			{"赞曰：思远、", "", "", "", ""},
		}
		if got := pieces(res.Chunks); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("pieces\n got %v\nwant %v", got, want)
		}
		for _, ch := range res.Chunks {
			if ch.Method != chunker.MethodLLM {
				t.Fatalf("chunk method %q", ch.Method)
			}
		}
		if st := c.Stats(); st.LLMCalls != 1 || st.LLMFallbacks != 0 {
			t.Fatalf("stats %+v", st)
		}
	}
}

func TestLLMPrompt(t *testing.T) {
	m := always(validListedAnswer)
	if _, err := chunker.New(chunker.Config{}, chunker.WithModel(m)).Chunk(context.Background(),
		schemas.Document{DocID: "v", Text: volListed}); err != nil {
		t.Fatal(err)
	}
	system, user := m.Systems()[0], m.Users()[0]
	for _, want := range []string{"Name，字X，Place人", `{"entries":[`, "Example 1.", "Example 2.", "思道，字子行", `"relative":true`} {
		if !strings.Contains(system, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	if !strings.Contains(user, "Listing: 林思远(弟思道)许德明韩正孙彦周通") || windowText(user) != volListed {
		t.Errorf("user prompt:\n%s", user)
	}
	if strings.Contains(user, "rejected") {
		t.Error("first prompt carries feedback")
	}
}

// A long document is fed in windows; the entries found in each window make
// one segmentation.
func TestLLMWindows(t *testing.T) {
	var b strings.Builder
	var names []string
	for i := 0; i < 12; i++ {
		name := fmt.Sprintf("周%c", '甲'+rune(i))
		names = append(names, name)
		fmt.Fprintf(&b, "%s，字子%d，吴县人。少好学，举进士，授御史。居官廉平，民甚德之。卒于官。\n", name, i)
		fmt.Fprintf(&b, "%c，字叔%d，%s子也。亦以文学知名。\n", '乙'+rune(i), i, name)
	}
	doc := schemas.Document{DocID: "w", Text: b.String(), Profile: chunker.ProfileLiezhuan}
	m := llmtest.Func(oracle)
	res, err := chunker.New(chunker.Config{WindowChars: 200}, chunker.WithModel(m)).Segment(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	checkTiles(t, doc, res.Chunks)
	if res.Method != chunker.MethodLLM {
		t.Fatalf("method %q, fallback %q", res.Method, res.Fallback)
	}
	if res.LLMCalls < 4 || res.LLMCalls != m.Calls() {
		t.Fatalf("%d calls (%d prompts) for a %d-character document in 200-character windows", res.LLMCalls, m.Calls(), len([]rune(doc.Text)))
	}
	var subjects []string
	for _, c := range res.Chunks {
		if c.Subject != "" && !c.Attached {
			subjects = append(subjects, c.Subject)
		}
		if n := len([]rune(c.Text)); n > chunker.DefaultMaxEntryChars {
			t.Fatalf("chunk of %d runes", n)
		}
	}
	if fmt.Sprint(subjects) != fmt.Sprint(names) {
		t.Fatalf("subjects %v, want %v", subjects, names)
	}
	for _, u := range m.Users() {
		if n := len([]rune(windowText(u))); n > 200 {
			t.Fatalf("window of %d runes", n)
		}
	}
}

func TestLLMInvalidAnswerFallsBack(t *testing.T) {
	offline, err := chunker.New(chunker.Config{}).Chunk(context.Background(), schemas.Document{DocID: "v", Text: volListed})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, answer string
		modelErr     error
		reason       string
	}{
		{"malformed json", `{"entries":[{"subject":"林思远","anchor":"林思远，字子久"}`, nil, "not the JSON object"},
		{"prose instead of json", "The entries are 林思远 and 许德明.", nil, "not the JSON object"},
		{"unknown field", `{"entries":[],"confidence":0.9}`, nil, "unknown field"},
		{"text after the object", `{"entries":[]} I hope this helps.`, nil, "text after the JSON object"},
		{"overlapping entries", `{"entries":[{"subject":"许德明","anchor":"许德明，吴江人"},{"subject":"林思远","anchor":"林思远，字子久"}]}`, nil, "not after the previous entry"},
		{"repeated entry", `{"entries":[{"subject":"林思远","anchor":"林思远，字子久"},{"subject":"林思远","anchor":"林思远，字子久"}]}`, nil, "not after the previous entry"},
		{"anchor out of the text", `{"entries":[{"subject":"王五","anchor":"王五，字子六"}]}`, nil, "not in the text"},
		{"boundary inside a sentence", `{"entries":[{"subject":"林思远","anchor":"字子久，莆田人"}]}`, nil, "inside a sentence"},
		{"subject does not open the entry", `{"entries":[{"subject":"张三","anchor":"林思远，字子久"}]}`, nil, "does not open the entry"},
		{"subject is not a name", `{"entries":[{"subject":"林思远，字子久","anchor":"林思远，字子久"}]}`, nil, "is not a name"},
		{"empty anchor", `{"entries":[{"subject":"林思远","anchor":""}]}`, nil, "anchor of 0 characters"},
		{"model error", "", errors.New("upstream 503"), "upstream 503"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := llmtest.Func(func(llmtest.Call) (string, error) { return tt.answer, tt.modelErr })
			c := chunker.New(chunker.Config{}, chunker.WithModel(m))
			res, err := c.Segment(context.Background(), schemas.Document{DocID: "v", Text: volListed})
			if err != nil {
				t.Fatal(err)
			}
			if res.Method != chunker.MethodPattern || !strings.Contains(res.Fallback, tt.reason) {
				t.Fatalf("method %q fallback %q, want pattern and %q", res.Method, res.Fallback, tt.reason)
			}
			if tt.modelErr == nil && !strings.Contains(res.Fallback, chunker.ErrInvalidAnswer.Error()) {
				t.Fatalf("fallback %q does not say the answer was invalid", res.Fallback)
			}
			if fmt.Sprint(res.Chunks) != fmt.Sprint(offline) {
				t.Fatal("fallback chunks differ from the offline engine's")
			}
			if res.LLMCalls != chunker.DefaultLLMAttempts || m.Calls() != chunker.DefaultLLMAttempts {
				t.Fatalf("%d calls, want %d attempts", res.LLMCalls, chunker.DefaultLLMAttempts)
			}
			if st := c.Stats(); st.LLMFallbacks != 1 || st.LLMCalls != int64(chunker.DefaultLLMAttempts) {
				t.Fatalf("stats %+v", st)
			}
		})
	}
}

func TestLLMFallbackIsLogged(t *testing.T) {
	var logs bytes.Buffer
	m := always(`{"entries":[{"subject":"王五","anchor":"王五，字子六"}]}`)
	c := chunker.New(chunker.Config{LLMAttempts: 1}, chunker.WithModel(m), chunker.WithLogger(zerolog.New(&logs)))
	if _, err := c.Chunk(context.Background(), schemas.Document{DocID: "vol-9", Text: volListed}); err != nil {
		t.Fatal(err)
	}
	var entry map[string]any
	if err := json.Unmarshal(logs.Bytes(), &entry); err != nil {
		t.Fatalf("log %q: %v", logs.String(), err)
	}
	if entry["level"] != "warn" || entry["doc_id"] != "vol-9" || entry["prompt"] != chunker.PromptVersion ||
		!strings.Contains(fmt.Sprint(entry["error"]), "王五，字子六") {
		t.Fatalf("log entry %v", entry)
	}
}

func TestLLMRetryCarriesTheReason(t *testing.T) {
	m := llmtest.Func(func(c llmtest.Call) (string, error) {
		if c.N == 1 {
			return `{"entries":[{"subject":"王五","anchor":"王五，字子六"}]}`, nil
		}
		return validListedAnswer, nil
	})
	res, err := chunker.New(chunker.Config{}, chunker.WithModel(m)).Segment(context.Background(), schemas.Document{DocID: "v", Text: volListed})
	if err != nil {
		t.Fatal(err)
	}
	if res.Method != chunker.MethodLLM || res.LLMCalls != 2 {
		t.Fatalf("method %q calls %d fallback %q", res.Method, res.LLMCalls, res.Fallback)
	}
	if !strings.Contains(m.Users()[1], "rejected") || !strings.Contains(m.Users()[1], "王五，字子六") {
		t.Fatalf("retry prompt lacks the reason:\n%s", m.Users()[1])
	}
}

func TestLLMContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	m := llmtest.Func(func(llmtest.Call) (string, error) {
		cancel()
		return "", context.Canceled
	})
	c := chunker.New(chunker.Config{}, chunker.WithModel(m))
	_, err := c.Segment(ctx, schemas.Document{DocID: "v", Text: volListed})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if st := c.Stats(); st.LLMFallbacks != 0 || st.Documents != 0 {
		t.Fatalf("a cancelled document counted: %+v", st)
	}
}

func TestLLMNotUsedForGenericDocuments(t *testing.T) {
	m := llmtest.Func(oracle)
	res, err := chunker.New(chunker.Config{}, chunker.WithModel(m)).Segment(context.Background(),
		schemas.Document{DocID: "e", Text: "Thomas Harrow was a harbour engineer. He was born in Swansea."})
	if err != nil {
		t.Fatal(err)
	}
	if res.LLMCalls != 0 || m.Calls() != 0 || res.Method != chunker.MethodWindow {
		t.Fatalf("calls %d method %q", res.LLMCalls, res.Method)
	}
}
