package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/annalist-dev/annalist/internal/lang/text"
)

// IngestModel is an evaluation instrument, not a model to deploy: a
// scripted chat model that answers the prompts the ingestion sends, so that
// the LLM engine's cost (model calls per chunk, `annalist bench ingest
// --engine llm`) can be measured without a real model. Its answers are
// plausible and valid, derived from the prompt's own text by simple,
// deterministic means; it never sees gold data or the offline engine's
// output. It answers these prompts, and only these (any other is refused
// and recorded, see Unexpected):
//
//   - the chunker's liezhuan anchors prompt (liezhuan.v1): a line of the
//     window, or a sentence inside a paragraph, that opens with a name
//     followed by "，" (or "者，") begins an entry when the listing names
//     it, answered with the listing's spelling (秦王樉 for a line opening
//     秦愍王樉: same first and last characters, at most three apart); a
//     name inside the listing's parentheses, a kinship word and such a
//     name ("子琏"), or an unlisted name followed by the entry formula (a 字
//     clause, "Place人", "Name者") is a relative's sub-entry; without a
//     listing, a name followed by a 字 clause or "者，" begins an entry.
//     Inside a paragraph only a sentence with the formula counts. The
//     anchor is the shortest prefix of the line (4 to 12 characters) whose
//     first occurrence after the previous entry is the line's start;
//   - the extractor's regex prompt (regex.v1): the model reads the
//     person's opening sentence (from the first mention of the person's
//     name, or the chunk's start, to the first 。) and writes a regex
//     around the clause that states the fact: a clause-initial 字 (or one
//     character and 字, "表字") for a courtesy name, 号 for an art name, a
//     clause ending in 人 or 人也 for a native place (anchored at the start
//     of the chunk, where the entry opens: the formula
//     Name，…，Place人, skipping as many clauses as it saw), 进士 with an
//     era year for the jinshi year. It knows that 小字 is a childhood name,
//     that 以字行 names no courtesy name and that "不知何许人" or "数百人"
//     name no place. When the sentence has no such clause it answers that
//     the chunk does not state the fact (an empty regex). After a rejection it writes the
//     regex anchored at the chunk's start, and after a second one it
//     answers that it has none;
//   - the extractor's plan B prompt (planb.v1): the same clauses as
//     triplets, the clause as evidence.
//
// It also speaks the OpenAI chat-completions wire format (ServeHTTP,
// Serve), so the real client can be pointed at it on loopback. It is safe
// for concurrent use.
type IngestModel struct {
	mu         sync.Mutex
	calls      map[string]int
	unexpected []string
}

// Answer kinds of IngestModel.Calls.
const (
	IngestAnchors = "chunker_anchors"
	IngestRegex   = "regex"
	// IngestRegexNone counts regex answers saying the chunk does not
	// state the fact (they are also counted under IngestRegex).
	IngestRegexNone = "regex_none"
	IngestPlanB     = "plan_b"
)

var _ model.BaseChatModel = (*IngestModel)(nil)

// NewIngestModel returns the scripted ingestion model.
func NewIngestModel() *IngestModel { return &IngestModel{calls: map[string]int{}} }

// Generate answers one call. A call with a done context fails with the
// context's error.
func (m *IngestModel) Generate(ctx context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	content, err := m.reply(in)
	if err != nil {
		return nil, err
	}
	return schema.AssistantMessage(content, nil), nil
}

// Stream answers like Generate, in one piece.
func (m *IngestModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

// Calls counts the answers by kind (IngestAnchors, IngestRegex,
// IngestRegexNone, IngestPlanB).
func (m *IngestModel) Calls() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.calls)
}

// Unexpected are the reasons the model refused calls. A run whose prompts
// it all knew has none.
func (m *IngestModel) Unexpected() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.unexpected)
}

func (m *IngestModel) count(kind string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls[kind]++
}

func (m *IngestModel) reject(why string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.unexpected = append(m.unexpected, why)
	return errors.New("ingest model: " + why)
}

