package discourse

import (
	"reflect"
	"testing"
)

func TestSplitSentences(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Former world No. 1 Halep lost. She left early!", []string{"Former world No. 1 Halep lost.", "She left early!"}},
		{"Mr. Smith met J. Doe in the U.S. on Monday. It rained.", []string{"Mr. Smith met J. Doe in the U.S. on Monday.", "It rained."}},
		{`"We won," she said. "It was hard."`, []string{`"We won," she said.`, `"It was hard."`}},
		{"The rate rose 2.5 percent. Prices fell.", []string{"The rate rose 2.5 percent.", "Prices fell."}},
	} {
		if got := SplitSentences(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitSentences(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestAtomicStatements(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"No, I think the plan failed, and the mayor should resign.", []string{"the plan failed", "the mayor should resign"}},
		{"I disagree, I believe the fine was too small and would not stop them.", []string{"the fine was too small", "the fine would not stop them"}},
		{"I believe the coach's guidance and the defence were more important.", []string{"the coach's guidance and the defence were more important"}},
		{"Indeed. The club was right; the league was wrong.", []string{"The club was right", "the league was wrong"}},
		{"She is stronger because she has won twice.", []string{"She is stronger because she has won twice"}},
		{"Well, I agree with your first point.", []string{"I agree with your first point"}},
		{"I agree, the fine was fair.", []string{"the fine was fair"}},
		{"Although his prime has passed, I still believe he can win.", []string{"Although his prime has passed, he can win"}},
		{"It's worth noting that I think they defend badly.", []string{"It's worth noting that they defend badly"}},
	} {
		if got := AtomicStatements(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("AtomicStatements(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
