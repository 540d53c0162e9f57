package eval

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/annalist-dev/annalist/internal/lang/text"

	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// ChunkFunc is the system under test: it chunks one document.
type ChunkFunc func(ctx context.Context, doc schemas.Document) ([]schemas.Chunk, error)

// SegmentationReport is the result of Segmentation. The rules behind each
// number are in the package documentation.
type SegmentationReport struct {
	Volumes      int     `json:"volumes"`
	VolumesNamed int     `json:"volumes_named"`
	VolumesExact int     `json:"volumes_exact"`
	ExactRate    float64 `json:"exact_rate"`

	NamesListed int     `json:"names_listed"`
	NamesFound  int     `json:"names_found"`
	NameRecall  float64 `json:"name_recall"`

	EntryChunks       int     `json:"entry_chunks"`
	EntryChunksListed int     `json:"entry_chunks_listed"`
	NamePrecision     float64 `json:"name_precision"`
	// NamePrecisionNamed is precision over named volumes only.
	NamePrecisionNamed float64 `json:"name_precision_named_volumes"`

	// NoListing says line 1 was hidden from the chunker (it still
	// scores the volumes).
	NoListing bool `json:"no_listing"`
	// AttachedChunks are the chunks that begin an attached person's
	// entry; AttachedListed those whose person the listing names.
	AttachedChunks int `json:"attached_chunks"`
	AttachedListed int `json:"attached_listed"`
	// Entries scores the entry chunks against the entry openings the text
	// shows, listing or not; see the package documentation.
	Entries EntryScore `json:"entries"`

	// Subjects counts every entry chunk, main and attached;
	// SubjectsNamed those whose subject is a person's name by the rules of
	// the package documentation ("Subjects"), and SubjectPrecision their
	// share. AttachedNamed are the attached chunks among SubjectsNamed.
	// NotNames lists the others.
	Subjects         int       `json:"subjects"`
	SubjectsNamed    int       `json:"subjects_named"`
	SubjectPrecision float64   `json:"subject_precision"`
	AttachedNamed    int       `json:"attached_named"`
	NotNames         []NotName `json:"not_names"`

	Chunks int `json:"chunks"`
	Chars  int `json:"chars"`

	// Failures lists the named volumes that are not exact, the other
	// volumes with unlisted entry chunks, and the volumes whose entry
	// chunks miss an entry opening or begin elsewhere.
	Failures []SegmentationFailure `json:"failures,omitempty"`
}

// EntryScore is the score of entry chunks against the person's entry
// openings read from the text.
type EntryScore struct {
	// Gold are the paragraphs that open a person's entry; Found those a
	// chunk with a subject begins.
	Gold   int     `json:"gold"`
	Found  int     `json:"found"`
	Recall float64 `json:"recall"`
	// Chunks are the chunks with a subject (main and attached entries);
	// Correct those that begin at a gold paragraph or at an entry opening
	// inside a paragraph.
	Chunks    int     `json:"chunks"`
	Correct   int     `json:"correct"`
	Precision float64 `json:"precision"`
}

// SegmentationOptions change how Segmentation presents the volumes.
type SegmentationOptions struct {
	// NoListing hides line 1 (the listing of a named volume) from the
	// chunker; the scores still read it.
	NoListing bool
}

// SegmentationFailure explains one volume's score.
type SegmentationFailure struct {
	File  string `json:"file"`
	DocID string `json:"doc_id"`
	Named bool   `json:"named"`
	// Listing is the main string (named volumes) or the heading lines.
	Listing string `json:"listing"`
	// Found are the subjects of the entry chunks, in order.
	Found []string `json:"found"`
	// Missing are the runs of the main string that no subject covers.
	Missing []string `json:"missing,omitempty"`
	// Extra are subjects not aligned with the main string.
	Extra []string `json:"extra,omitempty"`
	// Unlisted are subjects listed nowhere (precision misses).
	Unlisted []string `json:"unlisted,omitempty"`
	// MissedOpenings are the entry openings no subject chunk begins, and
	// WrongStarts the subjects of chunks that begin elsewhere, each with
	// the first characters of its paragraph.
	MissedOpenings []string `json:"missed_openings,omitempty"`
	WrongStarts    []string `json:"wrong_starts,omitempty"`
}

// meanNameLength converts a missed run of the main string into a count of
// names; see the package documentation.
const meanNameLength = 2.6

// Segmentation chunks every volume under dir with chunk and scores the
// entry chunks against the volumes' listings and against the entry
// openings of their text. progress, when not nil, is called after each
// volume. A file that cannot be read or chunked stops the evaluation with
// an error naming it.
func Segmentation(ctx context.Context, dir string, chunk ChunkFunc, progress func(done, total int)) (SegmentationReport, error) {
	return SegmentationWith(ctx, dir, chunk, SegmentationOptions{}, progress)
}