// reply answers the prompt its system message opens with.
func (m *IngestModel) reply(in []*schema.Message) (string, error) {
	if len(in) != 2 {
		return "", m.reject(fmt.Sprintf("%d messages", len(in)))
	}
	system, user := in[0].Content, in[1].Content
	switch {
	case strings.HasPrefix(system, "You split volumes of classical Chinese biographies"):
		a, err := ingestAnchors(user)
		if err != nil {
			return "", m.reject(err.Error())
		}
		m.count(IngestAnchors)
		return a, nil
	case strings.HasPrefix(system, "You write one regular expression"):
		a, none, err := ingestRegex(user)
		if err != nil {
			return "", m.reject(err.Error())
		}
		m.count(IngestRegex)
		if none {
			m.count(IngestRegexNone)
		}
		return a, nil
	case strings.HasPrefix(system, "You extract biographical facts"):
		a, err := ingestPlanB(user)
		if err != nil {
			return "", m.reject(err.Error())
		}
		m.count(IngestPlanB)
		return a, nil
	}
	first, _, _ := strings.Cut(system, "\n")
	return "", m.reject("unknown prompt: " + first)
}

func ingestJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

const ingestFeedback = "Your previous answer was rejected: "

// ingestAnchors answers the chunker's prompt.
func ingestAnchors(user string) (string, error) {
	head, rest, ok := strings.Cut(user, "\nText:\n")
	if !ok || !strings.HasPrefix(head, "Listing: ") {
		return "", errors.New("anchors prompt without listing or text")
	}
	listing := strings.TrimPrefix(head, "Listing: ")
	if listing == "(none)" {
		listing = ""
	}
	end := strings.LastIndex(rest, "\n\n"+ingestFeedback)
	if end < 0 {
		end = strings.LastIndex(rest, "\nAnswer:")
	}
	if end < 0 {
		return "", errors.New("anchors prompt without the answer cue")
	}
	window := []rune(rest[:end])
	main, groups := splitListing(listing)
	type entry struct {
		Subject  string `json:"subject"`
		Anchor   string `json:"anchor"`
		Relative bool   `json:"relative,omitempty"`
	}
	entries := []entry{}
	prev := -1
	for p := 0; p < len(window); p++ {
		lineStart := p == 0 || window[p-1] == '\n'
		if !lineStart && window[p-1] != '。' {
			continue
		}
		lineEnd := p
		for lineEnd < len(window) && window[lineEnd] != '\n' {
			lineEnd++
		}
		line := window[p:lineEnd]
		subject, relative, ok := openingName(line, listing, main, groups)
		// Inside a paragraph only a sentence with the entry formula opens
		// an entry (章溢，字三益，龙泉人。 after the end of another's).
		if !ok || !lineStart && !entryFormula(line) {
			continue
		}
		anchor := ""
		for n := 4; n <= 12 && n <= len(line); n++ {
			if text.IndexRunes(window, line[:n], prev+1) == p {
				anchor = string(line[:n])
				break
			}
		}
		if anchor == "" {
			continue
		}
		entries = append(entries, entry{Subject: subject, Anchor: anchor, Relative: relative})
		prev = p
	}
	return ingestJSON(map[string]any{"entries": entries}), nil
}

// splitListing separates a listing's main names from its parenthesised
// groups (ASCII or full-width parentheses).
func splitListing(listing string) (main, groups string) {
	var m, g strings.Builder
	depth := 0
	for _, r := range listing {
		switch r {
		case '(', '（':
			depth++
		case ')', '）':
			if depth > 0 {
				depth--
			}
		default:
			if depth > 0 {
				g.WriteRune(r)
			} else {
				m.WriteRune(r)
			}
		}
	}
	return m.String(), g.String()
}

// entryFormula reports whether a sentence opens with a name (two to five
// characters) followed by a 字 clause or a "Place人" clause.
func entryFormula(line []rune) bool {
	for i := 2; i <= 5 && i < len(line); i++ {
		if line[i] == '，' {
			after := string(line[i+1:])
			return strings.HasPrefix(after, "字") || ingestFormula.MatchString(after)
		}
		if !text.IsHan(line[i]) {
			return false
		}
	}
	return false
}

