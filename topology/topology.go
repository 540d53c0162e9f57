// Package topology declares annalist's streaming graph: every topic with its
// partitions, key, message type and dead-letter topic; the routing table
// from failed verdicts to solvers (routing.go); and what a stage is to the
// graph, a consumer group with the topics it reads and writes. Nothing
// else names a topic.
//
// The list of stages is not here. Each stage is declared once, together
// with how to build its handler, in the stage registry the application
// assembles (internal/wiring/app), because building a handler takes the
// application's services, which this low layer cannot name (it imports
// only schemas). Validate and Render take that list; `annalist topology`,
// the runtime, the pipeline dashboard and the compose check all read it.
package topology

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/annalist-dev/annalist/schemas"
)

// Topic names.
const (
	Documents        = "documents"
	Retractions      = "retractions"
	Chunks           = "chunks"
	Triplets         = "triplets"
	KGUpdates        = "kg-updates"
	Requests         = "requests"
	Drafts           = "drafts"
	Verdicts         = "verdicts"
	RepairEra        = "repairs.era"
	RepairAlias      = "repairs.alias"
	RepairRefConfl   = "repairs.refconflict"
	RepairKnowledge  = "repairs.knowledge"
	RepairRegenerate = "repairs.regenerate"
	RepairOther      = "repairs.other"
	Corrections      = "corrections"
	Reviews          = "reviews"
	Pages            = "pages"
	Discussions      = "discussions"
	Feed             = "feed"
)

// DLTSuffix is appended to a topic's name to name its dead-letter topic.
const DLTSuffix = ".dlt"

// DLT names the dead-letter topic of a topic.
func DLT(topic string) string { return topic + DLTSuffix }

// Topic is one declared topic.
type Topic struct {
	Name       string
	Partitions int
	// Key says what the record key is; all messages with one key stay
	// ordered on one partition.
	Key string
	// Message is the schemas type carried.
	Message string
	// Compacted topics keep the last value per key (cleanup.policy=compact).
	Compacted bool
	Doc       string
}

// Stage is a stage as the graph sees it: one consumer group, named
// "annalist." + Name, reading Reads and writing Writes.
type Stage struct {
	Name   string
	Reads  []string
	Writes []string
	Doc    string
}

// Group is the consumer group of the stage.
func (s Stage) Group() string { return "annalist." + s.Name }

// DLTPartitions is the partition count of every dead-letter topic: dead
// letters are rare and read by people, so order matters more than width.
const DLTPartitions = 1

// Topics lists every topic (dead-letter topics not included; see DLT).
func Topics() []Topic {
	return []Topic{
		{Documents, 4, "doc_id", schemas.TypeDocument, false, "source documents from the producers"},
		{Retractions, 4, "doc_id", schemas.TypeRetraction, false, "retracted and superseded document versions"},
		{Chunks, 8, "doc_id", schemas.TypeChunk, false, "chunks that tile each document"},
		{Triplets, 8, "head entity surface", schemas.TypeTriplet, false, "extracted facts with chunk provenance"},
		{KGUpdates, 4, "entity id", schemas.TypeKGUpdate, false, "entities the KG writer changed"},
		{Requests, 4, "subject", schemas.TypeRequest, false, "page generation requests"},
		{Drafts, 8, "request_id", schemas.TypeDraft, false, "draft sentences, one at a time per request"},
		{Verdicts, 8, "request_id", schemas.TypeVerdict, false, "verifier decisions per draft sentence"},
		{RepairEra, 4, "request_id", schemas.TypeRepair, false, "era / Gregorian date conflicts"},
		{RepairAlias, 4, "request_id", schemas.TypeRepair, false, "wrong or incomplete names"},
		{RepairRefConfl, 4, "request_id", schemas.TypeRepair, false, "references that disagree"},
		{RepairKnowledge, 4, "request_id", schemas.TypeRepair, false, "domain knowledge the references lack"},
		{RepairRegenerate, 4, "request_id", schemas.TypeRepair, false, "facts no reference includes"},
		{RepairOther, 4, "request_id", schemas.TypeRepair, false, "other unsupported facts"},
		{Corrections, 8, "request_id", schemas.TypeCorrection, false, "solver answers"},
		{Reviews, 1, "subject", schemas.TypeReview, false, "items for an expert"},
		{Pages, 4, "subject", schemas.TypePage, true, "published page versions (compacted)"},
		{Discussions, 4, "discussion id", schemas.TypeDiscussion, false, "discussions to summarise: background paragraphs and turns (KGDS)"},
		{Feed, 4, "discussion id", schemas.TypeFeedItem, true, "published discussion summaries (compacted by discussion id)"},
	}
}

// AllTopics lists every topic name including the dead-letter topics,
// in declaration order.
func AllTopics() []string {
	var out []string
	for _, t := range Topics() {
		out = append(out, t.Name, DLT(t.Name))
	}
	return out
}

// Stage names.
const (
	StageChunker   = "chunker"
	StageExtractor = "extractor"
	StageKGWriter  = "kg-writer"
	StageEmbedder  = "embedder"
	StageLinker    = "linker"
	StageRetractor = "retractor"
	StageScheduler = "scheduler"

	StageWriter            = "writer"
	StageVerifier          = "verifier"
	StageRouter            = "router"
	StageSolverEra         = "solver-era"
	StageSolverAlias       = "solver-alias"
	StageSolverRefConflict = "solver-refconflict"
	StageSolverKnowledge   = "solver-knowledge"
	StageSolverRegenerate  = "solver-regenerate"
	StageAssembler         = "assembler"
	StageDiscussions       = "discussions"
	StageFeed              = "feed"
)

