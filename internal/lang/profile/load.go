package profile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/zh/era"
)

// Files of a profile directory besides profile.tsv.
const (
	fileSettings   = "profile.tsv"
	fileOffices    = "offices.tsv"
	fileExams      = "exams.tsv"
	fileKin        = "kin.tsv"
	fileChunkDemos = "chunk_demos.json"
	fileRegexDemos = "regex_demos.tsv"
	fileMentions   = "mention_model.tsv"
	fileCharCounts = "mention_chars.tsv"
)

var tableFiles = []string{fileOffices, fileExams, fileKin, fileChunkDemos, fileRegexDemos, fileMentions, fileCharCounts}

// Setting keys of profile.tsv that are not inherited: they say how the
// profile itself relates to others.
const (
	keyExtends = "extends"
	keyRules   = "rules"
	keyDetect  = "detect"
)

// settingKeys are the keys profile.tsv may hold; any other is an error, so
// a misspelt key does not silently fall back to a default.
var settingKeys = []string{
	"language", "chunking", keyDetect, keyExtends, keyRules, "era_prefer", "window_chars",
	"entry.formula", "entry.appraisal", "entry.not_name_start", "entry.markers", "entry.appointment_chars",
	"entry.clause_end", "entry.relation_end",
	"names.compound_surnames", "names.introducers", "names.shared_place_lead", "names.shared_place", "names.not_name_end",
	"kin.chars", "kin.prefix_chars",
	"office.joiners", "office.honour_prefixes", "office.sinecure_prefixes",
	"writing.copy_scale", "writing.evidence_sentences", "writing.sub_entries", "writing.plan",
	"writing.identity", "writing.identity_end", "writing.notable_skip", "writing.notable_years",
	"writing.notable_bonus", "writing.language_name",
	"review.question", "review.join", "review.label", "review.mention", "review.mention_none", "linker.name_prior", "linker.alias_prior", "linker.designations", "linker.alias_markers", "conflict.style", "conflict.marker", "conflict.one",
	"conflict.many",
}

// raw is a profile directory as read: settings by key (each line's values)
// and table files by name.
type raw struct {
	name     string
	settings map[string][][]string
	files    map[string][]byte
}

// Load reads the profiles of fsys, one directory per profile holding at
// least a profile.tsv, and resolves them: extends, language variants, the
// era table with each profile's preference. eras is the table the
// profiles share (nil means era.Default()).
func Load(fsys fs.FS, eras *era.Table) (*Set, error) {
	if eras == nil {
		eras = era.Default()
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("read profiles: %w", err)
	}
	raws := map[string]*raw{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		r, err := readRaw(fsys, e.Name())
		if err != nil {
			return nil, err
		}
		if r != nil {
			raws[r.name] = r
		}
	}
	if len(raws) == 0 {
		return nil, errors.New("read profiles: no profile directory")
	}
	s := &Set{profiles: map[string]*Profile{}, variants: map[string]map[string]*Profile{}}
	resolved := map[string]*raw{}
	for name := range raws {
		r, err := resolve(raws, name, nil)
		if err != nil {
			return nil, err
		}
		resolved[name] = r
	}
	for name, r := range resolved {
		p, err := build(r, eras)
		if err != nil {
			return nil, fmt.Errorf("profile %s: %w", name, err)
		}
		s.profiles[name] = p
		s.names = append(s.names, name)
	}
	slices.Sort(s.names)
	for _, name := range s.names {
		r := raws[name]
		for _, line := range r.settings[keyRules] {
			if len(line) != 2 {
				return nil, fmt.Errorf("profile %s: rules wants a language and a profile, got %q", name, line)
			}
			lang, from := line[0], line[1]
			base, ok := resolved[from]
			if !ok {
				return nil, fmt.Errorf("profile %s: rules for %s name unknown profile %q", name, lang, from)
			}
			if s.profiles[name].Language != "" {
				return nil, fmt.Errorf("profile %s: has a language and rules for %s", name, lang)
			}
			v, err := build(overlay(resolved[name], base), eras)
			if err != nil {
				return nil, fmt.Errorf("profile %s in %s: %w", name, lang, err)
			}
			if v.Language != lang {
				return nil, fmt.Errorf("profile %s: rules for %s name profile %s, whose language is %q", name, lang, from, v.Language)
			}
			if s.variants[name] == nil {
				s.variants[name] = map[string]*Profile{}
			}
			s.variants[name][lang] = v
		}
	}
	return s, nil
}

