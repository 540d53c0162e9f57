package profile

import (
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/annalist-dev/annalist/internal/lang/zh/era"
)

// Profile names the project ships. Documents, chunks and reference sets
// carry them (schemas.Document.Profile, schemas.Chunk.Profile,
// schemas.ReferenceSet.Profile).
const (
	// Liezhuan reads a document as a volume of biographies: one chunk per
	// person entry.
	Liezhuan = "liezhuan"
	// Generic cuts sentence-aware windows; its language is the document's.
	Generic = "generic"
	// Glossary reads "term｜category｜definition" lines, one chunk each.
	Glossary = "glossary"
	// English reads biographical prose in English.
	English = "english"
)

// Languages, as internal/lang/text.Lang names them.
const (
	LangChinese = "zh"
	LangEnglish = "en"
)

// Chunking methods a profile names.
const (
	// ChunkEntries: one chunk per person entry, found by the entry
	// patterns (and, with a model, the demonstrations).
	ChunkEntries = "entries"
	// ChunkWindows: sentence-aware windows.
	ChunkWindows = "windows"
	// ChunkGlossary: one chunk per glossary entry line.
	ChunkGlossary = "glossary"
)

// Profile is what the stages know about one kind of text. Its slices and
// maps are shared and must not be modified.
type Profile struct {
	// Name is the profile's name; Language its language (LangChinese,
	// LangEnglish), empty for a profile read in the document's language
	// that Set.For could not resolve.
	Name     string
	Language string
	// Chunking is ChunkEntries, ChunkWindows or ChunkGlossary; Detect says
	// the chunker may pick the profile for a document that names none.
	Chunking string
	Detect   bool
	// WindowChars is the size of sentence windows in this language.
	WindowChars int
	// Eras is internal/lang/zh/era's table with the profile's preference among
	// dynasties, EraPrefer (empty: the table's own).
	Eras      *era.Table
	EraPrefer []string

	Entry   Entry
	Names   Names
	Kin     Kinship
	Offices Offices
	Exams   Exams
	Writing Writing
	Review  Review

	// ChunkDemos are the chunker's demonstrations for the model.
	ChunkDemos []ChunkDemo
	// RegexDemos are the extractor's hand-made regexes for the model.
	RegexDemos []RegexDemo
	// MentionModel are the weights of the linker's mention model, fitted
	// on the profile's corpus (`annalist eval linking --fit`): how the
	// characters around a surface, and its own, tell a name from a part
	// of something else. Nil: the linker reads no context.
	MentionModel map[string]float64
	// NamePrior is the linker's prior share of names among the
	// occurrences of a surface the graph attests as a person's name, before
	// the corpus has counted any (linker.name_prior); 0: none set.
	NamePrior float64
	// AliasPrior is the same of a surface that is only a courtesy or art
	// name (linker.alias_prior); 0: none set.
	AliasPrior float64
	// Designations are the words that, after a surname, designate a
	// family or a woman by her family (linker.designations: 氏): the
	// linker links such a surface only where the chunk gives evidence of
	// whom it names.
	Designations []string
	// AliasMarkers are the words that introduce a courtesy name right
	// after the person's name (linker.alias_markers: 字): the name written
	// there is that person's, whoever else bears it.
	AliasMarkers []string
	// MentionChars are the character counts the mention model reads how
	// names are written from (per character, "total" for the sums).
	MentionChars map[string][]int64

	eraNames []string
}

// EraNames returns the names of the era table, each once, longest first:
// an alternation of them in this order matches 建中靖国 before 建中. The
// slice is shared.
func (p *Profile) EraNames() []string { return p.eraNames }

// Entry holds the patterns that open a person's entry.
type Entry struct {
	// Formulas are the words after "Name，" that show an entry formula
	// besides the courtesy name and the native place (名, 初名, 其先, 号 …).
	Formulas []string
	// Appraisals open the historian's closing judgement (赞曰).
	Appraisals []string
	// NotNameStarts are characters that begin sentences but not names.
	NotNameStarts []rune
	// Markers are the symbols put before headings.
	Markers []rune
	// AppointmentChars show that a "…人" clause is an appointment, not a
	// native place.
	AppointmentChars []rune
	// ClauseEnds end a clause after "Name，" that shows a person: a clan
	// (钮祜禄氏) or a banner (镶黄旗汉军).
	ClauseEnds []string
	// RelationEnds end a kinship clause after "Name，" that says whose
	// relative the person is ("武善弟", "太祖第十四子").
	RelationEnds []string
}