// SegmentationWith is Segmentation with options.
func SegmentationWith(ctx context.Context, dir string, chunk ChunkFunc, opts SegmentationOptions,
	progress func(done, total int)) (SegmentationReport, error) {
	rep := SegmentationReport{NoListing: opts.NoListing}
	files, err := producers.Walk([]string{dir}, producers.Options{})
	if err != nil {
		return rep, fmt.Errorf("segmentation: %w", err)
	}
	var entryNamed, listedNamed int
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		items, errs := producers.Read(f, producers.Options{})
		if len(errs) > 0 {
			return rep, fmt.Errorf("segmentation: read %s: %w", f.Rel, errs[0])
		}
		for _, it := range items {
			full, doc := it.Doc.Text, it.Doc
			if opts.NoListing {
				doc.Text = withoutLine1(doc.Text)
			}
			var chunks []schemas.Chunk
			if strings.TrimSpace(doc.Text) != "" {
				// A volume that is only its line 1 leaves nothing to chunk.
				if chunks, err = chunk(ctx, doc); err != nil {
					return rep, fmt.Errorf("segmentation: chunk %s: %w", f.Rel, err)
				}
			}
			v := scoreVolume(full, chunks)
			sc := scoreSubjects(v.body, v.list, chunks, f.Rel)
			rep.Subjects += sc.subjects
			rep.SubjectsNamed += sc.named
			rep.AttachedNamed += sc.attachedNamed
			rep.NotNames = append(rep.NotNames, sc.notNames...)
			o := scoreOpenings(doc.Text, chunks)
			rep.Entries.Gold += o.gold
			rep.Entries.Found += o.found
			rep.Entries.Chunks += o.chunks
			rep.Entries.Correct += o.correct
			rep.AttachedChunks += v.attached
			rep.AttachedListed += v.attachedListed
			rep.Volumes++
			rep.Chunks += len(chunks)
			rep.Chars += len([]rune(it.Doc.Text))
			rep.EntryChunks += len(v.found)
			rep.EntryChunksListed += v.listed
			if v.named {
				rep.VolumesNamed++
				rep.NamesFound += v.aligned
				rep.NamesListed += v.aligned + v.missedNames
				entryNamed += len(v.found)
				listedNamed += v.listed
				if v.exact {
					rep.VolumesExact++
				}
			}
			if v.named && !v.exact || v.listed < len(v.found) || len(o.missed) > 0 || len(o.wrong) > 0 {
				rep.Failures = append(rep.Failures, SegmentationFailure{
					File: f.Rel, DocID: it.Doc.DocID, Named: v.named, Listing: v.listing,
					Found: v.found, Missing: v.missing, Extra: v.extra, Unlisted: v.unlisted,
					MissedOpenings: o.missed, WrongStarts: o.wrong,
				})
			}
		}
		if progress != nil {
			progress(i+1, len(files))
		}
	}
	rep.ExactRate = ratio(rep.VolumesExact, rep.VolumesNamed)
	rep.NameRecall = ratio(rep.NamesFound, rep.NamesListed)
	rep.NamePrecision = ratio(rep.EntryChunksListed, rep.EntryChunks)
	rep.NamePrecisionNamed = ratio(listedNamed, entryNamed)
	rep.SubjectPrecision = ratio(rep.SubjectsNamed, rep.Subjects)
	rep.Entries.Recall = ratio(rep.Entries.Found, rep.Entries.Gold)
	rep.Entries.Precision = ratio(rep.Entries.Correct, rep.Entries.Chunks)
	return rep, nil
}

// withoutLine1 is a volume's text without its first line.
func withoutLine1(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return ""
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// volumeScore is one volume's share of the report.
type volumeScore struct {
	named       bool
	listing     string
	found       []string
	exact       bool
	aligned     int
	missedNames int
	missing     []string
	extra       []string
	listed      int
	unlisted    []string

	attached, attachedListed int
	// list is the listing the subject score reads: every heading line;
	// body the volume's text without them.
	list parsed
	body string
}

// parsed is a listing: the main string and the parenthesised groups.
type parsed struct {
	main   []rune
	groups [][]rune
}

// parseListing applies the package's rule for line 1 to a line.
func parseListing(p *parsed, line string) {
	depth := 0
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			p.groups = append(p.groups, cur)
			cur = nil
		}
	}
	for _, r := range line {
		switch {
		case r == '(' || r == '（':
			flush()
			depth++
		case r == ')' || r == '）':
			flush()
			if depth > 0 {
				depth--
			}
		case unicode.IsSpace(r) || r == '◎' || r == '○' || r == '△' || r == '·':
		case depth > 0:
			cur = append(cur, r)
		default:
			p.main = append(p.main, r)
		}
	}
	flush()
}

