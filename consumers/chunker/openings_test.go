package chunker_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/schemas"
)

// The volumes below are written for these tests in the manner of the
// histories and the scholars' records; the people are invented.

// bio pads an entry to a biography's length.
func bio(n int) string {
	return strings.Repeat("历官有声，民甚德之。", n)
}

// volQingListed is a Qing-style volume: a markup title, then a listing
// that runs relatives together with "、"; a prince named by title, a
// clan, a banner, and a brother attached by a kinship clause.
var volQingListed = "<strong>诸王一</strong>\n武功郡王阿泰、子多善费扬古额尔图\n" +
	"武功郡王阿泰，太祖第三子。" + bio(20) + "\n" +
	"多善，阿泰第一子。" + bio(20) + "\n" +
	"费扬古，钮祜禄氏，世居长白山。" + bio(20) + "\n" +
	"布泰，费扬古弟。" + bio(20) + "\n" +
	"额尔图，满洲正白旗人。" + bio(20) + "\n"

// entrySubjects lists the chunks with a subject as "name" or
// "name<main" for an attached person's.
func entrySubjects(chunks []schemas.Chunk) []string {
	var out []string
	for _, c := range chunks {
		switch {
		case c.Attached:
			out = append(out, c.Subject+"<"+c.Main)
		case c.Subject != "":
			out = append(out, c.Subject)
		}
	}
	return out
}

func chunkText(t *testing.T, text string) []schemas.Chunk {
	t.Helper()
	doc := schemas.Document{DocID: "t", Text: text}
	chunks, err := chunker.New(chunker.Config{}).Chunk(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	checkTiles(t, doc, chunks)
	return chunks
}

// Entry openings of the Qing manner: a clan (…氏), a residence (世居), a
// banner (…旗人), a kinship clause ("费扬古弟", "太祖第三子") after a
// name, a prince's title before it; a name listed after a kinship word or
// a "、" is a relative's, and without the listing so is a person whose
// kinship clause names someone of the open entry, however long their text.
// Each person gets an entry chunk, main or attached.
func TestQingOpenings(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"listed", volQingListed, []string{"武功郡王阿泰", "多善<武功郡王阿泰", "费扬古", "布泰<费扬古", "额尔图"}},
		{"without the listing", volQingListed[strings.Index(volQingListed, "武功郡王阿泰，"):],
			[]string{"武功郡王阿泰", "多善<武功郡王阿泰", "费扬古", "布泰<费扬古", "额尔图"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := chunker.Detect(tt.text); got != chunker.ProfileLiezhuan {
				t.Fatalf("detected %q", got)
			}
			if got := entrySubjects(chunkText(t, tt.text)); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("entries %v, want %v", got, tt.want)
			}
		})
	}
}

// Without a listing, the text alone says who is a main entry and who is
// attached to the entry they open in: a name after a kinship word (季子铭),
// an introducing word (同邑郑和) or an office (郎中王宽); a given name the
// text wrote before in full after a surname of the volume's names (文渊
// after 李文渊, and named so); a person whose paragraph, without a courtesy name or
// another strong formula, runs short (陈正); a person the entry named
// before whose own text is a small part of the entry's (张顺 after "御史
// 张顺"). Biographies stay main entries, weak formula or not (韩玉).
func TestOpenVolumeAttached(t *testing.T) {
	text := "周安民，字子静，吴县人。尝与御史李文渊同劾权贵。" + bio(20) + "\n" +
		"同邑郑和，字子平，亦以文学名。\n" +
		"郎中王宽，字伯容，长洲人。\n" +
		"季子铭，字叔新，以荫授官。\n" +
		"李安国，字仲宁，昆山人。" + bio(20) + "\n" +
		"文渊，字伯深，临川人。\n" +
		"陈正，长乐人。以孝闻。\n" +
		"韩玉，江阴人。尝与御史张顺同劾权贵。" + bio(20) + "\n" +
		"张顺，字子和，泰和人。\n"
	want := []string{"周安民", "郑和<周安民", "王宽<周安民", "周铭<周安民", "李安国", "李文渊<李安国", "陈正<李安国", "韩玉", "张顺<韩玉"}
	if got := entrySubjects(chunkText(t, text)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("entries %v, want %v", got, want)
	}
}

