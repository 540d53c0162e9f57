package cli

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// BenchRegenerate is the JSON of `annalist bench regenerate`.
type BenchRegenerate struct {
	// Kind is the kind of the pages (biography, topic_page).
	Kind    string `json:"kind"`
	Pages   int    `json:"pages"`
	Updates int    `json:"updates"`
	// Regenerated counts the page versions the updates caused.
	Regenerated int `json:"regenerated"`
	// DocToPage is from a document's (or a retraction's) publication to
	// the first page version that names it among its trigger documents.
	DocToPageP50Ms float64 `json:"doc_to_page_p50_ms"`
	DocToPageP95Ms float64 `json:"doc_to_page_p95_ms"`
	DocToPageMaxMs float64 `json:"doc_to_page_max_ms"`
	// PagesPerSecond is regenerated versions over the time the rounds
	// took, each from its first publication to its last page version.
	PagesPerSecond     float64 `json:"pages_per_second"`
	SentencesKept      int64   `json:"sentences_kept"`
	SentencesRewritten int64   `json:"sentences_rewritten"`
	SentencesAdded     int64   `json:"sentences_added"`
	SentencesRemoved   int64   `json:"sentences_removed"`
	// KeptShare is kept / (kept + rewritten).
	KeptShare float64 `json:"kept_share"`
	// StaleCitations counts, once the scheduler has caught up, the
	// citations of current pages that point into a retracted document.
	StaleCitations int `json:"stale_citations"`
	// Untouched counts the pages without an update that kept their
	// version.
	Untouched int `json:"untouched"`
	// Missed counts the updates whose page did not follow within the
	// timeout (those subjects sit out the later rounds): no version named
	// the document among its triggers, or the version that did left the
	// document's chunks uncited (a new or superseding document) or still
	// cited them (a retraction). Uncited counts the second case.
	Missed   int     `json:"missed"`
	Uncited  int     `json:"uncited"`
	MissRate float64 `json:"missed_rate"`
	// MissedByNameLength and SubjectsByNameLength count, by the number of
	// characters of the name the note names, the updates missed and the
	// subjects updated.
	MissedByNameLength   map[int]int `json:"missed_by_name_length"`
	SubjectsByNameLength map[int]int `json:"subjects_by_name_length"`
	// MissedUpdates are the missed updates themselves: the round, the
	// person the note names and the note.
	MissedUpdates []MissedUpdate `json:"missed_updates"`
	// Notes is how the notes were written: plain (the name and a new
	// statement, in several phrasings) or context (with the examination
	// year and native place the graph holds, for comparison).
	Notes string `json:"notes"`
	// Subjects are the subjects the updates were about.
	Subjects []string `json:"subjects"`
	// Rounds are the phases: new evidence, supersession, retraction.
	Rounds        []BenchRound `json:"rounds"`
	Processes     int          `json:"processes"`
	IngestSeconds float64      `json:"ingest_seconds"`
	Seconds       float64      `json:"seconds"`
	Engine        string       `json:"engine"`
	CPUs          int          `json:"cpus"`
}

// BenchRound is one phase of `bench regenerate`.
type BenchRound struct {
	Reason      string  `json:"reason"`
	Updates     int     `json:"updates"`
	Regenerated int     `json:"regenerated"`
	P50Ms       float64 `json:"p50_ms"`
	P95Ms       float64 `json:"p95_ms"`
	Seconds     float64 `json:"seconds"`
}

// regenUpdate is one document the bench publishes or retracts about a
// subject, and when the page caught up with it.
type regenUpdate struct {
	// subject is the page's subject; person the one the note names
	// (the subject itself on a biography, a native of the place on a
	// topic page).
	subject string
	person  string
	source  string
	date    string
	place   string
	docID   string
	// previous is the version docID superseded.
	previous string
	sent     time.Time
	ms       float64
	version  int
	done     bool
	// missed is set when the page did not follow within the timeout;
	// uncited when it followed without citing the document (or, for a
	// retraction, still citing it).
	missed, uncited bool
	// phrasing picks the plain note's wording; note is the text last
	// sent.
	phrasing int
	note     string
}

