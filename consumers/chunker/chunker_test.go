package chunker_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// piece describes a chunk by what it starts with. main is set on the
// chunks of an attached person's entry: the person whose entry it opens
// in.
type piece struct {
	head, subject, entry, sub, main string
}

// checkTiles fails unless chunks tile text and every chunk validates.
func checkTiles(t testing.TB, doc schemas.Document, chunks []schemas.Chunk) {
	t.Helper()
	var b strings.Builder
	pos := 0
	for i, c := range chunks {
		if err := c.Validate(); err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		if c.Start != pos || c.Seq != i || c.Total != len(chunks) || c.DocID != doc.DocID {
			t.Fatalf("chunk %d: start %d seq %d total %d doc %q after offset %d", i, c.Start, c.Seq, c.Total, c.DocID, pos)
		}
		if want := fmt.Sprintf("%s-%04d", doc.DocID, i); c.ChunkID != want {
			t.Fatalf("chunk %d id %q, want %q", i, c.ChunkID, want)
		}
		if c.Subject != "" && !c.Attached && (c.Entry != c.Subject || c.EntryChunk != c.ChunkID) {
			t.Fatalf("chunk %d: subject %q but entry %q of chunk %q", i, c.Subject, c.Entry, c.EntryChunk)
		}
		if c.Attached != (c.Subject != "" && c.Main != "") || c.Attached && c.SubEntry != c.Subject {
			t.Fatalf("chunk %d: attached %v, subject %q, main %q, sub-entry %q", i, c.Attached, c.Subject, c.Main, c.SubEntry)
		}
		// An attached person's chunks keep the main entry.
		if c.Main != "" && (c.Entry != c.Main || c.SubEntry == "" || c.EntryChunk == c.ChunkID) {
			t.Fatalf("chunk %d: attached text of %q in %q's entry has entry %q of chunk %q", i, c.SubEntry, c.Main, c.Entry, c.EntryChunk)
		}
		if c.Main != "" && c.Subject == "" && (i == 0 || chunks[i-1].Main != c.Main || chunks[i-1].SubEntry != c.SubEntry) {
			t.Fatalf("chunk %d: continuation of %q in %q's entry does not follow its text", i, c.SubEntry, c.Main)
		}
		b.WriteString(c.Text)
		pos = c.End
	}
	if b.String() != doc.Text || pos != utf8.RuneCountInString(doc.Text) {
		t.Fatalf("chunks do not give the text back")
	}
}

func pieces(chunks []schemas.Chunk) []piece {
	out := make([]piece, len(chunks))
	for i, c := range chunks {
		head := []rune(c.Text)
		if len(head) > 6 {
			head = head[:6]
		}
		out[i] = piece{string(head), c.Subject, c.Entry, c.SubEntry, c.Main}
	}
	return out
}