var (
	ingestKin     = []string{"子", "弟", "兄", "孙", "从子", "从弟", "曾孙"}
	ingestFormula = regexp.MustCompile(`^\p{Han}{1,6}人(?:也)?[。，]`)
)

// openingName reads the name a line opens with, and whether the listing
// (or, without one, the entry formula) makes it an entry.
func openingName(line []rune, listing, main, groups string) (string, bool, bool) {
	c := -1
	for i := 0; i < len(line) && i <= 7; i++ {
		if line[i] == '，' {
			c = i
			break
		}
		if !text.IsHan(line[i]) {
			return "", false, false
		}
	}
	if c < 1 {
		return "", false, false
	}
	name := string(line[:c])
	name = strings.TrimSuffix(name, "者")
	if name == "" {
		return "", false, false
	}
	after := string(line[c+1:])
	n := utf8.RuneCountInString(name)
	// The entry formula: a 字 clause right after the name, "Name者，", or
	// "Name，Place人" when the listing has the name's first character.
	formula := n >= 2 && n <= 5 && (strings.HasPrefix(after, "字") || strings.HasSuffix(string(line[:c]), "者") ||
		ingestFormula.MatchString(after) && strings.ContainsRune(listing, []rune(name)[0]))
	if listing != "" {
		if listed := listedAs(main, name); n >= 2 && listed != "" {
			return listed, false, true
		}
		for _, k := range ingestKin {
			given := strings.TrimPrefix(name, k)
			if given != name && given != "" && strings.Contains(groups, given) {
				return given, true, true
			}
		}
		if listed := listedAs(groups, name); listed != "" && (n >= 2 || strings.HasPrefix(after, "字")) {
			return listed, true, true
		}
		// A person the listing does not name who opens with the entry
		// formula: someone attached to the entry around him.
		return name, true, formula
	}
	return name, false, formula
}

// listedAs is the listing's spelling of name: name as written, or the
// listed name it shortens a title or posthumous name out of (秦王樉 for
// 秦愍王樉: the same first and last characters, at most three apart in the
// listing); "" when the listing does not name it.
func listedAs(listing, name string) string {
	if strings.Contains(listing, name) {
		return name
	}
	rs, ls := []rune(name), []rune(listing)
	if len(rs) < 2 {
		return ""
	}
	first, last := rs[0], rs[len(rs)-1]
	for i, r := range ls {
		if r != first {
			continue
		}
		for j := i + 1; j < len(ls) && j <= i+3 && j-i < len(rs); j++ {
			if ls[j] == last {
				return string(ls[i : j+1])
			}
		}
	}
	return ""
}

var (
	ingestRelation = regexp.MustCompile(`(?m)^Relation: (\S+) — `)
	ingestPerson   = regexp.MustCompile(`(?m)^Person: (.+)$`)
	ingestWanted   = regexp.MustCompile(`(?m)^Facts wanted: (.+)$`)
	ingestWantedRe = regexp.MustCompile(`(\w+) \(`)
)

// clause is a fact the model sees in the opening sentence: the value, the
// clause stating it (the evidence), and the regex written around it.
type clause struct {
	tail, evidence string
	// loose is the regex around the clause's words; anchored is the same
	// regex tied to the start of the chunk, where the entry opens.
	loose, anchored string
}

// ingestRegex answers the regex prompt: a regex around the clause that
// states the fact, or an empty regex (none reports that).
func ingestRegex(user string) (string, bool, error) {
	rel := ingestRelation.FindStringSubmatch(user)
	person := ingestPerson.FindStringSubmatch(user)
	_, chunk, ok := strings.Cut(user, "\nChunk:\n")
	if rel == nil || person == nil || !ok {
		return "", false, errors.New("regex prompt without relation, person or chunk")
	}
	none := ingestJSON(map[string]any{"relation": rel[1], "regex": "", "groups": map[string]int{}})
	cl, found := findClause(rel[1], person[1], chunk)
	if !found {
		return none, true, nil
	}
	src := cl.loose
	if fb := strings.Count(user, ingestFeedback); fb > 0 {
		if fb > 1 || cl.anchored == cl.loose {
			return none, true, nil
		}
		src = cl.anchored
	}
	return ingestJSON(map[string]any{"relation": rel[1], "regex": src, "groups": map[string]int{"tail": 1}}), false, nil
}

