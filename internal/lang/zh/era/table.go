package era

import (
	"bufio"
	_ "embed"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

//go:embed eras.tsv
var embeddedTable string

// Era is one regnal era.
type Era struct {
	Name    string // simplified, e.g. 万历
	Dynasty string // simplified, e.g. 明, 东晋, 北宋
	Emperor string // the emperor who proclaimed it, by temple or usual name
	Start   int    // Gregorian year of 元年 (negative before the common era)
	End     int    // last year the era was counted
}

// Len is the number of years the era was counted.
func (e Era) Len() int {
	n := e.End - e.Start + 1
	if e.Start < 0 && e.End > 0 {
		n-- // no year zero
	}
	return n
}

// Gregorian returns the Gregorian year of the era's year-th year. It
// reports false when year is below 1 or beyond the era's length plus one:
// the extra year admits the count that reference tables carry into the
// year an era was replaced in.
func (e Era) Gregorian(year int) (int, bool) {
	if year < 1 || year > e.Len()+1 {
		return 0, false
	}
	return addYears(e.Start, year-1), true
}

// addYears adds n ≥ 0 years to the Gregorian year g, skipping year zero.
func addYears(g, n int) int {
	r := g + n
	if g < 0 && r >= 0 {
		r++
	}
	return r
}

// ordinal returns the era year that Gregorian year g falls in (1 for 元年).
func (e Era) ordinal(g int) int {
	n := g - e.Start + 1
	if e.Start < 0 && g > 0 {
		n--
	}
	return n
}

// Table is a parsed era table with a dynasty preference order. It is
// immutable; WithPrefer returns a new Table sharing the eras.
type Table struct {
	eras   []Era            // in table order
	byName map[string][]int // simplified name → indexes into eras
	trie   *trieNode        // era names, simplified, for Find
	first  *runeSet         // runes that may start an era name, as written
	simp   simplifier
	prefer []string
}

type trieNode struct {
	next map[rune]*trieNode
	name string // non-empty when an era name ends here
}

// DefaultPrefer is the preference order of ambiguous era names before the
// latest-dynasty rule applies.
func DefaultPrefer() []string { return []string{"明", "清"} }

// Default returns the embedded table with the default preference order.
// Each call parses the table again (under a millisecond); callers keep
// the Table they need.
func Default() *Table {
	t, err := Parse(strings.NewReader(embeddedTable))
	if err != nil {
		// The embedded table is part of the source and checked by the
		// package's tests; failing to parse it is a build defect.
		panic(fmt.Sprintf("era: embedded table: %v", err))
	}
	return t
}

// Parse reads an era table in the embedded file's format: tab-separated
// dynasty, emperor, era, start, end; blank lines and lines starting with #
// are ignored. Names may be traditional; they are stored simplified.
func Parse(r io.Reader) (*Table, error) {
	t := &Table{
		byName: make(map[string][]int),
		trie:   &trieNode{},
		simp:   newSimplifier(),
		first:  new(runeSet),
		prefer: DefaultPrefer(),
	}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		f := strings.Split(s, "\t")
		if len(f) != 5 {
			return nil, fmt.Errorf("parse era table line %d: %d fields, want 5", line, len(f))
		}
		start, err := strconv.Atoi(strings.TrimSpace(f[3]))
		if err != nil {
			return nil, fmt.Errorf("parse era table line %d: start: %w", line, err)
		}
		end, err := strconv.Atoi(strings.TrimSpace(f[4]))
		if err != nil {
			return nil, fmt.Errorf("parse era table line %d: end: %w", line, err)
		}
		e := Era{
			Dynasty: t.simp.string(strings.TrimSpace(f[0])),
			Emperor: t.simp.string(strings.TrimSpace(f[1])),
			Name:    t.simp.string(strings.TrimSpace(f[2])),
			Start:   start,
			End:     end,
		}
		switch {
		case e.Name == "" || e.Dynasty == "":
			return nil, fmt.Errorf("parse era table line %d: empty era or dynasty", line)
		case start == 0 || end == 0:
			return nil, fmt.Errorf("parse era table line %d: year zero", line)
		case end < start:
			return nil, fmt.Errorf("parse era table line %d: %s ends (%d) before it starts (%d)", line, e.Name, end, start)
		}
		t.byName[e.Name] = append(t.byName[e.Name], len(t.eras))
		t.eras = append(t.eras, e)
		t.insert(e.Name)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read era table: %w", err)
	}
	if len(t.eras) == 0 {
		return nil, fmt.Errorf("parse era table: no eras")
	}
	for r := range t.trie.next {
		t.first.add(r)
	}
	for trad, simp := range t.simp {
		if t.trie.next[simp] != nil {
			t.first.add(trad)
		}
	}
	return t, nil
}

