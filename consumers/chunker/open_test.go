package chunker_test

import (
	"slices"
	"strings"
	"testing"
)

// Volumes without a listing, in the manner of the History of Ming; the
// people, their names and lives are invented for these tests.

// openPad pads an entry with text that names nobody.
func openPad(n int) string {
	return strings.Repeat("历官有声，民甚德之。", n)
}

// openEntries chunks a volume and returns its main entries' subjects and
// its attached people as "name<main".
func openEntries(t *testing.T, text string) (mains, attached []string) {
	t.Helper()
	for _, c := range chunkText(t, text) {
		switch {
		case c.Attached:
			attached = append(attached, c.Subject+"<"+c.Main)
		case c.Subject != "":
			mains = append(mains, c.Subject)
		}
	}
	return mains, attached
}

func wantMains(t *testing.T, text string, want ...string) []string {
	t.Helper()
	mains, attached := openEntries(t, text)
	if !slices.Equal(mains, want) {
		t.Errorf("main entries %q (attached %q), want %q", mains, attached, want)
	}
	return attached
}

// The first person of a volume opens a main entry even when the opening
// is weak and short: there is no entry yet to attach the person to.
func TestOpenFirstEntry(t *testing.T) {
	vol := "陈友谅，沔阳渔家子也。少读书，略通文义。\n" +
		"友谅从军，数有功。\n" +
		"林思道，字子行，莆田人。" + openPad(20) + "\n"
	wantMains(t, vol, "陈友谅", "林思道")
}

// A native place given by someone else's ("亦莆田人", "思远同邑人")
// introduces a companion inside the open entry.
func TestOpenRelativePlace(t *testing.T) {
	vol := "林思远，字子久，莆田人。" + openPad(20) + "\n" +
		"陈安礼，字叔和，亦莆田人。" + openPad(20) + "\n" +
		"韩正，字守中，思远同邑人。" + openPad(20) + "\n" +
		"许德明，字伯英，吴江人。" + openPad(20) + "\n"
	attached := wantMains(t, vol, "林思远", "许德明")
	if want := []string{"陈安礼<林思远", "韩正<林思远"}; !slices.Equal(attached, want) {
		t.Errorf("attached %q, want %q", attached, want)
	}
}

// A run of words before a kinship-like clause ("久之还朝，进左庶子") is no
// name when the volume never writes it again; a relative's name that
// recurs still opens an entry.
func TestOpenUnnamedKin(t *testing.T) {
	vol := "林思远，字子久，莆田人。" + openPad(20) + "\n" +
		"久之还朝，进左庶子。" + openPad(20) + "\n" +
		"许德明，字伯英，吴江人。" + openPad(20) + "\n" +
		"许德昭，德明弟。德昭亦以文学知名。" + openPad(20) + "\n"
	mains, attached := openEntries(t, vol)
	for _, s := range append(mains, attached...) {
		if strings.HasPrefix(s, "久之") {
			t.Errorf("%q opens an entry", s)
		}
	}
	if !slices.Contains(mains, "许德明") || !slices.ContainsFunc(append(mains, attached...), func(s string) bool { return strings.HasPrefix(s, "许德昭") }) {
		t.Errorf("entries %q, attached %q: want 许德明 and 许德昭", mains, attached)
	}
}

// A main entry's length counts the paragraphs of its relatives: a person
// the previous entry named, whose own paragraph is short but whose son's
// follows, is not taken for a companion of the previous entry.
func TestOpenReachOverRelatives(t *testing.T) {
	vol := "林思远，字子久，莆田人。" + openPad(40) + "与许德明善。\n" +
		"许德明，字伯英，吴江人。" + openPad(6) + "\n" +
		"子琏，字孟璞，以荫入官。" + openPad(30) + "\n" +
		"韩正，字守中，泰和人。" + openPad(20) + "\n"
	wantMains(t, vol, "林思远", "许德明", "韩正")
}

// A rare character spelled by its components counts as one character of
// the name: "刘季｛虎｝" has three, the length of the volume's names.
func TestOpenComponentName(t *testing.T) {
	vol := "林思远，字子久，莆田人。" + openPad(20) + "\n" +
		"许德明，字伯英，吴江人。" + openPad(20) + "\n" +
		"刘季｛虎｝，名韶，以字行，余姚人。" + openPad(20) + "\n"
	wantMains(t, vol, "林思远", "许德明", "刘季｛虎｝")
}