// livingScenario drives the living-pages rounds shared by `bench
// regenerate` and its integration test: pages for subjects, then for the
// first k of them a new document each, a new version of that document
// (same source), and its retraction, each round waiting until every
// affected page has a version naming the round's document.
type livingScenario struct {
	a       *app.App
	tenant  string
	log     zerolog.Logger
	timeout time.Duration
	// afterRound, when set, is called once a round's pages followed (the
	// integration test checks them there).
	afterRound func(reason string, ups []*regenUpdate)
	// kind is the kind of the pages; empty is biography.
	kind string
	// notes is NotesPlain (the default) or NotesContext.
	notes string
	// seed picks the plain notes' wordings.
	seed uint64
}

// How `bench regenerate` writes its notes (--notes).
const (
	// NotesPlain: the person's name and a new statement about him, in one
	// of several wordings, the name wherever the wording puts it; nothing
	// else a reader or the linker could tell him by.
	NotesPlain = "plain"
	// NotesContext: the notes of earlier rounds, which carry the
	// examination year and native place the graph holds.
	NotesContext = "context"
)

// pageKind is the scenario's page kind.
func (sc livingScenario) pageKind() string {
	if sc.kind == "" {
		return schemas.KindBiography
	}
	return sc.kind
}

// MissedUpdate is one update whose page did not follow.
type MissedUpdate struct {
	Round   string `json:"round"`
	Subject string `json:"subject"`
	Named   string `json:"named"`
	Note    string `json:"note,omitempty"`
	Uncited bool   `json:"uncited,omitempty"`
}

// named is the person the update note names.
func (u *regenUpdate) named() string {
	if u.person != "" {
		return u.person
	}
	return u.subject
}

// plainNotes are the wordings of plain notes: a statement the person's
// entry does not make, with his name (%[1]s) where a writer would put it.
// A superseding version takes another wording.
var plainNotes = []string{
	"%[1]s晚年归里，筑室山中，聚书数千卷，讲学其间，从游者甚众。",
	"乡人言%[1]s少时家贫，借书手抄，寒暑不辍，闻者异之。",
	"%[1]s尝游名山，与方外士论道，归而作《游山记》一卷。",
	"时人称%[1]s廉介，居官所得俸禄，悉以周贫乏，家无余财。",
	"%[1]s好为诗，其诗清婉可诵，今存者数十首。",
	"或谓%[1]s性刚直，遇事敢言，同列多惮之。",
	"后人过其故居，犹能道%[1]s遗事，为立祠祀之。",
	"%[1]s家居时，岁饥，出粟赈乡里，全活者千余人。",
}

// phrasing picks a subject's wording of plain notes, seeded.
func phrasing(seed uint64, name string) int {
	h := fnv.New64a()
	h.Write([]byte(name))
	return int((h.Sum64() ^ seed) % uint64(len(plainNotes)))
}

// plainNote is a plain note about name in wording k of plainNotes.
func plainNote(name string, k int) string {
	return fmt.Sprintf(plainNotes[k%len(plainNotes)], name) + "\n"
}

// noteText is the note of an update in round (0 new, 1 superseding).
func (sc livingScenario) noteText(u *regenUpdate, round int) string {
	if sc.notes == NotesContext {
		return updateText(u.named(), u.date, u.place, round)
	}
	return plainNote(u.named(), u.phrasing+round*(len(plainNotes)/2))
}