func TestLiezhuan(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []piece
	}{
		{"listed volume", volListed, []piece{
			{"林思远(弟思", "", "", "", ""},
			{"林思远，字子", "林思远", "林思远", "", ""},
			{"思道，字子行", "林思道", "林思远", "林思道", "林思远"}, // relative named in the listing
			{"许德明，吴江", "许德明", "许德明", "", ""},
			{"陈安礼，字叔", "陈安礼", "许德明", "陈安礼", "许德明"}, // unlisted person with the full formula
			{"韩正，字守中", "韩正", "韩正", "", ""},
			{"孙彦，字伯英", "孙彦", "孙彦", "", ""}, // entry inside a line
			{"周通者，吴县", "周通", "周通", "", ""},
			{"赞曰：思远、", "", "", "", ""},
		}},
		{"open volume", volOpen, []piece{
			{"沈文，字仲章", "沈文", "沈文", "", ""},
			{"子琏，字孟璞", "沈琏", "沈文", "沈琏", "沈文"},
			{"杨礼，江阴人", "杨礼", "杨礼", "", ""},
			{"又董清，不知", "董清", "杨礼", "董清", "杨礼"},
		}},
		// Between two names found verbatim, the one-name gaps of the
		// listing are filled by the entries written differently.
		// Between two names found verbatim, a one-name gap of the listing
		// is filled by the entry written differently.
		{"given name only, variant character", "陈安王濂孙彦叶应聪周通\n陈安，字子定，福清人。\n濂，字习古，定远人。善文辞。\n孙彦，上元人。\n叶应骢，字肃卿，鄞人。举进士。\n周通，不知何许人。\n", []piece{
			{"陈安王濂孙彦", "", "", "", ""},
			{"陈安，字子定", "陈安", "陈安", "", ""},
			{"濂，字习古，", "王濂", "王濂", "", ""},
			{"孙彦，上元人", "孙彦", "孙彦", "", ""},
			{"叶应骢，字肃", "叶应聪", "叶应聪", "", ""},
			{"周通，不知何", "周通", "周通", "", ""},
		}},
		{"listed name missing from the text", "甲乙丙丁\n甲乙，字子丙，某州人。\n丙丁，某县人。\n", []piece{
			{"甲乙丙丁\n", "", "", "", ""},
			{"甲乙，字子丙", "甲乙", "甲乙", "", ""},
			{"丙丁，某县人", "丙丁", "丙丁", "", ""},
		}},
		{"no entry at all", "天下之治，在于得人。\n", []piece{{"天下之治，在", "", "", "", ""}}},
	}
	c := chunker.New(chunker.Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := schemas.Document{DocID: "vol", Text: tt.text, Profile: chunker.ProfileLiezhuan}
			res, err := c.Segment(context.Background(), doc)
			if err != nil {
				t.Fatal(err)
			}
			checkTiles(t, doc, res.Chunks)
			if res.Method != chunker.MethodPattern || res.Profile != chunker.ProfileLiezhuan {
				t.Fatalf("method %q profile %q", res.Method, res.Profile)
			}
			got := pieces(res.Chunks)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("pieces\n got %v\nwant %v", got, tt.want)
			}
			for _, ch := range res.Chunks {
				if ch.Entry != "" && ch.EntryChunk == "" {
					t.Fatalf("chunk %s has entry %q but no entry chunk", ch.ChunkID, ch.Entry)
				}
			}
		})
	}
}