// Solver names the solver a solver stage runs ("era" for solver-era).
func Solver(stage string) string { return strings.TrimPrefix(stage, solverPrefix) }

// SolverStage names the stage that runs a solver ("solver-era" for era).
func SolverStage(solver string) string { return solverPrefix + solver }

const solverPrefix = "solver-"

// LookupTopic finds a declared topic by name.
func LookupTopic(name string) (Topic, bool) {
	for _, t := range Topics() {
		if t.Name == name {
			return t, true
		}
	}
	return Topic{}, false
}

// EdgeTopics are the topics the edge publishes to (files, HTTP and the
// CLI through the producers): documents, retractions, generation requests
// and discussions. A stage may write them too (the scheduler asks for
// pages, the discussions stage publishes paragraphs as documents); the
// drawings show the producers feeding them either way, and any topic no
// stage writes.
func EdgeTopics() []string { return []string{Documents, Retractions, Requests, Discussions} }

func fedByProducers(topic string, written map[string]bool) bool {
	return !written[topic] || slices.Contains(EdgeTopics(), topic)
}

// Validate checks the graph of the topics and stages: no topic or stage
// name repeats, every topic has partitions, every stage has a name and
// reads something, and every topic a stage names is declared. A topic no
// stage writes is fed by producers outside the graph.
func Validate(stages []Stage) error {
	seen := map[string]bool{}
	for _, t := range Topics() {
		if seen[t.Name] {
			return fmt.Errorf("topic %q declared twice", t.Name)
		}
		if t.Partitions <= 0 {
			return fmt.Errorf("topic %q: partitions must be positive", t.Name)
		}
		seen[t.Name] = true
	}
	names := map[string]bool{}
	for _, s := range stages {
		if s.Name == "" {
			return fmt.Errorf("a stage reading %v has no name", s.Reads)
		}
		if names[s.Name] {
			return fmt.Errorf("stage %q declared twice", s.Name)
		}
		names[s.Name] = true
		if len(s.Reads) == 0 {
			return fmt.Errorf("stage %q reads nothing", s.Name)
		}
		for _, n := range append(append([]string{}, s.Reads...), s.Writes...) {
			if !seen[n] {
				return fmt.Errorf("stage %q names undeclared topic %q", s.Name, n)
			}
		}
	}
	return nil
}

// Render prints the graph as text: topics, then stages with their groups,
// then the edges between them.
func Render(stages []Stage) string {
	var b strings.Builder
	b.WriteString("topics (partitions, key, message; each has a <topic>.dlt with 1 partition)\n")
	for _, t := range Topics() {
		extra := ""
		if t.Compacted {
			extra = ", compacted"
		}
		fmt.Fprintf(&b, "  %-20s %2d  key=%-20s %s%s\n", t.Name, t.Partitions, t.Key, t.Message, extra)
	}
	b.WriteString("\nstages (consumer group: reads -> writes)\n")
	for _, s := range stages {
		writes := "—"
		if len(s.Writes) > 0 {
			writes = strings.Join(s.Writes, ", ")
		}
		fmt.Fprintf(&b, "  %-18s %-29s %s -> %s\n", s.Name, s.Group(), strings.Join(s.Reads, ", "), writes)
	}
	b.WriteString("\ngraph\n")
	producers := map[string][]string{}
	for _, s := range stages {
		for _, w := range s.Writes {
			producers[w] = append(producers[w], s.Name)
		}
	}
	var edges []string
	written := map[string]bool{}
	for w := range producers {
		written[w] = true
	}
	for _, s := range stages {
		for _, r := range s.Reads {
			from := producers[r]
			if fedByProducers(r, written) {
				from = append([]string{"producers"}, from...)
			}
			for _, f := range from {
				edges = append(edges, fmt.Sprintf("  %s --[%s]--> %s", f, r, s.Name))
			}
		}
	}
	sort.Strings(edges)
	b.WriteString(strings.Join(edges, "\n"))
	b.WriteString("\n")
	return b.String()
}

// Mermaid draws the graph as a Mermaid flowchart: topics as rounded
// nodes, stages as boxes, an arrow from each topic to the stages that read
// it and from each stage to the topics it writes; the producers feed the
// edge's topics (EdgeTopics) and any topic no stage writes. ARCHITECTURE.md holds this drawing of the
// default stages, and a test keeps it equal to what this function draws.
func Mermaid(stages []Stage) string {
	id := func(kind, name string) string {
		return kind + "_" + strings.NewReplacer("-", "_", ".", "_").Replace(name)
	}
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	b.WriteString("  producers[/producers: files, HTTP, JSONL/]\n")
	written := map[string]bool{}
	used := map[string]bool{}
	for _, s := range stages {
		for _, w := range s.Writes {
			written[w] = true
			used[w] = true
		}
		for _, r := range s.Reads {
			used[r] = true
		}
	}
	for _, t := range Topics() {
		if used[t.Name] {
			fmt.Fprintf(&b, "  %s([%s])\n", id("t", t.Name), t.Name)
		}
	}
	for _, s := range stages {
		fmt.Fprintf(&b, "  %s[%s]\n", id("s", s.Name), s.Name)
	}
	for _, t := range Topics() {
		if used[t.Name] && fedByProducers(t.Name, written) {
			fmt.Fprintf(&b, "  producers --> %s\n", id("t", t.Name))
		}
	}
	for _, s := range stages {
		for _, r := range s.Reads {
			fmt.Fprintf(&b, "  %s --> %s\n", id("t", r), id("s", s.Name))
		}
		for _, w := range s.Writes {
			fmt.Fprintf(&b, "  %s --> %s\n", id("s", s.Name), id("t", w))
		}
	}
	return b.String()
}
