package chunker_test

import (
	"slices"
	"testing"
)

// A scholar's case (a 学案 of the archive) is a biography followed by
// his sayings under heading lines, with notes in parentheses that run
// whole clauses. A note is no listing of relatives: no entry opens for
// the words a saying begins with.
func TestNotesInParenthesesListNobody(t *testing.T) {
	doc := "前言\n" +
		"学者以慎独为宗，其说详於后。\n" +
		"忠介陈先生良谟\n" +
		"陈良谟，字士谦，号栎园，浙江乌程人。万历丙辰进士。授行人，历官至太仆少卿。\n" +
		"语录\n" +
		"先生之学，以慎独为宗，儒者人人言慎独，唯先生始得其真。\n" +
		"（择善固执，正是从气质上拣择德性来，所以至精。）\n" +
		"心之主宰，非徒以专主言也。意还其意之谓诚。\n" +
		"（觉有主，是先生创见。）\n" +
		"（看未发气象之说。）\n" +
		"会语\n" +
		"莫非命也，顺而受之，正也。莫之为而为，莫之致而致，如斯而已矣。\n" +
		"死生之说，昼夜之常，吾生与生，吾死与死。\n"
	var subjects []string
	for _, c := range chunkText(t, doc) {
		if c.Subject != "" {
			subjects = append(subjects, c.Subject)
		}
		for _, g := range c.Listed {
			if g == "择善固执，正是从气质上拣择德性来，所以至精。" || g == "觉有主，是先生创见。" || g == "看未发气象之说。" {
				t.Errorf("chunk %s lists the note %q", c.ChunkID, g)
			}
		}
	}
	if !slices.Contains(subjects, "陈良谟") {
		t.Errorf("subjects %q: no entry for 陈良谟", subjects)
	}
	for _, s := range subjects {
		if s != "陈良谟" {
			t.Errorf("subjects %q: an entry for %q", subjects, s)
		}
	}
}

// A relatives' group runs names on with commas and stays a listing.
func TestRelativesGroupWithCommasIsListed(t *testing.T) {
	doc := "前言\n" +
		"文庄邹先生守益（附子善，孙德涵、德溥）\n" +
		"邹守益，字谦之，号东廓，江西安福人。正德六年会试第一，授翰林院编修。\n" +
		"善，字某，号颍泉。嘉靖丙辰进士。历官至太常寺卿。\n"
	chunks := chunkText(t, doc)
	if len(chunks) == 0 {
		t.Fatal("no chunks")
	}
	if !slices.Contains(chunks[0].Listed, "附子善，孙德涵、德溥") {
		t.Fatalf("listing groups %q, want the relatives' group", chunks[0].Listed)
	}
}