// The closing appraisal names the volume's people: a line that opens with
// such a name opens a main entry though its words give no formula, and
// a short paragraph so named is a main entry, not an attached one.
func TestOpenAppraisedNames(t *testing.T) {
	vol := "林思远，字子久，莆田人。" + openPad(20) + "\n" +
		"蔡迁，不详其乡里。" + openPad(20) + "\n" +
		"吴炳，宜兴人。" + openPad(8) + "\n" +
		"许德明，字伯英，吴江人。" + openPad(20) + "\n" +
		"赞曰：思远、蔡迁、吴炳、德明，皆一时之选。\n"
	wantMains(t, vol, "林思远", "蔡迁", "吴炳", "许德明")
}

// A given name written alone ("寿辉" for 徐寿辉) is told from a full name
// of two characters by its text, which repeats it whole where a full
// name's text writes the given name.
func TestOpenGivenNameAlone(t *testing.T) {
	vol := "陈友谅，字子让，沔阳人。" + openPad(20) + "与徐寿辉起兵。\n" +
		"寿辉，罗田人。" + openPad(40) + "寿辉称帝，" + openPad(5) + "寿辉死。\n" +
		"许德明，字伯英，吴江人。" + openPad(20) + "\n"
	attached := wantMains(t, vol, "陈友谅", "许德明")
	if len(attached) != 1 || !strings.HasSuffix(attached[0], "寿辉<陈友谅") {
		t.Errorf("attached %q, want 寿辉 in 陈友谅's entry", attached)
	}
}

// A name given with a clan or a banner is written in full however often
// its text repeats it: no given name alone.
func TestOpenClanNameRepeated(t *testing.T) {
	vol := "费扬古，钮祜禄氏，世居长白山。" + openPad(20) + "\n" +
		"珠满，瓜尔佳氏，满洲正白旗人。" + openPad(30) + "珠满从征，" + openPad(5) + "珠满卒。\n"
	wantMains(t, vol, "费扬古", "珠满")
}

// A paragraph whose first sentence gives no origin ("孟子乾，字以正。"), on
// a person the open entry has named, is a companion's: the entry gave
// the place when it brought the person in. A person so named whose
// paragraph states the place opens an entry of their own.
func TestOpenPlacelessCompanion(t *testing.T) {
	vol := "林思远，字子久，莆田人。" + openPad(20) + "与许德明善。同死者，行人泽州孟子乾。\n" +
		"孟子乾，字以正。" + openPad(10) + "\n" +
		"许德明，字伯英，吴江人。" + openPad(20) + "\n"
	attached := wantMains(t, vol, "林思远", "许德明")
	if want := []string{"孟子乾<林思远"}; !slices.Equal(attached, want) {
		t.Errorf("attached %q, want %q", attached, want)
	}
}

// A line that opens "Name者，" points at a person the text brings in, as
// it does inside another's story; one the closing appraisal names still
// opens a main entry.
func TestOpenZheOpening(t *testing.T) {
	vol := "林思远，字子久，莆田人。" + openPad(20) + "\n" +
		"韩敬者，归安人也。" + openPad(20) + "\n" +
		"许德明，字伯英，吴江人。" + openPad(20) + "\n" +
		"刘聚者，宿迁人。" + openPad(20) + "\n" +
		"赞曰：思远、德明、刘聚，皆一时之选。\n"
	attached := wantMains(t, vol, "林思远", "许德明", "刘聚")
	if want := []string{"韩敬<林思远"}; !slices.Equal(attached, want) {
		t.Errorf("attached %q, want %q", attached, want)
	}
}

// A person the open entry lists next to a companion whose paragraph came
// before ("同官朱廷章、御史陈安礼") is the next companion, though the
// paragraph is too long for a companion named alone.
func TestOpenNamedWithCompanion(t *testing.T) {
	vol := "林思远，字子久，莆田人。" + openPad(20) + "思远与同官朱廷章、御史陈安礼等并罢。\n" +
		"朱廷章，字克谐，进贤人。" + openPad(2) + "\n" +
		"陈安礼，字玉畴，甫田人。" + openPad(8) + "\n" +
		"许德明，字伯英，吴江人。" + openPad(20) + "\n"
	attached := wantMains(t, vol, "林思远", "许德明")
	if want := []string{"朱廷章<林思远", "陈安礼<林思远"}; !slices.Equal(attached, want) {
		t.Errorf("attached %q, want %q", attached, want)
	}
}