// readRaw reads one profile directory; nil when it has no profile.tsv.
func readRaw(fsys fs.FS, dir string) (*raw, error) {
	b, err := fs.ReadFile(fsys, path.Join(dir, fileSettings))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", dir, err)
	}
	r := &raw{name: dir, settings: map[string][][]string{}, files: map[string][]byte{}}
	rows, err := parseTSV(b)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %s: %w", dir, fileSettings, err)
	}
	for _, row := range rows {
		key := row.fields[0]
		if !slices.Contains(settingKeys, key) {
			return nil, fmt.Errorf("profile %s: %s line %d: unknown key %q", dir, fileSettings, row.line, key)
		}
		if len(row.fields) < 2 {
			return nil, fmt.Errorf("profile %s: %s line %d: key %q has no value", dir, fileSettings, row.line, key)
		}
		r.settings[key] = append(r.settings[key], row.fields[1:])
	}
	files, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", dir, err)
	}
	for _, f := range files {
		switch name := f.Name(); {
		case name == fileSettings:
		case slices.Contains(tableFiles, name):
			if r.files[name], err = fs.ReadFile(fsys, path.Join(dir, name)); err != nil {
				return nil, fmt.Errorf("profile %s: %w", dir, err)
			}
		default:
			return nil, fmt.Errorf("profile %s: unknown file %s", dir, name)
		}
	}
	return r, nil
}

// resolve returns the profile name with what it extends filled in:
// settings and files it does not give itself are its parent's (resolved
// the same way). seen guards against cycles.
func resolve(raws map[string]*raw, name string, seen []string) (*raw, error) {
	if slices.Contains(seen, name) {
		return nil, fmt.Errorf("profile %s: extends itself through %s", name, strings.Join(seen, " → "))
	}
	r, ok := raws[name]
	if !ok {
		return nil, fmt.Errorf("profile %s: extends unknown profile %q", seen[len(seen)-1], name)
	}
	ext := r.settings[keyExtends]
	if len(ext) == 0 {
		return r, nil
	}
	if len(ext) != 1 || len(ext[0]) != 1 {
		return nil, fmt.Errorf("profile %s: extends wants one profile, got %q", name, ext)
	}
	parent, err := resolve(raws, ext[0][0], append(seen, name))
	if err != nil {
		return nil, err
	}
	return overlay(r, parent), nil
}

// overlay is r with every inheritable setting and file it lacks taken
// from base.
func overlay(r, base *raw) *raw {
	out := &raw{name: r.name, settings: map[string][][]string{}, files: map[string][]byte{}}
	for k, v := range base.settings {
		switch k {
		case keyExtends, keyRules, keyDetect:
		default:
			out.settings[k] = v
		}
	}
	for k, v := range r.settings {
		out.settings[k] = v
	}
	for k, v := range base.files {
		out.files[k] = v
	}
	for k, v := range r.files {
		out.files[k] = v
	}
	return out
}