// A chunk that begins a relative's or an attached person's entry inside
// another's is that person's attached entry: Subject, Entry and SubEntry
// name the person, completing a given name with the entry's surname when
// the listing or a kinship word makes the person a relative of that
// surname, and Main the person whose entry it opens in; other chunks leave
// SubEntry empty.
func TestLiezhuanSubEntries(t *testing.T) {
	tests := []struct {
		name string
		text string
		want map[string]string // chunk head (6 runes) → SubEntry
	}{
		{"relatives by given name, kinship word, attached person, topic", volSubEntries, map[string]string{
			"周文渊(子琮": "",
			"周文渊，字伯": "",
			"子琮，字季玉": "周琮", // kinship word before the given name
			"琰，举人。历": "周琰", // given name alone, a son in the listing
			"高明，字子晦": "高明", // attached person of another surname
			"有吴敬者，歙": "吴敬", // unlisted, the introducing word dropped
			"盐法者，国之": "",   // a topic, not a person
			"欧阳德，字崇": "",
			"旭，字崇光，": "欧阳旭", // compound surname
			"赞曰：文渊、": "",
		}},
		{"siblings and attached people in one group", "许定(子用和用贞石坚)\n许定，字仲安，长乐人。举进士，官至尚书。\n用和，字子平，以荫授官。\n用贞，举人。官知县。\n石坚，字子刚，定门人也。\n", map[string]string{
			"许定(子用和": "",
			"许定，字仲安": "",
			"用和，字子平": "许用和",
			"用贞，举人。": "许用贞", // shares 用 with his brother
			"石坚，字子刚": "石坚",  // listed after the sons, another surname
		}},
		{"a given name the entry wrote in full before", "唐仁(弟义恕韩忠)\n唐仁，字子静，江宁人。与御史韩忠友善，同劾权贵。\n义，字子方。恕，举人。\n忠，字子恒，亦江宁人。\n", map[string]string{
			"唐仁(弟义恕":  "",
			"唐仁，字子静":  "",
			"义，字子方。":  "唐义",
			"恕，举人。\n": "唐恕", // two given names after the kinship word, mid-line
			"忠，字子恒，":  "韩忠", // "韩忠" in the entry's text and the listing
		}},
		{"a title is not a surname", "晋王棡(子济熺)\n晋王棡，太祖第三子，封于太原。好学，善属文。\n济熺，字景明。性谦和，以孝闻。\n", map[string]string{
			"晋王棡(子济": "",
			"晋王棡，太祖": "",
			"济熺，字景明": "济熺",
		}},
		{"open volume", volOpen, map[string]string{
			"沈文，字仲章": "", "子琏，字孟璞": "沈琏", "杨礼，江阴人": "", "又董清，不知": "董清",
		}},
	}
	c := chunker.New(chunker.Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := schemas.Document{DocID: "vol", Text: tt.text, Profile: chunker.ProfileLiezhuan}
			chunks, err := c.Chunk(context.Background(), doc)
			if err != nil {
				t.Fatal(err)
			}
			checkTiles(t, doc, chunks)
			got := map[string]string{}
			for _, ch := range chunks {
				got[pieces([]schemas.Chunk{ch})[0].head] = ch.SubEntry
				if ch.SubEntry != "" && (!ch.Attached || ch.Subject != ch.SubEntry || ch.Main == "" || ch.Main == ch.Subject) {
					t.Errorf("chunk %q: sub-entry %q is not an attached entry (subject %q, main %q)",
						ch.Text, ch.SubEntry, ch.Subject, ch.Main)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("sub-entries\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

// A princes' volume lists "fief 王 given name"; the text inserts the
// posthumous epithet ("云康王柏"), sometimes after a lost paragraph break.
// Each prince still begins his entry, named as listed.
func TestLiezhuanPrinces(t *testing.T) {
	doc := schemas.Document{DocID: "wang", Profile: chunker.ProfileLiezhuan, Text: volPrinces}
	chunks, err := chunker.New(chunker.Config{}).Chunk(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	checkTiles(t, doc, chunks)
	want := []piece{
		{"◎诸王\n○高", "", "", "", ""},
		{"云康王柏，高", "云王柏", "云王柏", "", ""}, // and his successor's paragraph
		{"石泉王瑞烨，", "石泉王瑞烨", "云王柏", "石泉王瑞烨", "云王柏"},
		{"岚悼王，高宗", "岚王", "岚王", "", ""},
		{"韩王松，高宗", "韩王松", "韩王松", "", ""},
	}
	if got := pieces(chunks); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("pieces\n got %v\nwant %v", got, want)
	}
}

// A listed volume's main entry chunks spell its listing (parentheses
// removed); attached people's entries are left out.
func TestLiezhuanSubjectsSpellListing(t *testing.T) {
	chunks, err := chunker.New(chunker.Config{}).Chunk(context.Background(), schemas.Document{DocID: "v", Text: volListed})
	if err != nil {
		t.Fatal(err)
	}
	var subjects strings.Builder
	for _, c := range chunks {
		if !c.Attached {
			subjects.WriteString(c.Subject)
		}
	}
	if got := subjects.String(); got != "林思远许德明韩正孙彦周通" {
		t.Fatalf("subjects spell %q", got)
	}
}

func TestLongEntrySplitsAtSentenceEnds(t *testing.T) {
	var b strings.Builder
	b.WriteString("赵成\n赵成，字子文，钱塘人。")
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&b, "成第%d年守城，贼至，力战却之。", i)
		if i%15 == 14 {
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
	doc := schemas.Document{DocID: "long", Text: b.String()}
	const max = 300
	res, err := chunker.New(chunker.Config{MaxEntryChars: max}).Segment(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	checkTiles(t, doc, res.Chunks)
	if len(res.Chunks) < 4 {
		t.Fatalf("%d chunks, want the entry split", len(res.Chunks))
	}
	entryChunk := res.Chunks[1].ChunkID
	for i, c := range res.Chunks[1:] {
		if n := c.End - c.Start; n > max {
			t.Errorf("chunk %d has %d runes > %d", i+1, n, max)
		}
		if c.Entry != "赵成" || c.EntryChunk != entryChunk {
			t.Errorf("chunk %d entry %q/%q", i+1, c.Entry, c.EntryChunk)
		}
		if (i == 0) != (c.Subject == "赵成") {
			t.Errorf("chunk %d subject %q", i+1, c.Subject)
		}
		if !strings.HasSuffix(strings.TrimSpace(c.Text), "。") {
			t.Errorf("chunk %d does not end at a sentence end: %q", i+1, c.Text)
		}
	}
}

func TestGenericWindows(t *testing.T) {
	sentence := "The harbour trust rebuilt the western pier after the storm of 1824. "
	var en strings.Builder
	for i := 0; i < 80; i++ {
		en.WriteString(sentence)
		if i%9 == 8 {
			en.WriteString("\n\n")
		}
	}
	zh := strings.Repeat("静之先生居吴县，每岁春日，集诸生讲学于松下。", 90)
	tests := []struct {
		name, text string
		cfg        chunker.Config
		max        int
	}{
		{"english default target", en.String(), chunker.Config{}, chunker.DefaultTargetOther},
		{"chinese default target", zh, chunker.Config{}, profile.Default().For(profile.Generic, profile.LangChinese).WindowChars},
		{"explicit target", en.String(), chunker.Config{TargetChars: 400}, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := schemas.Document{DocID: "g", Text: tt.text}
			res, err := chunker.New(tt.cfg).Segment(context.Background(), doc)
			if err != nil {
				t.Fatal(err)
			}
			checkTiles(t, doc, res.Chunks)
			if res.Profile != chunker.ProfileGeneric || res.Method != chunker.MethodWindow {
				t.Fatalf("profile %q method %q", res.Profile, res.Method)
			}
			if len(res.Chunks) < 2 {
				t.Fatalf("%d chunks", len(res.Chunks))
			}
			for i, c := range res.Chunks {
				if n := c.End - c.Start; n > tt.max {
					t.Errorf("chunk %d: %d runes > %d", i, n, tt.max)
				}
				if c.Subject != "" || c.Entry != "" {
					t.Errorf("chunk %d: generic chunk with subject %q entry %q", i, c.Subject, c.Entry)
				}
				if end := strings.TrimRight(c.Text, " \n"); !strings.HasSuffix(end, ".") && !strings.HasSuffix(end, "。") {
					t.Errorf("chunk %d cut inside a sentence: ...%q", i, end[max(0, len(end)-20):])
				}
			}
		})
	}
}

func TestOverlongSentenceIsCutAtHardMax(t *testing.T) {
	text := strings.Repeat("甲乙丙丁，", 200) + "终。"
	doc := schemas.Document{DocID: "h", Text: text, Profile: chunker.ProfileGeneric}
	res, err := chunker.New(chunker.Config{TargetChars: 100, HardMaxChars: 150}).Segment(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	checkTiles(t, doc, res.Chunks)
	for i, c := range res.Chunks {
		if n := c.End - c.Start; n > 150 {
			t.Fatalf("chunk %d: %d runes > hard max 150", i, n)
		}
		if i+1 < len(res.Chunks) && !strings.HasSuffix(c.Text, "，") {
			t.Fatalf("chunk %d not cut at a clause mark: %q", i, c.Text)
		}
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"listed volume", volListed, chunker.ProfileLiezhuan},
		{"open volume", volOpen, chunker.ProfileLiezhuan},
		{"one biography", "陆文渊，字静之，苏州吴县人。少孤。\n", chunker.ProfileLiezhuan},
		{"chinese notes", "松岩杂记\n\n静之先生居吴县，每岁春日，集诸生讲学于松下。\n", chunker.ProfileGeneric},
		{"english", "Thomas Harrow was a Welsh harbour engineer. He was born in Swansea.", chunker.ProfileGeneric},
		{"english mentioning a courtesy name", "Liu Ji (刘基，字伯温，青田人) served the founder of the Ming dynasty as an adviser for many years.", chunker.ProfileGeneric},
		{"one opening in a long text", "叶甲，字乙，丙人。\n" + strings.Repeat("天下之治，在于得人。\n", 3000), chunker.ProfileGeneric},
	}
	for _, tt := range tests {
		if got := chunker.Detect(tt.text); got != tt.want {
			t.Errorf("%s: Detect = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestChunkIsDeterministic(t *testing.T) {
	c := chunker.New(chunker.Config{})
	doc := schemas.Document{DocID: "d", Text: volListed}
	a, err := c.Chunk(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Chunk(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatal("the same document chunked twice differs")
	}
	if st := c.Stats(); st.Documents != 2 || st.Chunks != int64(2*len(a)) || st.LLMCalls != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestChunkMetadata(t *testing.T) {
	doc := schemas.Document{DocID: "m", Text: volListed, Collection: "mingshi", Title: "卷一"}
	chunks, err := chunker.New(chunker.Config{}).Chunk(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chunks {
		if c.Collection != "mingshi" || c.Title != "卷一" || c.Lang != "zh" || c.Profile != chunker.ProfileLiezhuan || c.Method != chunker.MethodPattern {
			t.Fatalf("chunk %s: %+v", c.ChunkID, c)
		}
	}
}

func TestBadInputIsPermanent(t *testing.T) {
	c := chunker.New(chunker.Config{})
	tests := []struct {
		name string
		doc  schemas.Document
		is   error
	}{
		{"unknown profile", schemas.Document{DocID: "d", Text: "x", Profile: "sonnet"}, chunker.ErrUnknownProfile},
		{"empty text", schemas.Document{DocID: "d"}, schemas.ErrInvalid},
		{"no id", schemas.Document{Text: "x"}, schemas.ErrInvalid},
		{"not utf-8", schemas.Document{DocID: "d", Text: "\xff"}, schemas.ErrInvalid},
	}
	for _, tt := range tests {
		_, err := c.Chunk(context.Background(), tt.doc)
		if !errors.Is(err, tt.is) || !pipeline.IsPermanent(err) {
			t.Errorf("%s: error %v, want permanent %v", tt.name, err, tt.is)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	for _, cfg := range []chunker.Config{{}, {MaxEntryChars: 500, HardMaxChars: 800, TargetChars: 300, WindowChars: 2000, LLMAttempts: 3}} {
		if err := cfg.Validate(); err != nil {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
	for _, cfg := range []chunker.Config{{MaxEntryChars: -1}, {HardMaxChars: 10}, {WindowChars: 50}, {LLMAttempts: -2}} {
		if err := cfg.Validate(); err == nil {
			t.Errorf("%+v: want an error", cfg)
		}
	}
}

func TestToJSON(t *testing.T) {
	chunks, err := chunker.New(chunker.Config{}).Chunk(context.Background(), schemas.Document{DocID: "j", Text: volSubEntries})
	if err != nil {
		t.Fatal(err)
	}
	view := chunker.ToJSON(chunks)
	if len(view) != len(chunks) {
		t.Fatalf("%d views of %d chunks", len(view), len(chunks))
	}
	attached := 0
	for i, v := range view {
		c := chunks[i]
		if v.ID != c.ChunkID || v.Subject != c.Subject || v.Start != c.Start || v.End != c.End || v.Text != c.Text ||
			v.Attached != c.Attached || v.Main != c.Main {
			t.Fatalf("view %d = %+v of %+v", i, v, c)
		}
		if v.Attached {
			attached++
		}
	}
	if attached == 0 {
		t.Fatal("no attached entry in the view")
	}
	b, err := json.Marshal(view[0])
	if err != nil || !strings.Contains(string(b), `"attached":false`) || !strings.Contains(string(b), `"main":""`) {
		t.Fatalf("view of a chunk outside entries: %s (%v)", b, err)
	}
}

// An attached person's long entry is cut into continuation chunks that
// stay that person's: Entry and EntryChunk point at the attached chunk,
// Main at the person whose entry it opens in.
func TestAttachedContinuations(t *testing.T) {
	var b strings.Builder
	b.WriteString("周文渊(子琮)\n周文渊，字伯深，临川人。举进士，授御史。\n子琮，字季玉，以荫入官。")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "琮第%d年守城，贼至，力战却之。", i)
	}
	b.WriteString("\n")
	doc := schemas.Document{DocID: "a", Text: b.String(), Profile: chunker.ProfileLiezhuan}
	chunks, err := chunker.New(chunker.Config{MaxEntryChars: 300}).Chunk(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	checkTiles(t, doc, chunks)
	var head schemas.Chunk
	conts := 0
	for _, c := range chunks {
		switch {
		case c.Attached:
			head = c
		case head.ChunkID != "":
			conts++
			if c.Subject != "" || c.SubEntry != "周琮" || c.Entry != "周文渊" || c.EntryChunk != head.EntryChunk || c.Main != "周文渊" {
				t.Fatalf("continuation %+v", c)
			}
		}
	}
	if head.Subject != "周琮" || head.Main != "周文渊" || head.Entry != "周文渊" || head.EntryChunk != chunks[1].ChunkID || conts == 0 {
		t.Fatalf("attached chunk %+v, %d continuations", head, conts)
	}
}
