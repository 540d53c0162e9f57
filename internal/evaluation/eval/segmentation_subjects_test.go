package eval_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/schemas"
)

// cut is an entry chunk a scripted chunker begins where the volume's text
// has at: its subject, and the main entry's person when it is attached.
type cut struct{ at, subject, main string }

// cutChunker chunks each document at the given places.
func cutChunker(cuts []cut) eval.ChunkFunc {
	return func(_ context.Context, doc schemas.Document) ([]schemas.Chunk, error) {
		var at []entryAt
		for _, c := range cuts {
			if b := strings.Index(doc.Text, c.at); b >= 0 {
				at = append(at, entryAt{at: len([]rune(doc.Text[:b])), subject: c.subject, main: c.main, attached: c.main != ""})
			}
		}
		return tile(doc, at), nil
	}
}

// entryAt is an entry chunk at a rune offset of a document.
type entryAt struct {
	at            int
	subject, main string
	attached      bool
}

// tile returns the chunks of doc that begin at the entries, in order, after
// a chunk without a subject from the document's start; they tile it.
func tile(doc schemas.Document, at []entryAt) []schemas.Chunk {
	rs := []rune(doc.Text)
	out := []schemas.Chunk{{DocID: doc.DocID}}
	for i, p := range at {
		out = append(out, schemas.Chunk{DocID: doc.DocID, ChunkID: fmt.Sprintf("%s-%d", doc.DocID, i), Start: p.at,
			Subject: p.subject, Entry: p.subject, Attached: p.attached, Main: p.main})
	}
	for i := range out {
		if i+1 < len(out) {
			out[i].End = out[i+1].Start
		} else {
			out[i].End = len(rs)
		}
		out[i].Text = string(rs[out[i].Start:out[i].End])
	}
	return out
}

// Every entry chunk's subject is scored, attached ones included: a name
// the listing writes (a given name completed with the entry's surname
// too), a name the chunk's first sentence shows as a person's, listed or
// not; not a clause that begins with a name of the volume, a name with a
// kinship word in it, a given name completed with a surname the volume
// never gives it, or words that show no person.
func TestSegmentationSubjects(t *testing.T) {
	vol := strings.Join([]string{
		"刘基(子琏)杨晔",
		"刘基，字伯温，青田人。元至顺间举进士。",
		"琏，字孟藻，有文行。",
		"基既归，名益高，四方来学者众。",
		"袁萃，字圣起，吴县人。与基同时，亦以文名。",
		"琮，字季玉，亦有声。",
		"帝崩，基哭之恸。",
		"杨晔，字景明，庐陵人。",
		"晔从弟旦，字景初，亦以进士为给事中。",
		"李志善、志勃，湖南安化人。",
		"晔族子昱，字景升，亦有声。",
	}, "\n") + "\n"
	dir := volumes(t, map[string]string{"a.txt": vol})
	rep, err := eval.Segmentation(context.Background(), dir, cutChunker([]cut{
		{"刘基，字", "刘基", ""},
		{"琏，字", "刘琏", "刘基"},  // listed by its given name, the entry's surname
		{"基既归", "基既归", "刘基"}, // the entry's person and what he did
		{"袁萃，字", "袁萃", "刘基"}, // unlisted, shown as a person
		{"琮，字", "王琮", "刘基"},  // a surname the volume never gives 琮
		{"帝崩", "帝崩", "刘基"},   // no person shown
		{"杨晔，字", "杨晔", ""},
		{"晔从弟旦", "晔从弟旦", "杨晔"}, // a kinship word inside
		{"李志善、", "李志善", "杨晔"},  // a joint entry
		{"晔族子昱", "杨昱", "杨晔"},   // a relative of 杨晔, with his surname
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Subjects != 10 || rep.SubjectsNamed != 6 || math.Abs(rep.SubjectPrecision-6.0/10) > 1e-9 || rep.AttachedNamed != 4 {
		t.Errorf("subjects %d named %d precision %.4f attached named %d, want 10, 6, 6/10, 4",
			rep.Subjects, rep.SubjectsNamed, rep.SubjectPrecision, rep.AttachedNamed)
	}
	got := map[string]string{}
	for _, n := range rep.NotNames {
		got[n.Subject] = n.Reason
		if !strings.HasSuffix(n.Volume, "a.txt") || n.Chunk == "" || !n.Attached || n.Text == "" {
			t.Errorf("not a name without its place: %+v", n)
		}
	}
	want := map[string]string{"基既归": eval.NotNameClause, "王琮": eval.NotNameSurname, "帝崩": eval.NotNameUnshown, "晔从弟旦": eval.NotNameKinship}
	for s, r := range want {
		if got[s] != r {
			t.Errorf("%s: reason %q, want %q", s, got[s], r)
		}
	}
	if len(got) != len(want) {
		t.Errorf("not names %v, want %v", got, want)
	}
}

// A volume whose line 1 is a title lists its people on the heading lines
// after it; the subject score reads them all.
func TestSegmentationSubjectsHeadingLines(t *testing.T) {
	vol := "列女一\n田绪宗妻张\n田绪宗妻张，事舅姑孝。\n"
	dir := volumes(t, map[string]string{"a.txt": vol})
	rep, err := eval.Segmentation(context.Background(), dir, cutChunker([]cut{{"田绪宗妻张，", "田绪宗妻张", ""}}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Subjects != 1 || rep.SubjectsNamed != 1 {
		t.Errorf("subjects %d named %d (%+v), want the listed designation named", rep.Subjects, rep.SubjectsNamed, rep.NotNames)
	}
}

// The listing runs names together: an attached subject that spans two of
// them ("宇曹元" in "(刘宇曹元)") is no name, though the listing writes
// it; the same name as the text writes it is one.
func TestSegmentationSubjectsAcrossListedNames(t *testing.T) {
	vol := "焦芳(刘宇曹元)\n焦芳，字孟阳，泌阳人。\n刘宇，字至大，钧州人。\n曹元，字以贞，大宁前卫人。\n"
	dir := volumes(t, map[string]string{"a.txt": vol})
	for _, tt := range []struct {
		subject string
		named   int
	}{{"宇曹元", 2}, {"曹元", 3}} {
		rep, err := eval.Segmentation(context.Background(), dir, cutChunker([]cut{
			{"焦芳，字", "焦芳", ""}, {"刘宇，字", "刘宇", "焦芳"}, {"曹元，字", tt.subject, "焦芳"},
		}), nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Subjects != 3 || rep.SubjectsNamed != tt.named {
			t.Errorf("%s: %d of %d subjects named (%+v), want %d", tt.subject, rep.SubjectsNamed, rep.Subjects, rep.NotNames, tt.named)
		}
	}
}