// ingestPlanB answers the plan B prompt with the clauses it finds.
func ingestPlanB(user string) (string, error) {
	person := ingestPerson.FindStringSubmatch(user)
	wanted := ingestWanted.FindStringSubmatch(user)
	_, chunk, ok := strings.Cut(user, "\nChunk:\n")
	if person == nil || wanted == nil || !ok {
		return "", errors.New("plan B prompt without person, facts wanted or chunk")
	}
	type triplet struct {
		Relation   string            `json:"relation"`
		Tail       string            `json:"tail"`
		Evidence   string            `json:"evidence"`
		Qualifiers map[string]string `json:"qualifiers"`
	}
	out := []triplet{}
	for _, w := range ingestWantedRe.FindAllStringSubmatch(wanted[1], -1) {
		if cl, ok := findClause(w[1], person[1], chunk); ok {
			out = append(out, triplet{Relation: w[1], Tail: cl.tail, Evidence: cl.evidence, Qualifiers: map[string]string{}})
		}
	}
	return ingestJSON(map[string]any{"triplets": out}), nil
}

// openingSentence is the sentence of chunk where person first appears
// (by full name, else by given name), or the chunk's first sentence; and
// whether it is the chunk's first.
func openingSentence(person, chunk string) (string, bool) {
	at := strings.Index(chunk, person)
	if rs := []rune(person); at < 0 && len(rs) > 2 {
		at = strings.Index(chunk, string(rs[1:]))
	}
	if at < 0 {
		at = 0
	}
	start := strings.LastIndexAny(chunk[:at], "。\n")
	if start < 0 {
		start = 0
	} else {
		start += len(string([]rune(chunk[start:])[0]))
	}
	s := chunk[start:]
	if i := strings.IndexAny(s, "。\n"); i >= 0 {
		_, n := utf8.DecodeRuneInString(s[i:])
		s = s[:i+n]
	}
	return text.Clip(s, 120), strings.TrimSpace(chunk[:start]) == ""
}

var (
	ingestCourtesy = regexp.MustCompile(`(^|[，。；])(\p{Han}?)字(\p{Han}{2,4})([，。；])`)
	ingestArt      = regexp.MustCompile(`(^|[，。；])(\p{Han}?)号(\p{Han}{2,5})([，。；])`)
	ingestPlace    = regexp.MustCompile(`[，；]((?:其先|先世)?)(\p{Han}{2,6}?)人(也?)[。，]`)
	ingestJinshi   = regexp.MustCompile(`(\p{Han}{2}(?:元|[一二三四五六七八九十]{1,3})年)(?:举|成)?进士`)
)

