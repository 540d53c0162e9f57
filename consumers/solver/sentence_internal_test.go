package solver

import "testing"

func TestDropAround(t *testing.T) {
	for _, tt := range []struct {
		sentence, drop, want string
	}{
		{"叶向高，字进卿，福清人，尝游日本。", "尝游日本", "叶向高，字进卿，福清人。"},
		{"叶向高，尝游日本，字进卿。", "尝游日本", "叶向高，字进卿。"},
		{"尝游日本，叶向高字进卿。", "尝游日本", "叶向高字进卿。"},
		{"叶向高尝游日本。", "尝游日本", "。"},
		{"顾承泽，字伯润，松江华亭人。举嘉靖二十三年进士。", "举嘉靖二十三年进士", "顾承泽，字伯润，松江华亭人。"},
		{"She drew charts. She sailed to Java. She died.", "She sailed to Java", "She drew charts. She died."},
		{"历官庶吉士、编修、太常寺卿。", "太常寺卿", "历官庶吉士、编修。"},
		{"历官庶吉士、编修、太常寺卿。", "庶吉士", "历官编修、太常寺卿。"},
		{"万历十一年（1583年），叶向高举进士。", "1583", "万历十一年，叶向高举进士。"},
		{"Anne Whitlow, a botanist, sailed to Java.", "sailed to Java", "Anne Whitlow, a botanist."},
		{"Anne Whitlow, who sailed to Java, was a botanist.", "who sailed to Java", "Anne Whitlow, was a botanist."},
	} {
		rs := []rune(tt.sentence)
		s := index(rs, tt.drop, 0)
		got, _, _ := dropAround(rs, s, s+len([]rune(tt.drop)))
		if string(got) != tt.want {
			t.Errorf("drop %q from %q = %q, want %q", tt.drop, tt.sentence, string(got), tt.want)
		}
	}
}

func TestAlign(t *testing.T) {
	for _, tt := range []struct {
		sentence, wrong, ref, want string
		quality                    int
	}{
		{"叶向高，字进德，福清人。", "进德", "叶向高，字进卿，福清人。", "进卿", alignBoth},
		{"叶向高，字进卿，晋江人。", "晋江", "字进卿，福清人", "福清", alignBoth},
		{"官至南京吏部尚书。", "吏部尚书", "官至南京礼部尚书", "礼部尚书", alignOneSide},
		{"陆文渊举进士第三。", "进士第三", "举嘉靖二十年进士第二", "进士第二", alignInside},
		{"She was born in Leeds in 1802.", "Leeds", "She was born in Norwich in 1802.", "Norwich", alignBoth},
		{"She was born in Leeds.", "Leeds", "was born in Norwich and raised", "Norwich", alignOneSide},
		{"叶向高，字进卿。", "进卿", "天启七年卒，年六十九", "", 0}, // nothing in common
		{"叶向高，字进卿。", "进卿", "叶向高，字进卿", "", 0},    // the same value is no replacement
	} {
		rs := []rune(tt.sentence)
		s := index(rs, tt.wrong, 0)
		got, q, ok := align(rs, s, s+len([]rune(tt.wrong)), []rune(tt.ref))
		if tt.want == "" {
			if ok {
				t.Errorf("align %q of %q in %q = %q, want nothing", tt.wrong, tt.sentence, tt.ref, got)
			}
			continue
		}
		if !ok || got != tt.want || q != tt.quality {
			t.Errorf("align %q of %q in %q = %q (quality %d, %v), want %q (quality %d)", tt.wrong, tt.sentence, tt.ref, got, q, ok, tt.want, tt.quality)
		}
	}
}