// build makes a Profile from resolved settings and files.
func build(r *raw, eras *era.Table) (*Profile, error) {
	st := settings{r.settings}
	p := &Profile{Name: r.name}
	var errs []error
	fail := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	p.Language = st.one("language")
	switch p.Language {
	case "", LangChinese, LangEnglish:
	default:
		fail(fmt.Errorf("language %q: want %s or %s", p.Language, LangChinese, LangEnglish))
	}
	p.Chunking = st.one("chunking")
	switch p.Chunking {
	case ChunkEntries, ChunkWindows, ChunkGlossary:
	default:
		fail(fmt.Errorf("chunking %q: want %s, %s or %s", p.Chunking, ChunkEntries, ChunkWindows, ChunkGlossary))
	}
	var err error
	p.Detect, err = st.flag(keyDetect)
	fail(err)
	if p.Detect && (p.Chunking != ChunkEntries || p.Language == "") {
		fail(errors.New("detect needs entries chunking and a language"))
	}
	p.WindowChars, err = st.number("window_chars")
	fail(err)
	for key, to := range map[string]*float64{"linker.name_prior": &p.NamePrior, "linker.alias_prior": &p.AliasPrior} {
		if v := st.one(key); v != "" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f <= 0 || f >= 1 {
				fail(fmt.Errorf("%s %q: want a probability between 0 and 1", key, v))
			}
			*to = f
		}
	}
	p.Designations = st.all("linker.designations")
	p.AliasMarkers = st.all("linker.alias_markers")
	p.Eras = eras
	if prefer := st.all("era_prefer"); len(prefer) > 0 {
		for _, d := range prefer {
			if !slices.ContainsFunc(eras.Eras(), func(e era.Era) bool { return e.Dynasty == d }) {
				fail(fmt.Errorf("era_prefer: no era of dynasty %q in the era table", d))
			}
		}
		p.Eras, p.EraPrefer = eras.WithPrefer(prefer...), prefer
	}
	p.eraNames = eraNames(eras)

	p.Entry = Entry{
		Formulas:         st.all("entry.formula"),
		Appraisals:       st.all("entry.appraisal"),
		NotNameStarts:    st.runes("entry.not_name_start", fail),
		Markers:          st.runes("entry.markers", fail),
		AppointmentChars: st.runes("entry.appointment_chars", fail),
		ClauseEnds:       longestFirst(st.all("entry.clause_end")),
		RelationEnds:     longestFirst(st.all("entry.relation_end")),
	}
	p.Names = Names{CompoundSurnames: st.all("names.compound_surnames"), Introducers: longestFirst(st.all("names.introducers")),
		SharedPlaceLeads: st.all("names.shared_place_lead"), SharedPlace: st.all("names.shared_place"),
		NotNameEnds: st.runes("names.not_name_end", fail)}
	for _, s := range p.Names.CompoundSurnames {
		if utf8.RuneCountInString(s) != 2 {
			fail(fmt.Errorf("compound surname %q is not two characters", s))
		}
	}
	p.Kin.Chars = st.runes("kin.chars", fail)
	p.Kin.PrefixChars = st.runes("kin.prefix_chars", fail)
	p.Offices.Joiners = st.runes("office.joiners", fail)
	p.Offices.HonourPrefixes = st.all("office.honour_prefixes")
	p.Offices.SinecurePrefixes = st.all("office.sinecure_prefixes")

	w, err := buildWriting(st)
	fail(err)
	p.Writing = w
	p.Review = Review{Question: st.one("review.question"), Join: st.one("review.join"), Labels: map[string]string{},
		Style: st.one("conflict.style"), Marker: st.one("conflict.marker"), One: st.one("conflict.one"),
		Many: st.one("conflict.many"), Mention: st.one("review.mention"), MentionNone: st.one("review.mention_none")}
	for _, l := range st.lines("review.label") {
		if len(l) != 2 {
			fail(fmt.Errorf("review.label wants a relation and a label, got %q", l))
			continue
		}
		if _, dup := p.Review.Labels[l[0]]; dup {
			fail(fmt.Errorf("review.label: relation %s labelled twice", l[0]))
		}
		p.Review.Labels[l[0]] = l[1]
	}
	switch p.Review.Style {
	case "", ConflictClause, ConflictInline:
	default:
		fail(fmt.Errorf("conflict.style %q: want %s or %s", p.Review.Style, ConflictClause, ConflictInline))
	}
	if p.Review.Mention != "" && strings.Count(p.Review.Mention, "%[") != 2 {
		fail(fmt.Errorf("review.mention %q: want %%[1]s and %%[2]s", p.Review.Mention))
	}
	if p.Review.Question != "" && strings.Count(p.Review.Question, "%[") != 3 {
		fail(fmt.Errorf("review.question %q: want %%[1]s, %%[2]s and %%[3]s", p.Review.Question))
	}

	if b, ok := r.files[fileOffices]; ok {
		p.Offices.Terms, err = parseOffices(b)
		fail(wrapFile(fileOffices, err))
	}
	p.Offices.index()
	if b, ok := r.files[fileExams]; ok {
		p.Exams.Terms, err = parseExams(b)
		fail(wrapFile(fileExams, err))
	}
	if b, ok := r.files[fileKin]; ok {
		p.Kin.Words, err = parseKin(b)
		fail(wrapFile(fileKin, err))
	}
	if b, ok := r.files[fileChunkDemos]; ok {
		if err := json.Unmarshal(b, &p.ChunkDemos); err != nil {
			fail(wrapFile(fileChunkDemos, err))
		}
	}
	if b, ok := r.files[fileRegexDemos]; ok {
		p.RegexDemos, err = parseRegexDemos(b)
		fail(wrapFile(fileRegexDemos, err))
	}
	if b, ok := r.files[fileMentions]; ok {
		p.MentionModel, err = parseWeights(b)
		fail(wrapFile(fileMentions, err))
	}
	if b, ok := r.files[fileCharCounts]; ok {
		p.MentionChars, err = parseCounts(b)
		fail(wrapFile(fileCharCounts, err))
	}
	if p.Language == LangChinese && p.Chunking == ChunkEntries {
		// The entry patterns are what such a profile is for.
		if len(p.Entry.Formulas) == 0 || len(p.Kin.Words) == 0 || len(p.Kin.Chars) == 0 {
			fail(errors.New("entries chunking in Chinese needs entry.formula, kin.chars and kin.tsv"))
		}
	}
	return p, errors.Join(errs...)
}