// Names holds what a person's name is written with.
type Names struct {
	// CompoundSurnames are the two-character surnames.
	CompoundSurnames []string
	// Introducers are written before a person brought in without kinship,
	// longest first.
	Introducers []string
	// SharedPlaceLeads begin, and SharedPlace stand inside, a native-place
	// clause that gives the place by another person's ("亦江阴人",
	// "国珍同县人").
	SharedPlaceLeads, SharedPlace []string
	// NotNameEnds end places and offices ("宣抚司", "宁番卫"), never a
	// person's name.
	NotNameEnds []rune
}

// Kinship holds the kinship words and characters.
type Kinship struct {
	// Words are the kinship words, longest first.
	Words []KinWord
	// Chars are the characters of kinship terms; PrefixChars those that,
	// before a name, make it a relative's.
	Chars       []rune
	PrefixChars []rune
}

// Kinship word roles (kin.tsv).
const (
	RoleSubEntry = "subentry"
	RoleHeader   = "header"
	RoleNamed    = "named"
	RoleSubject  = "subject"
	RoleHeir     = "heir"
	RoleSentence = "sentence"
)

var kinRoles = []string{RoleSubEntry, RoleHeader, RoleNamed, RoleSubject, RoleHeir, RoleSentence}

// KinWord is one kinship word.
type KinWord struct {
	Word string
	// SameSurname says the relative bears the person's surname.
	SameSurname bool
	Roles       []string
}

// WithRole returns the words read in role, longest first.
func (k Kinship) WithRole(role string) []KinWord {
	var out []KinWord
	for _, w := range k.Words {
		if slices.Contains(w.Roles, role) {
			out = append(out, w)
		}
	}
	return out
}

// Exams holds the examination terms.
type Exams struct {
	// Terms are the terms, longest first.
	Terms []ExamTerm
}

// Examination levels and kinds (exams.tsv).
const (
	LevelProvincial   = "provincial"
	LevelMetropolitan = "metropolitan"
	LevelPalace       = "palace"

	KindDegree = "degree"
	KindExam   = "exam"
	KindTitle  = "title"
	KindTier   = "tier"
	KindPhrase = "phrase"
)

// ExamTerm is one examination term.
type ExamTerm struct {
	Term, Level, Kind string
}

// Select returns the terms of the level and kind ("" matches any), longest
// first.
func (e Exams) Select(level, kind string) []string {
	var out []string
	for _, t := range e.Terms {
		if (level == "" || t.Level == level) && (kind == "" || t.Kind == kind) {
			out = append(out, t.Term)
		}
	}
	return out
}

// Writing holds the offline drafter's settings.
type Writing struct {
	// LanguageName names the language pages are written in, for a
	// model's prompt ("classical Chinese", "English").
	LanguageName string
	// CopyScale multiplies the drafter's copy limits, which are counted in
	// Chinese characters.
	CopyScale int
	// EvidenceSentences says a fact's evidence span reads as a sentence.
	EvidenceSentences bool
	// SubEntries says another person's formula at a paragraph start ends
	// the subject's part of an entry.
	SubEntries bool
	// Plan names the items of a page in order (PlanIdentity …).
	Plan []string
	// Identity is the templated identity sentence: each part the subject
	// has a fact of, then IdentityEnd.
	Identity    []IdentityPart
	IdentityEnd string
	// NotableSkip are substrings that keep a sentence out of the notable
	// acts.
	NotableSkip []string
	// NotableYears finds the years a notable act states, two points each,
	// at most NotableYearCap of them (0: no cap).
	NotableYears   *regexp.Regexp
	NotableYearCap int
	// NotableBonus are words that add points to a sentence holding them.
	NotableBonus []Bonus
}

// Plan items (writing.plan).
const (
	PlanIdentity        = "identity"
	PlanBirth           = "birth"
	PlanExamination     = "examination"
	PlanCareer          = "career"
	PlanCareerSentences = "career_sentences"
	PlanNotable         = "notable"
	PlanDeath           = "death"
	PlanPosthumous      = "posthumous"
)

var planItems = []string{PlanIdentity, PlanBirth, PlanExamination, PlanCareer, PlanCareerSentences,
	PlanNotable, PlanDeath, PlanPosthumous}

// IdentityPart is one fact of the templated identity sentence: Format with
// %s for the value.
type IdentityPart struct {
	Relation, Format string
}

// Bonus is a word worth Points in a notable act.
type Bonus struct {
	Word   string
	Points int
}