// updateText is the note of `--notes context`: a note from another
// collection that names the subject in passing and tells something the
// subject's entry does not (a retreat and a book), with the context a
// reader, and the entity linker, could tell whom it names by: a date in
// the subject's life (his examination year) and his native place. The
// superseding version tells it otherwise.
func updateText(subject, date, place string, round int) string {
	names := []string{"松庵", "竹溪"}
	books := []string{"十卷", "八卷"}
	n := names[round%len(names)]
	lead := ""
	if date != "" {
		lead = date + "，"
	}
	return fmt.Sprintf("%s%s致仕归%s，筑室%s，著《%s集》%s，学者称%s先生。\n", lead, subject, place, n, n, books[round%len(books)], n)
}

// noteContext reads from the graph what an update note about subject
// says of him: his examination year and native place. ok is false when
// the graph holds no native place (the note would not say whom it means).
func noteContext(ctx context.Context, a *app.App, tenant, subject string) (date, place string, ok bool, err error) {
	ids, err := a.KG.Resolve(ctx, tenant, subject)
	if err != nil || len(ids) != 1 {
		return "", "", false, err
	}
	e, err := a.KG.Entity(ctx, tenant, ids[0])
	if err != nil {
		return "", "", false, err
	}
	for _, ed := range e.Edges {
		switch {
		case ed.HeadID != e.ID:
		case ed.Relation == schemas.RelNativePlace && place == "":
			place = ed.Tail
		case ed.Relation == schemas.RelJinshi && date == "" && ed.Qualifiers["approx"] == "":
			date = ed.Tail
		}
	}
	return date, place, place != "", nil
}

// round publishes the documents (or retractions) of one phase and waits
// for the pages.
func (sc livingScenario) round(ctx context.Context, reason string, ups []*regenUpdate, base map[string]int) (BenchRound, error) {
	start := time.Now()
	for _, u := range ups {
		u.sent = time.Now()
		switch reason {
		case schemas.ReasonRetracted:
			if _, err := sc.a.Retract(ctx, sc.tenant, u.docID); err != nil {
				return BenchRound{}, fmt.Errorf("retract %s: %w", u.docID, err)
			}
		default:
			round := 0
			if reason == schemas.ReasonSuperseded {
				round = 1
			}
			u.note = sc.noteText(u, round)
			it, err := producers.NewItem(schemas.Document{Source: u.source, Title: "notes on " + u.named(),
				Collection: "notes", Text: u.note})
			if err != nil {
				return BenchRound{}, err
			}
			if err := sc.a.SendVersions(ctx, sc.tenant, []producers.Item{it}); err != nil {
				return BenchRound{}, fmt.Errorf("publish the update of %s: %w", u.named(), err)
			}
			u.previous, u.docID = u.docID, it.Doc.DocID
		}
		u.done = false
	}
	if err := sc.wait(ctx, reason, ups, base); err != nil {
		return BenchRound{}, err
	}
	if sc.afterRound != nil {
		sc.afterRound(reason, ups)
	}
	// The round lasts until its last page followed: the wait for a
	// missed one is not regeneration time.
	var lat []float64
	var last time.Time
	for _, u := range ups {
		if !u.missed {
			lat = append(lat, u.ms)
			if end := u.sent.Add(time.Duration(u.ms * float64(time.Millisecond))); end.After(last) {
				last = end
			}
		}
	}
	slices.Sort(lat)
	r := BenchRound{Reason: reason, Updates: len(ups), Regenerated: len(lat),
		P50Ms: quantile(lat, 0.5), P95Ms: quantile(lat, 0.95)}
	if !last.IsZero() {
		r.Seconds = last.Sub(start).Seconds()
	}
	return r, nil
}