// A volume on countries lists places: its openings show no person, so the
// listed names do not begin entries; a volume whose openings say who each
// listed person was ("神宗朝太监也") has its entries.
func TestListedPlacesAreNotEntries(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"属国一\n○甲国乙国\n甲国，在云南之南。" + bio(10) + "\n乙国，在南海中。" + bio(10) + "\n", nil},
		{"宦官一\n○李安王顺\n李安，神宗朝太监也。" + bio(10) + "\n王顺，熹宗朝太监也。" + bio(10) + "\n",
			[]string{"李安", "王顺"}},
	}
	for _, tt := range tests {
		chunks, err := chunker.New(chunker.Config{}).Chunk(context.Background(),
			schemas.Document{DocID: "p", Text: tt.text, Profile: chunker.ProfileLiezhuan})
		if err != nil {
			t.Fatal(err)
		}
		if got := entrySubjects(chunks); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("entries %v, want %v", got, tt.want)
		}
	}
}

// The scholars' records (学案) write the courtesy name on without a comma:
// "Name字X，号Y，Place人". Such a record is a biography, its scholar the
// subject, and the preface before it no entry.
func TestScholarRecord(t *testing.T) {
	text := "前言\n学者之言，各有所宗，今录其要。\n马远字伯循，号溪田，三原人。" + bio(10) + "\n"
	if got := chunker.Detect(text); got != chunker.ProfileLiezhuan {
		t.Fatalf("detected %q", got)
	}
	if got := entrySubjects(chunkText(t, text)); fmt.Sprint(got) != "[马远]" {
		t.Fatalf("entries %v, want [马远]", got)
	}
}

// Notes are not biographies because a sentence opens like an entry: a
// date ("二月初一，…", "嘉靖间，…") or a particle ("而其弟，…") is no
// name, "光宗之子" no kinship clause of an entry, whatever follows.
func TestNotesAreNotBiographies(t *testing.T) {
	for _, text := range []string{
		"二月初一，寡妇关氏。雷雨大作，坏民居数百间。\n嘉靖间，张相公亦娶潘氏。时人异之。\n",
		"而其弟，吴县人也。事在前卷。\n",
		"思宗，光宗之子也。即位之初，锐意求治。\n",
	} {
		if got := chunker.Detect(text); got != chunker.ProfileGeneric {
			t.Errorf("%q detected %q", text, got)
		}
	}
}

// A volume of princes or empresses opens its entries with a title before
// the name: "武功郡王阿泰，太祖第三子", "孝安皇后陈氏，通州人". The kinship
// clause or the clan name and the native place make them entries, and
// volumes of them biography volumes.
func TestTitledOpenings(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"武功郡王阿泰，太祖第三子。" + bio(20) + "\n宁远郡王多善，太祖第五子。" + bio(20) + "\n",
			[]string{"武功郡王阿泰", "宁远郡王多善"}},
		{"孝安皇后陈氏，通州人。" + bio(20) + "\n恭恪贵妃郑氏，大兴人。" + bio(20) + "\n",
			[]string{"孝安皇后陈氏", "恭恪贵妃郑氏"}},
	}
	for _, tt := range tests {
		if got := chunker.Detect(tt.text); got != chunker.ProfileLiezhuan {
			t.Errorf("%q detected %q", tt.text[:30], got)
		}
		if got := entrySubjects(chunkText(t, tt.text)); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("entries %v, want %v", got, tt.want)
		}
	}
}

// People the listing names in parentheses are brought in by a clause as
// often as by a paragraph: "代之者刘璋，字廷信" (he who replaced him), or
// after a comma with an introducing word, "…为侍郎者，有王景，字景彰".
// Each gets an attached entry named as the listing writes it.
func TestAttachedInsideSentences(t *testing.T) {
	text := "贾安(刘璋王景)\n贾安，字子平，吴县人。" + bio(20) + "代之者刘璋，字廷信，延平人。" + bio(3) +
		"\n洪武中为侍郎者，有王景，字景彰。" + bio(3) + "\n"
	want := []string{"贾安", "刘璋<贾安", "王景<贾安"}
	if got := entrySubjects(chunkText(t, text)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("entries %v, want %v", got, want)
	}
}