func wrapFile(name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", name, err)
}

func buildWriting(st settings) (Writing, error) {
	var errs []error
	w := Writing{Plan: st.all("writing.plan"), IdentityEnd: st.one("writing.identity_end"),
		LanguageName: st.one("writing.language_name"),
		NotableSkip:  st.all("writing.notable_skip")}
	var err error
	if w.CopyScale, err = st.number("writing.copy_scale"); err != nil {
		errs = append(errs, err)
	}
	if w.CopyScale == 0 {
		w.CopyScale = 1
	}
	if w.EvidenceSentences, err = st.flag("writing.evidence_sentences"); err != nil {
		errs = append(errs, err)
	}
	if w.SubEntries, err = st.flag("writing.sub_entries"); err != nil {
		errs = append(errs, err)
	}
	for _, it := range w.Plan {
		if !slices.Contains(planItems, it) {
			errs = append(errs, fmt.Errorf("writing.plan: unknown item %q", it))
		}
	}
	for _, l := range st.lines("writing.identity") {
		if len(l) != 2 || strings.Count(l[1], "%s") != 1 {
			errs = append(errs, fmt.Errorf("writing.identity wants a relation and a format with one %%s, got %q", l))
			continue
		}
		w.Identity = append(w.Identity, IdentityPart{Relation: l[0], Format: l[1]})
	}
	if l := st.lines("writing.notable_years"); len(l) > 0 {
		if len(l) != 1 || len(l[0]) != 2 {
			errs = append(errs, fmt.Errorf("writing.notable_years wants a cap and a pattern, got %q", l))
		} else if n, err := strconv.Atoi(l[0][0]); err != nil || n < 0 {
			errs = append(errs, fmt.Errorf("writing.notable_years: cap %q is not a count", l[0][0]))
		} else if re, err := regexp.Compile(l[0][1]); err != nil {
			errs = append(errs, fmt.Errorf("writing.notable_years: %w", err))
		} else {
			w.NotableYears, w.NotableYearCap = re, n
		}
	}
	for _, l := range st.lines("writing.notable_bonus") {
		n, err := 0, error(nil)
		if len(l) == 2 {
			n, err = strconv.Atoi(l[1])
		}
		if len(l) != 2 || err != nil {
			errs = append(errs, fmt.Errorf("writing.notable_bonus wants a word and points, got %q", l))
			continue
		}
		w.NotableBonus = append(w.NotableBonus, Bonus{Word: l[0], Points: n})
	}
	return w, errors.Join(errs...)
}

// eraNames are the names of the table's eras, each once, longest first
// and then in lexical order.
func eraNames(t *era.Table) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range t.Eras() {
		if !seen[e.Name] {
			seen[e.Name] = true
			out = append(out, e.Name)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if d := utf8.RuneCountInString(b) - utf8.RuneCountInString(a); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return out
}

// settings reads profile.tsv values.
type settings struct{ m map[string][][]string }

func (s settings) lines(key string) [][]string { return s.m[key] }

// all is every value of every line of key, in order.
func (s settings) all(key string) []string {
	var out []string
	for _, l := range s.m[key] {
		out = append(out, l...)
	}
	return out
}

// one is the single value of key, "" when absent.
func (s settings) one(key string) string {
	if v := s.all(key); len(v) > 0 {
		return v[len(v)-1]
	}
	return ""
}

func (s settings) number(key string) (int, error) {
	v := s.one(key)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s: %q is not a count", key, v)
	}
	return n, nil
}