// runeSet is a set of runes of the Basic Multilingual Plane, where every
// era name starts; it rejects most positions of a text without a map
// lookup.
type runeSet [1 << 16 / 64]uint64

func (s *runeSet) add(r rune) {
	if r >= 0 && r < 1<<16 {
		s[r/64] |= 1 << (r % 64)
	}
}

func (s *runeSet) has(r rune) bool {
	return r >= 0 && r < 1<<16 && s[r/64]&(1<<(r%64)) != 0
}

func (t *Table) insert(name string) {
	n := t.trie
	for _, r := range name {
		if n.next == nil {
			n.next = make(map[rune]*trieNode)
		}
		c := n.next[r]
		if c == nil {
			c = &trieNode{}
			n.next[r] = c
		}
		n = c
	}
	n.name = name
}

// WithPrefer returns a table that resolves ambiguous era names to the
// named dynasties first, in the order given, and then to the latest
// dynasty. Dynasty names may be traditional.
func (t *Table) WithPrefer(dynasties ...string) *Table {
	c := *t
	c.prefer = make([]string, len(dynasties))
	for i, d := range dynasties {
		c.prefer[i] = t.simp.string(d)
	}
	return &c
}

// Eras returns every era of the table, in table order.
func (t *Table) Eras() []Era { return slices.Clone(t.eras) }

// Simplify is the package-level Simplify using the table's character map.
func (t *Table) Simplify(s string) string { return t.simp.string(s) }

func (t *Table) preferRank(dynasty string) int {
	if i := slices.Index(t.prefer, dynasty); i >= 0 {
		return i
	}
	return len(t.prefer)
}

// compare orders eras by preference: preferred dynasties in their order,
// then the latest first year first.
func (t *Table) compare(a, b Era) int {
	if ra, rb := t.preferRank(a.Dynasty), t.preferRank(b.Dynasty); ra != rb {
		return ra - rb
	}
	return b.Start - a.Start
}

// Lookup returns every era of that name (simplified or traditional), in
// preference order: the era Resolve would choose for a year that fits all
// of them comes first. It returns nil for an unknown name.
func (t *Table) Lookup(name string) []Era {
	return t.lookup(t.simp.string(strings.TrimSpace(name)))
}

// lookup is Lookup for a name already simplified.
func (t *Table) lookup(name string) []Era {
	idx := t.byName[name]
	if len(idx) == 0 {
		return nil
	}
	out := make([]Era, len(idx))
	for i, j := range idx {
		out[i] = t.eras[j]
	}
	slices.SortStableFunc(out, t.compare)
	return out
}

// Resolve returns the era a date "<name><year>年" means: the first era of
// that name in preference order whose length admits year. A year of 0
// stands for a date without a year number (万历中) and takes the first era
// in preference order. It reports false for an unknown name or a year no
// era of that name reaches.
func (t *Table) Resolve(name string, year int) (Era, bool) {
	e, ok, _ := t.resolve(t.Lookup(name), year)
	return e, ok
}

// resolve picks from candidates in preference order. When no candidate
// admits year it returns the first candidate with ok false, so that a date
// with an impossible year still names its likeliest dynasty; known reports
// whether there was any candidate.
func (t *Table) resolve(cands []Era, year int) (e Era, ok, known bool) {
	if len(cands) == 0 {
		return Era{}, false, false
	}
	if year == 0 {
		return cands[0], true, true
	}
	for _, c := range cands {
		if _, fits := c.Gregorian(year); fits {
			return c, true, true
		}
	}
	return cands[0], false, true
}

// Gregorian returns the Gregorian year of the year-th year of the era name
// (元年 is year 1), resolving an ambiguous name as Resolve does. It reports
// false for an unknown name or a year beyond every era of that name.
func (t *Table) Gregorian(name string, year int) (int, bool) {
	if year < 1 {
		return 0, false
	}
	e, ok := t.Resolve(name, year)
	if !ok {
		return 0, false
	}
	return e.Gregorian(year)
}

// FromGregorian returns the era dates that name Gregorian year g, one per
// era counted in that year: the preferred dynasties first, then by latest
// first year, so that within a dynasty the era in force at the end of the
// year (the one annals label the year with) comes first. Text is the
// formatted date; Start and End are zero.
func (t *Table) FromGregorian(g int) []Date {
	var eras []Era
	for _, e := range t.eras {
		if e.Start <= g && g <= e.End {
			eras = append(eras, e)
		}
	}
	slices.SortStableFunc(eras, t.compare)
	out := make([]Date, 0, len(eras))
	for _, e := range eras {
		d := Date{Era: e.Name, Dynasty: e.Dynasty, Year: e.ordinal(g), Gregorian: g}
		d.Text = d.Format()
		out = append(out, d)
	}
	return out
}