// wait polls the page store until every update's page has a version
// naming the update's document, recording the latency and the version.
// It polls the pages' version counts (one round trip for all) and reads
// a page only when its count moved, so the bench's own polling does not
// take the machine from the stages it measures.
func (sc livingScenario) wait(ctx context.Context, reason string, ups []*regenUpdate, base map[string]int) error {
	deadline := time.Now().Add(sc.timeout)
	seen := map[string]int{}
	for s, v := range base {
		seen[s] = v
	}
	for {
		var pending []*regenUpdate
		var subjects []string
		for _, u := range ups {
			if !u.done {
				pending = append(pending, u)
				subjects = append(subjects, u.subject)
			}
		}
		if len(pending) == 0 {
			return nil
		}
		counts, err := sc.a.Pages.VersionCounts(ctx, sc.tenant, sc.pageKind(), subjects)
		if err != nil {
			return err
		}
		for i, u := range pending {
			// Every version after the last one read: a version for the
			// document may be followed by others in the same poll.
			for v := seen[u.subject] + 1; v <= counts[i] && !u.done; v++ {
				p, err := sc.a.Pages.VersionOf(ctx, sc.tenant, sc.pageKind(), u.subject, v)
				if err != nil && !errors.Is(err, pages.ErrNotFound) {
					return err
				}
				seen[u.subject] = v
				if err != nil || v <= base[u.subject] || !slices.Contains(p.TriggerDocIDs, u.docID) {
					continue
				}
				// The page follows once a version for the document cites
				// it (or, after a retraction, no longer does); a version
				// that did not may be followed by one that does.
				if cites(p, u.docID) != (reason == schemas.ReasonRetracted) {
					u.done, u.version, u.uncited = true, p.Version, false
					u.ms = float64(time.Since(u.sent).Microseconds()) / 1000
					base[u.subject] = p.Version
				} else {
					u.uncited = true
				}
			}
		}
		if time.Now().After(deadline) {
			// Missed: the update never reached its page (the linker did
			// not take the note to name the subject, say, or the page
			// left it out). Counted, and left out of the rounds after.
			for _, u := range ups {
				if !u.done {
					u.missed = true
					sc.log.Warn().Str("subject", u.subject).Str("doc_id", u.docID).Bool("uncited", u.uncited).
						Dur("waited", sc.timeout).Msg("page did not follow its update")
				}
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// cites reports whether a page cites a chunk of document doc (a chunk id
// is its document's id and a sequence number).
func cites(p schemas.Page, doc string) bool {
	return slices.ContainsFunc(p.Sentences, func(st schemas.PageSentence) bool {
		return slices.ContainsFunc(st.Citations, func(c schemas.Citation) bool { return strings.HasPrefix(c.ChunkID, doc+"-") })
	})
}

// staleCitations counts the citations of the subjects' current pages
// that point into one of the retracted documents (a chunk id is its
// document's id and a sequence number).
func (sc livingScenario) staleCitations(ctx context.Context, subjects []string, retracted []string) (int, error) {
	n := 0
	for _, s := range subjects {
		p, err := sc.a.Pages.CurrentOf(ctx, sc.tenant, sc.pageKind(), s)
		if err != nil {
			return 0, err
		}
		for _, st := range p.Sentences {
			for _, c := range st.Citations {
				for _, d := range retracted {
					if strings.HasPrefix(c.ChunkID, d+"-") {
						n++
					}
				}
			}
		}
	}
	return n, nil
}

// benchRegenerateKinds is benchRegenerate for each kind in turn on the
// same corpus: biographies of persons with an entry, or topic pages of
// places with enough edges, whose updates are notes naming a native of
// the place. One kind prints one BenchRegenerate; several a JSON array.
func benchRegenerateKinds(ctx context.Context, io IO, s service, dir string, kinds []string, n, m, procs int, keep bool, seed uint64, notes string) error {
	a, log, ing, subjects, cleanup, err := benchCorpus(ctx, io, s, "bench regenerate", dir, n, keep, seed)
	if err != nil {
		return err
	}
	defer cleanup()
	stageCtx, stop := context.WithCancel(ctx)
	defer stop()
	stages := app.AllStages()
	var children []*exec.Cmd
	if procs > 0 {
		stages = app.IngestStages()
		// The consumer processes join this one: they read its vector
		// index (a topic's free-text seeds) over its API.
		unserve, err := serveJoiners(stageCtx, a, log, stages)
		if err != nil {
			return err
		}
		defer func() {
			stop()
			unserve()
		}()
		if children, err = startConsumers(stageCtx, io, a.Config.DataDir, procs, string(app.PartGenerate)); err != nil {
			return err
		}
		defer stopConsumers(children)
	}
	stageErr := make(chan error, 1)
	go func() { stageErr <- a.RunStages(stageCtx, stages, nil) }()
	var outs []BenchRegenerate
	for _, kind := range kinds {
		subs := subjects
		if kind == schemas.KindTopicPage {
			if subs, err = benchTopics(ctx, a, s.tenant, n, seed, schemas.EntityPlace); err != nil {
				break
			}
		}
		var out BenchRegenerate
		out, err = runLiving(ctx, livingScenario{a: a, tenant: s.tenant, log: log, timeout: time.Minute, kind: kind,
			notes: notes, seed: seed}, subs, m)
		if err != nil {
			break
		}
		out.Processes, out.IngestSeconds, out.CPUs, out.Engine = procs, ing.Seconds, runtime.NumCPU(), "offline"
		if a.Chat != nil {
			out.Engine = "llm"
		}
		outs = append(outs, out)
	}
	stop()
	if serr := <-stageErr; serr != nil && err == nil {
		err = serr
	}
	if err != nil {
		return err
	}
	if s.json {
		if len(outs) == 1 {
			return writeJSON(io.Stdout, outs[0])
		}
		return writeJSON(io.Stdout, outs)
	}
	for _, out := range outs {
		fmt.Fprintf(io.Stdout, "%s: %d pages, %d updates → %d regenerated: doc → page p50 %.0f ms, p95 %.0f ms; %.1f pages/s\n",
			out.Kind, out.Pages, out.Updates, out.Regenerated, out.DocToPageP50Ms, out.DocToPageP95Ms, out.PagesPerSecond)
		fmt.Fprintf(io.Stdout, "sentences kept %d, rewritten %d, added %d, removed %d (kept share %.2f); stale citations %d; untouched pages %d\n",
			out.SentencesKept, out.SentencesRewritten, out.SentencesAdded, out.SentencesRemoved, out.KeptShare,
			out.StaleCitations, out.Untouched)
		fmt.Fprintf(io.Stdout, "%s notes: missed %d of %d updates (%d followed uncited); by name length: missed %v of subjects %v\n",
			out.Notes, out.Missed, out.Updates, out.Uncited, out.MissedByNameLength, out.SubjectsByNameLength)
	}
	return nil
}

// topicNative is a native of the place a topic names, for an update note
// to name: the first, by name, of the persons whose native place edge
// leads to the place and whose name the graph resolves to them alone;
// "" when the topic is not a place or has none.
func topicNative(ctx context.Context, a *app.App, tenant, topic string) (string, error) {
	ids, err := a.KG.Resolve(ctx, tenant, topic)
	if err != nil {
		return "", err
	}
	var names []string
	for _, id := range ids {
		e, err := a.KG.Entity(ctx, tenant, id)
		if err != nil {
			return "", err
		}
		if e.Type != schemas.EntityPlace {
			continue
		}
		for _, ed := range e.Incoming {
			if ed.Relation == schemas.RelNativePlace && ed.Head != "" {
				names = append(names, ed.Head)
			}
		}
	}
	slices.Sort(names)
	for _, n := range slices.Compact(names) {
		ps, err := a.KG.Resolve(ctx, tenant, n)
		if err != nil {
			return "", err
		}
		if len(ps) == 1 {
			return n, nil
		}
	}
	return "", nil
}

// runLiving publishes a page per subject, then runs the three rounds on
// the first k = ceil(m/3) subjects (at most half of them, so that the
// others show that a page without a changed dependency keeps its
// version).
func runLiving(ctx context.Context, sc livingScenario, subjects []string, m int) (BenchRegenerate, error) {
	out := BenchRegenerate{Kind: sc.pageKind()}
	// The scheduler reads kg-updates from their beginning when it first
	// runs: the pages are published once it has caught up with the
	// ingestion's, so they are not regenerated for changes older than
	// they are.
	if err := sc.a.WaitIdle(ctx, app.AllStages()); err != nil {
		return out, err
	}
	var reqs []schemas.Request
	for _, s := range subjects {
		reqs = append(reqs, schemas.Request{Kind: sc.pageKind(), Subject: s})
	}
	res, err := sc.a.Generate(ctx, sc.tenant, false, true, reqs)
	if err != nil {
		return out, err
	}
	base := map[string]int{}
	var withPages []string
	for _, r := range res {
		if r.Page != nil {
			base[r.Request.Subject] = r.Page.Version
			withPages = append(withPages, r.Request.Subject)
		}
	}
	out.Pages = len(withPages)
	// The updated subjects: the first of the pages' subjects (drawn at
	// random from the persons with an entry), at most half the pages;
	// with context notes, only those the graph knows a native place of.
	notes := sc.notes
	if notes == "" {
		notes = NotesPlain
	}
	out.Notes = notes
	var targets []*regenUpdate
	for _, s := range withPages {
		if len(targets) == min((m+2)/3, len(withPages)/2) {
			break
		}
		person := s
		if sc.pageKind() == schemas.KindTopicPage {
			n, err := topicNative(ctx, sc.a, sc.tenant, s)
			if err != nil {
				return out, err
			}
			if person = n; person == "" {
				continue
			}
		}
		u := &regenUpdate{subject: s, source: "notes/" + s + ".txt", phrasing: phrasing(sc.seed, person)}
		if person != s {
			u.person, u.source = person, "notes/"+s+"/"+person+".txt"
		}
		if notes == NotesContext {
			date, place, ok, err := noteContext(ctx, sc.a, sc.tenant, person)
			if err != nil {
				return out, err
			}
			if !ok {
				continue
			}
			u.date, u.place = date, place
		}
		targets = append(targets, u)
	}
	k := len(targets)
	out.MissedByNameLength, out.SubjectsByNameLength = map[int]int{}, map[int]int{}
	for _, u := range targets {
		out.Subjects = append(out.Subjects, u.subject)
		out.SubjectsByNameLength[utf8.RuneCountInString(u.named())]++
	}
	if k == 0 {
		return out, fmt.Errorf("%d pages published, none of a subject with a known native place (or, for a topic, a native): too few for the updates", len(withPages))
	}
	before := map[string]int{}
	for s, v := range base {
		before[s] = v
	}
	ups := targets
	var lat []float64
	var retracted []string
	for _, reason := range []string{schemas.ReasonNewEvidence, schemas.ReasonSuperseded, schemas.ReasonRetracted} {
		if reason == schemas.ReasonSuperseded {
			for _, u := range ups {
				retracted = append(retracted, u.docID)
			}
		}
		r, err := sc.round(ctx, reason, ups, base)
		if err != nil {
			return out, fmt.Errorf("round %s: %w", reason, err)
		}
		var kept []*regenUpdate
		for _, u := range ups {
			if u.missed {
				out.Missed++
				out.MissedByNameLength[utf8.RuneCountInString(u.named())]++
				out.MissedUpdates = append(out.MissedUpdates, MissedUpdate{Round: reason, Subject: u.subject, Named: u.named(),
					Note: strings.TrimSpace(u.note), Uncited: u.uncited})
				if u.uncited {
					out.Uncited++
				}
				continue
			}
			kept = append(kept, u)
		}
		sc.log.Info().Str("round", reason).Int("updates", r.Updates).Float64("p95_ms", r.P95Ms).Msg("pages followed")
		out.Rounds = append(out.Rounds, r)
		out.Updates += r.Updates
		for _, u := range kept {
			lat = append(lat, u.ms)
		}
		if reason == schemas.ReasonRetracted {
			for _, u := range kept {
				retracted = append(retracted, u.docID)
			}
		}
		ups = kept
		if len(ups) == 0 {
			break
		}
	}
	for _, r := range out.Rounds {
		out.Seconds += r.Seconds
	}
	slices.Sort(lat)
	if len(lat) > 0 {
		out.DocToPageP50Ms, out.DocToPageP95Ms, out.DocToPageMaxMs = quantile(lat, 0.5), quantile(lat, 0.95), lat[len(lat)-1]
	}
	for _, s := range withPages {
		vs, err := sc.a.Pages.VersionsOf(ctx, sc.tenant, sc.pageKind(), s)
		if err != nil {
			return out, err
		}
		for _, v := range vs {
			if v.Version <= before[s] {
				continue
			}
			p, err := sc.a.Pages.VersionOf(ctx, sc.tenant, sc.pageKind(), s, v.Version)
			if err != nil {
				return out, err
			}
			out.Regenerated++
			out.SentencesKept += p.Stats["kept"]
			out.SentencesRewritten += p.Stats["rewritten"]
			out.SentencesAdded += p.Stats["added"]
			out.SentencesRemoved += p.Stats["removed"]
		}
		if base[s] == before[s] {
			out.Untouched++
		}
	}
	if d := out.SentencesKept + out.SentencesRewritten; d > 0 {
		out.KeptShare = float64(out.SentencesKept) / float64(d)
	}
	if out.Seconds > 0 {
		out.PagesPerSecond = float64(out.Regenerated) / out.Seconds
	}
	if out.Updates > 0 {
		out.MissRate = float64(out.Missed) / float64(out.Updates)
	}
	if out.StaleCitations, err = sc.staleCitations(ctx, withPages, retracted); err != nil {
		return out, err
	}
	return out, nil
}

// serveJoiners serves this process's API on a free loopback port until
// ctx ends, for the `annalist consume` processes that join it (they
// reach its vector index through it); stages are the stages this process
// runs. The returned function waits for the server to stop.
func serveJoiners(ctx context.Context, a *app.App, log zerolog.Logger, stages []string) (func(), error) {
	l, err := listenHTTP("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ready, served := make(chan struct{}), make(chan error, 1)
	go func() {
		served <- serveHTTP(ctx, l, a, log, stages, func(string) { close(ready) })
	}()
	select {
	case <-ready:
	case err := <-served:
		return nil, fmt.Errorf("serve the API to the consumer processes: %w", err)
	}
	return func() { <-served }, nil
}

// startConsumers starts procs `annalist consume STAGE...` processes on
// this process's data directory (dataDir, the bench's fresh one); they
// join its broker, Redis and vector index.
func startConsumers(ctx context.Context, io IO, dataDir string, procs int, stages ...string) ([]*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the annalist binary: %w", err)
	}
	var cmds []*exec.Cmd
	for i := 0; i < procs; i++ {
		c := exec.CommandContext(ctx, exe, append(append([]string{"consume"}, stages...), "--data-dir", dataDir)...)
		c.Stdout, c.Stderr = io.Stderr, io.Stderr
		c.Cancel = func() error { return c.Process.Signal(os.Interrupt) }
		c.WaitDelay = 30 * time.Second
		if err := c.Start(); err != nil {
			stopConsumers(cmds)
			return nil, fmt.Errorf("start consumer process %d: %w", i+1, err)
		}
		cmds = append(cmds, c)
	}
	return cmds, nil
}

// stopConsumers asks the consumer processes to drain and waits for them.
func stopConsumers(cmds []*exec.Cmd) {
	var wg sync.WaitGroup
	for _, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.Process.Signal(os.Interrupt)
			_ = c.Wait()
		}()
	}
	wg.Wait()
}