func hasSentencePunct(s string) bool { return strings.ContainsAny(s, "，。：；！？") }

func scoreVolume(docText string, chunks []schemas.Chunk) volumeScore {
	var v volumeScore
	var attached []string
	for _, c := range chunks {
		switch {
		case c.Subject == "":
		case c.Attached:
			attached = append(attached, c.Subject)
		default:
			v.found = append(v.found, c.Subject)
		}
	}
	lines := strings.Split(docText, "\n")
	first := strings.TrimSpace(lines[0])
	var l parsed
	if !strings.HasPrefix(first, "◎") {
		parseListing(&l, first)
	}
	v.named = len(l.main) > 0 && !hasSentencePunct(string(l.main))
	var all parsed
	var heads []string
	var body strings.Builder
	for _, line := range lines {
		var h parsed
		parseListing(&h, line)
		if len(h.main) > 0 && !hasSentencePunct(string(h.main)) {
			all.main = append(all.main, h.main...)
			all.groups = append(all.groups, h.groups...)
			heads = append(heads, strings.TrimSpace(line))
			continue
		}
		body.WriteString(line)
		body.WriteByte('\n')
	}
	v.body = body.String()
	v.list = all
	if !v.named {
		l = all
		v.listing = strings.Join(heads, " / ")
	} else {
		v.listing = string(l.main)
	}
	for _, s := range v.found {
		rs := []rune(s)
		ok := text.IndexRunes(l.main, rs, 0) >= 0
		for _, g := range l.groups {
			ok = ok || text.IndexRunes(g, rs, 0) >= 0
		}
		if ok {
			v.listed++
		} else {
			v.unlisted = append(v.unlisted, s)
		}
	}
	for _, s := range attached {
		v.attached++
		if listedAttached(l, []rune(s)) {
			v.attachedListed++
		}
	}
	if !v.named {
		return v
	}
	v.exact = strings.Join(v.found, "") == string(l.main)
	covered := align(l.main, v.found)
	alignedIdx := map[int]bool{}
	pos := 0
	for _, a := range covered {
		alignedIdx[a.subject] = true
		if a.q > pos {
			v.addMissing(l.main[pos:a.q])
		}
		pos = a.q + len([]rune(v.found[a.subject]))
	}
	if pos < len(l.main) {
		v.addMissing(l.main[pos:])
	}
	v.aligned = len(covered)
	for i, s := range v.found {
		if !alignedIdx[i] {
			v.extra = append(v.extra, s)
		}
	}
	return v
}

// listedAttached reports whether the listing names an attached person:
// the name as the chunk gives it, or its given name (the chunk completes
// a name the listing writes without the surname: 刘琏 for "(子琏璟)").
func listedAttached(l parsed, name []rune) bool {
	for _, list := range append([][]rune{l.main}, l.groups...) {
		if text.IndexRunes(list, name, 0) >= 0 || len(name) >= 2 && text.IndexRunes(list, name[1:], 0) >= 0 {
			return true
		}
	}
	return false
}

func (v *volumeScore) addMissing(run []rune) {
	v.missing = append(v.missing, string(run))
	v.missedNames += max(1, int(math.Round(float64(len(run))/meanNameLength)))
}

// alignment is one subject placed on the main string.
type alignment struct{ subject, q int }

// align places subjects, in order, at increasing non-overlapping offsets of
// main, covering the most characters; it returns the chain in order.
func align(main []rune, subjects []string) []alignment {
	type cand struct{ subject, q, n int }
	var cands []cand
	for i, s := range subjects {
		rs := []rune(s)
		for q := text.IndexRunes(main, rs, 0); q >= 0; q = text.IndexRunes(main, rs, q+1) {
			cands = append(cands, cand{i, q, len(rs)})
		}
	}
	best := make([]int, len(cands))
	prev := make([]int, len(cands))
	top := -1
	for i, c := range cands {
		best[i], prev[i] = c.n, -1
		for j := 0; j < i; j++ {
			b := cands[j]
			if b.subject < c.subject && b.q+b.n <= c.q && best[j]+c.n > best[i] {
				best[i], prev[i] = best[j]+c.n, j
			}
		}
		if top < 0 || best[i] > best[top] {
			top = i
		}
	}
	var out []alignment
	for i := top; i >= 0; i = prev[i] {
		out = append(out, alignment{cands[i].subject, cands[i].q})
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