func (s settings) flag(key string) (bool, error) {
	switch v := s.one(key); v {
	case "", "no":
		return false, nil
	case "yes":
		return true, nil
	default:
		return false, fmt.Errorf("%s: %q, want yes or no", key, v)
	}
}

// runes reads a key whose values are single characters.
func (s settings) runes(key string, fail func(error)) []rune {
	var out []rune
	for _, v := range s.all(key) {
		if utf8.RuneCountInString(v) != 1 {
			fail(fmt.Errorf("%s: %q is not one character", key, v))
			continue
		}
		r, _ := utf8.DecodeRuneInString(v)
		if slices.Contains(out, r) {
			fail(fmt.Errorf("%s: %q twice", key, v))
		}
		out = append(out, r)
	}
	return out
}

// longestFirst sorts words by length in characters, longest first, and
// keeps the order of equal lengths, so a scan that takes the first match
// takes the longest.
func longestFirst(ws []string) []string {
	out := slices.Clone(ws)
	slices.SortStableFunc(out, func(a, b string) int {
		return utf8.RuneCountInString(b) - utf8.RuneCountInString(a)
	})
	return out
}

// row is one line of a TSV file.
type row struct {
	line   int
	fields []string
}

// parseTSV reads tab-separated lines; blank lines and lines starting with #
// are skipped, a field in double quotes is unquoted, and empty fields are
// an error (a stray tab).
func parseTSV(b []byte) ([]row, error) {
	var out []row
	for i, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSuffix(l, "\r")
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		fields := strings.Split(l, "\t")
		for j, f := range fields {
			if f == "" {
				return nil, fmt.Errorf("line %d: empty field %d", i+1, j+1)
			}
			if len(f) >= 2 && f[0] == '"' && f[len(f)-1] == '"' {
				u, err := strconv.Unquote(f)
				if err != nil {
					return nil, fmt.Errorf("line %d: field %d: %w", i+1, j+1, err)
				}
				fields[j] = u
			}
		}
		out = append(out, row{line: i + 1, fields: fields})
	}
	return out, nil
}

// columns checks that every row has n fields and no term twice.
func columns(rows []row, n int) error {
	seen := map[string]int{}
	for _, r := range rows {
		if len(r.fields) != n {
			return fmt.Errorf("line %d: %d fields, want %d", r.line, len(r.fields), n)
		}
		if l, dup := seen[r.fields[0]]; dup {
			return fmt.Errorf("line %d: %q already on line %d", r.line, r.fields[0], l)
		}
		seen[r.fields[0]] = r.line
	}
	return nil
}

func parseOffices(b []byte) ([]Office, error) {
	rows, err := parseTSV(b)
	if err != nil {
		return nil, err
	}
	if err := columns(rows, 4); err != nil {
		return nil, err
	}
	out := make([]Office, 0, len(rows))
	for _, r := range rows {
		f := r.fields
		o := Office{Term: f[0]}
		switch f[1] {
		case "-":
		case "honorary":
			o.Honorary = true
		default:
			g, err := strconv.ParseFloat(f[1], 64)
			if err != nil || g < 0 || g > 10 {
				return nil, fmt.Errorf("line %d: grade %q: want 0 to 9.5, honorary or -", r.line, f[1])
			}
			o.Grade, o.Graded = g, true
		}
		switch f[2] {
		case "yes":
			o.Extract, o.MinChars = true, utf8.RuneCountInString(o.Term)
		case "no":
		default:
			n, err := strconv.Atoi(f[2])
			if err != nil || n < utf8.RuneCountInString(o.Term) {
				return nil, fmt.Errorf("line %d: extract %q: want yes, no or a length of at least the term's", r.line, f[2])
			}
			o.Extract, o.MinChars = true, n
		}
		switch f[3] {
		case "yes":
			o.Recognise = true
		case "no":
		default:
			return nil, fmt.Errorf("line %d: recognise %q: want yes or no", r.line, f[3])
		}
		out = append(out, o)
	}
	return out, nil
}