// Review holds the wording of reference conflicts.
type Review struct {
	// Question is a format with %[1]s the subject, %[2]s the relation's
	// label and %[3]s the values joined with Join.
	Question, Join string
	// Labels name relations.
	Labels map[string]string
	// Style is how a sentence states the other values: ConflictClause
	// (after the value's clause, each with Marker: （一说侯官人）) or
	// ConflictInline (right after the value: " (One: X; Y)", One or Many
	// by the count).
	Style, Marker, One, Many string
	// Mention is a format asking whom a surface names in a passage:
	// %[1]s the surface, %[2]s the passage; MentionNone is the option
	// "none of these persons".
	Mention, MentionNone string
}

// Conflict styles (conflict.style).
const (
	ConflictClause = "clause"
	ConflictInline = "inline"
)

// Label returns the label of a relation: the profile's, else the relation
// name with spaces for underscores.
func (r Review) Label(rel string) string {
	if l, ok := r.Labels[rel]; ok {
		return l
	}
	return strings.ReplaceAll(rel, "_", " ")
}

// Format is the question an expert is asked about a conflict.
func (r Review) Format(name, rel string, values []string) string {
	vals := strings.Join(values, r.Join)
	if r.Question == "" {
		// A profile without review wording (no language): say it plainly.
		return fmt.Sprintf("%s, %s: %s?", name, r.Label(rel), vals)
	}
	return fmt.Sprintf(r.Question, name, r.Label(rel), vals)
}

// ChunkDemo is one demonstration of entry chunking: a volume's listing, its
// text, and the entries a model should answer.
type ChunkDemo struct {
	Listing string          `json:"listing"`
	Text    string          `json:"text"`
	Answer  ChunkDemoAnswer `json:"answer"`
}

// ChunkDemoAnswer is a demonstration's answer.
type ChunkDemoAnswer struct {
	Entries []DemoEntry `json:"entries"`
}

// DemoEntry is one entry of a demonstration's answer: the person, the
// words the entry opens with, and whether it is a relative's sub-entry.
type DemoEntry struct {
	Subject  string `json:"subject"`
	Anchor   string `json:"anchor"`
	Relative bool   `json:"relative,omitempty"`
}

// RegexDemo is one hand-made regex for a relation: the pattern, its
// capture groups by name, and a text it matches.
type RegexDemo struct {
	Relation string
	Source   string
	Groups   map[string]int
	Example  string
}

// Set is a loaded collection of profiles.
type Set struct {
	profiles map[string]*Profile
	// variants[name][lang] is a profile without a language resolved for
	// text in lang.
	variants map[string]map[string]*Profile
	names    []string
}

//go:embed data
var embedded embed.FS

// Data returns the embedded profile files: one directory per profile.
func Data() fs.FS {
	sub, err := fs.Sub(embedded, "data")
	if err != nil {
		// fs.Sub fails only on an invalid path; "data" is valid.
		panic(fmt.Sprintf("profile: %v", err))
	}
	return sub
}

var defaultSet = sync.OnceValues(func() (*Set, error) { return Load(Data(), era.Default()) })

// Default returns the embedded profiles, loaded once per process and
// shared: a Set is immutable. The embedded files are part of the source
// and checked by the package's tests, so failing to load them is a build
// defect and panics.
func Default() *Set {
	s, err := defaultSet()
	if err != nil {
		panic(fmt.Sprintf("profile: embedded profiles: %v", err))
	}
	return s
}

// Names returns the profile names, sorted.
func (s *Set) Names() []string { return slices.Clone(s.names) }

// Get returns the profile of that name as its files give it: a profile
// without a language (generic) has none.
func (s *Set) Get(name string) (*Profile, bool) {
	p, ok := s.profiles[name]
	return p, ok
}

// For returns the profile to read text of language lang with, when the
// document, chunk or reference set names the profile name: the named
// profile when it has a language of its own, whatever lang is; for a
// profile without one, and for an empty or unknown name (read as
// generic), its variant for lang, which takes the language data of the
// profile it names for lang. For never returns nil; a profile without a
// language and no variant for lang has an empty Language, and no
// language's rules apply to it.
func (s *Set) For(name, lang string) *Profile {
	p, ok := s.profiles[name]
	if !ok {
		name = Generic
		if p, ok = s.profiles[name]; !ok {
			return &Profile{Name: name}
		}
	}
	if p.Language != "" {
		return p
	}
	if v, ok := s.variants[name][lang]; ok {
		return v
	}
	return p
}