// findClause looks for the clause stating rel in person's opening
// sentence of chunk.
func findClause(rel, person, chunk string) (clause, bool) {
	s, first := openingSentence(person, chunk)
	start := `(?:^|。)`
	if first {
		start = `\A`
	}
	// The name before the opening's first comma, as long as it is.
	nameLen := 5
	if i := strings.Index(s, "，"); i >= 0 {
		nameLen = max(nameLen, utf8.RuneCountInString(s[:i]))
	}
	start += fmt.Sprintf(`\p{Han}{1,%d}`, nameLen)
	named := func(re *regexp.Regexp, word string, maxTail int) (clause, bool) {
		m := re.FindStringSubmatch(s)
		// 小字 is a childhood name; 以字行 says he went by his courtesy name.
		if m == nil || m[2] == "小" || m[2] == "以" {
			return clause{}, false
		}
		lead := m[1] + m[2] + word
		if m[1] == "" {
			lead = m[2] + word
		}
		n := max(3, utf8.RuneCountInString(m[3]))
		loose := regexp.QuoteMeta(lead) + fmt.Sprintf(`(\p{Han}{2,%d})[，。；]`, min(n, maxTail))
		anchored := start + `，(?:[^，。\n]{1,12}，){0,2}` + regexp.QuoteMeta(m[2]+word) +
			fmt.Sprintf(`(\p{Han}{2,%d})[，。；]`, min(n, maxTail))
		return clause{tail: m[3], evidence: m[2] + word + m[3], loose: loose, anchored: anchored}, true
	}
	switch rel {
	case "courtesy_name":
		return named(ingestCourtesy, "字", 4)
	case "art_name":
		return named(ingestArt, "号", 6)
	case "native_place":
		loc := ingestPlace.FindStringSubmatchIndex(s)
		if loc == nil {
			return clause{}, false
		}
		lead, tail, ye := s[loc[2]:loc[3]], s[loc[4]:loc[5]], s[loc[6]:loc[7]]
		// "不知何许人": the place is unknown; "杀数百人": a number of people.
		if strings.ContainsAny(tail, "何者百千万数") {
			return clause{}, false
		}
		skipped := strings.Count(s[:loc[0]], "，") + strings.Count(s[:loc[0]], "；")
		re := start + `(?:者)?，` + fmt.Sprintf(`(?:[^，；。\n]{1,12}[，；]){0,%d}`, skipped) +
			regexp.QuoteMeta(lead) + `(\p{Han}{2,6}?)人` + regexp.QuoteMeta(ye) + `[。，]`
		if skipped == 0 {
			re = start + `(?:者)?，` + regexp.QuoteMeta(lead) + `(\p{Han}{2,6}?)人` + regexp.QuoteMeta(ye) + `[。，]`
		}
		return clause{tail: tail, evidence: lead + tail + "人", loose: re, anchored: re}, true
	case "jinshi":
		m := ingestJinshi.FindStringSubmatch(chunk)
		if m == nil {
			return clause{}, false
		}
		re := `(\p{Han}{2}(?:元|[一二三四五六七八九十]{1,3})年)(?:举|成)?进士`
		return clause{tail: m[1], evidence: m[0], loose: re, anchored: re}, true
	}
	return clause{}, false
}

// ServeHTTP answers POST /v1/chat/completions in the OpenAI wire format,
// without streaming (the ingestion's calls do not stream): the request's
// messages go to Generate; the usage counts characters, not tokens (the
// instrument has no tokenizer).
func (m *IngestModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, fmt.Sprintf(`{"error":{"message":%q,"type":"invalid_request_error"}}`, err.Error()), http.StatusBadRequest)
		return
	}
	in := make([]*schema.Message, 0, len(req.Messages))
	prompt := 0
	for _, msg := range req.Messages {
		in = append(in, &schema.Message{Role: schema.RoleType(msg.Role), Content: msg.Content})
		prompt += utf8.RuneCountInString(msg.Content)
	}
	out, err := m.Generate(r.Context(), in)
	if err != nil {
		http.Error(w, fmt.Sprintf(`{"error":{"message":%q,"type":"invalid_request_error"}}`, err.Error()), http.StatusBadRequest)
		return
	}
	completion := utf8.RuneCountInString(out.Content)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-ingest", "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []map[string]any{{
			"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": out.Content},
		}},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completion,
			"total_tokens": prompt + completion},
	})
}

// ChatServer serves a model on loopback.
type ChatServer struct {
	srv  *http.Server
	ln   net.Listener
	done chan error
}

// Serve starts an HTTP server for h on 127.0.0.1 at a free port. The
// caller closes it.
func Serve(h http.Handler) (*ChatServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen on loopback: %w", err)
	}
	s := &ChatServer{srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}, ln: ln, done: make(chan error, 1)}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// BaseURL is the API root to give an OpenAI client, /v1 included.
func (s *ChatServer) BaseURL() string { return "http://" + s.ln.Addr().String() + "/v1" }

// Close stops the server and waits for it.
func (s *ChatServer) Close() error {
	err := s.srv.Close()
	if serr := <-s.done; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}