func parseExams(b []byte) ([]ExamTerm, error) {
	rows, err := parseTSV(b)
	if err != nil {
		return nil, err
	}
	if err := columns(rows, 3); err != nil {
		return nil, err
	}
	out := make([]ExamTerm, 0, len(rows))
	for _, r := range rows {
		t := ExamTerm{Term: r.fields[0], Level: r.fields[1], Kind: r.fields[2]}
		switch t.Level {
		case LevelProvincial, LevelMetropolitan, LevelPalace:
		case "-":
			t.Level = ""
		default:
			return nil, fmt.Errorf("line %d: level %q", r.line, t.Level)
		}
		switch t.Kind {
		case KindDegree, KindExam, KindTitle, KindTier, KindPhrase:
		default:
			return nil, fmt.Errorf("line %d: kind %q", r.line, t.Kind)
		}
		out = append(out, t)
	}
	slices.SortStableFunc(out, func(a, b ExamTerm) int {
		return utf8.RuneCountInString(b.Term) - utf8.RuneCountInString(a.Term)
	})
	return out, nil
}

func parseKin(b []byte) ([]KinWord, error) {
	rows, err := parseTSV(b)
	if err != nil {
		return nil, err
	}
	if err := columns(rows, 3); err != nil {
		return nil, err
	}
	out := make([]KinWord, 0, len(rows))
	for _, r := range rows {
		w := KinWord{Word: r.fields[0]}
		switch r.fields[1] {
		case "same":
			w.SameSurname = true
		case "other":
		default:
			return nil, fmt.Errorf("line %d: surname %q: want same or other", r.line, r.fields[1])
		}
		for _, role := range strings.Split(r.fields[2], ",") {
			if !slices.Contains(kinRoles, role) || slices.Contains(w.Roles, role) {
				return nil, fmt.Errorf("line %d: role %q unknown or repeated", r.line, role)
			}
			w.Roles = append(w.Roles, role)
		}
		out = append(out, w)
	}
	slices.SortStableFunc(out, func(a, b KinWord) int {
		return utf8.RuneCountInString(b.Word) - utf8.RuneCountInString(a.Word)
	})
	return out, nil
}

// parseWeights reads "feature TAB weight" lines.
func parseWeights(b []byte) (map[string]float64, error) {
	rows, err := parseTSV(b)
	if err != nil {
		return nil, err
	}
	if err := columns(rows, 2); err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(rows))
	for _, r := range rows {
		w, err := strconv.ParseFloat(r.fields[1], 64)
		if err != nil || math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("line %d: weight %q is not a finite number", r.line, r.fields[1])
		}
		out[r.fields[0]] = w
	}
	return out, nil
}

// parseCounts reads "key TAB count TAB count …" lines, every line with as
// many counts as the first.
func parseCounts(b []byte) (map[string][]int64, error) {
	rows, err := parseTSV(b)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	if err := columns(rows, len(rows[0].fields)); err != nil {
		return nil, err
	}
	out := make(map[string][]int64, len(rows))
	for _, r := range rows {
		ns := make([]int64, len(r.fields)-1)
		for i, f := range r.fields[1:] {
			n, err := strconv.ParseInt(f, 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("line %d: count %q is not a whole number", r.line, f)
			}
			ns[i] = n
		}
		out[r.fields[0]] = ns
	}
	return out, nil
}

func parseRegexDemos(b []byte) ([]RegexDemo, error) {
	rows, err := parseTSV(b)
	if err != nil {
		return nil, err
	}
	var out []RegexDemo
	for _, r := range rows {
		if len(r.fields) != 4 {
			return nil, fmt.Errorf("line %d: %d fields, want 4", r.line, len(r.fields))
		}
		d := RegexDemo{Relation: r.fields[0], Source: r.fields[2], Example: r.fields[3], Groups: map[string]int{}}
		for _, g := range strings.Split(r.fields[1], ",") {
			name, idx, ok := strings.Cut(g, "=")
			n, err := strconv.Atoi(idx)
			if !ok || err != nil || n < 1 || name == "" {
				return nil, fmt.Errorf("line %d: group %q: want name=index", r.line, g)
			}
			d.Groups[name] = n
		}
		if _, ok := d.Groups["tail"]; !ok {
			return nil, fmt.Errorf("line %d: no tail group", r.line)
		}
		if _, err := regexp.Compile(d.Source); err != nil {
			return nil, fmt.Errorf("line %d: %w", r.line, err)
		}
		out = append(out, d)
	}
	return out, nil
}
