// Package topology declares annalist's streaming graph in one place: every
// topic with its partitions, key, message type and dead-letter topic, and
// every stage with its consumer group and the topics it reads and writes.
// The runtime, the embedded mode, docker-compose and `annalist topology`
// all read this declaration; nothing else names a topic.
package topology

import (
	"fmt"
	"sort"
	"strings"

	"github.com/annalist-dev/annalist/schemas"
)

// Topic names.
const (
	Documents        = "documents"
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

// Stage is one consumer group.
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

	StageWriter            = "writer"
	StageVerifier          = "verifier"
	StageRouter            = "router"
	StageSolverEra         = "solver-era"
	StageSolverAlias       = "solver-alias"
	StageSolverRefConflict = "solver-refconflict"
	StageSolverKnowledge   = "solver-knowledge"
	StageSolverRegenerate  = "solver-regenerate"
	StageAssembler         = "assembler"
)

// Solver names the solver a solver stage runs ("era" for solver-era).
func Solver(stage string) string { return strings.TrimPrefix(stage, "solver-") }

// IngestStages are the stages of the ingestion half, in graph order.
func IngestStages() []string {
	return []string{StageChunker, StageExtractor, StageKGWriter, StageEmbedder}
}

// GenerateStages are the stages of the generation half, in graph order.
func GenerateStages() []string {
	return []string{StageWriter, StageVerifier, StageRouter, StageSolverEra, StageSolverAlias,
		StageSolverRefConflict, StageSolverKnowledge, StageSolverRegenerate, StageAssembler}
}

// Stages lists every stage.
func Stages() []Stage {
	return []Stage{
		{StageChunker, []string{Documents}, []string{Chunks},
			"pattern-enhanced chunking by corpus profile"},
		{StageExtractor, []string{Chunks}, []string{Triplets},
			"regex-driven relation extraction, LLM regex synthesis, plan B"},
		{StageKGWriter, []string{Triplets}, []string{KGUpdates},
			"idempotent upsert into the Redis knowledge graph"},
		{StageEmbedder, []string{Chunks}, nil,
			"chunk embeddings into the vector store"},
		{StageWriter, []string{Requests, Verdicts, Corrections}, []string{Drafts},
			"retrieval into agent memory; drafts sentence k+1 once sentence k is final"},
		{StageVerifier, []string{Drafts}, []string{Verdicts},
			"atomic facts checked against the references: supported / not-included / not-supported"},
		{StageRouter, []string{Verdicts}, []string{RepairEra, RepairAlias, RepairRefConfl, RepairKnowledge, RepairRegenerate, RepairOther},
			"routes failed verdicts to one solver by error type"},
		{StageSolverEra, []string{RepairEra}, []string{Corrections},
			"era names <-> Gregorian years from the shipped era table"},
		{StageSolverAlias, []string{RepairAlias}, []string{Corrections},
			"names the subject from the KG alias set"},
		{StageSolverRefConflict, []string{RepairRefConfl}, []string{Corrections, Reviews},
			"states a reference disagreement with both citations; opens a review"},
		{StageSolverKnowledge, []string{RepairKnowledge}, []string{Corrections},
			"glossary lookups for offices, ranks and old place names"},
		{StageSolverRegenerate, []string{RepairRegenerate, RepairOther}, []string{Corrections},
			"rewrites from the supporting references; drops after bounded attempts"},
		{StageAssembler, []string{Drafts}, []string{Pages},
			"publishes page versions with citations and the chunk -> page index"},
	}
}

// LookupTopic finds a declared topic by name.
func LookupTopic(name string) (Topic, bool) {
	for _, t := range Topics() {
		if t.Name == name {
			return t, true
		}
	}
	return Topic{}, false
}

// LookupStage finds a declared stage by name.
func LookupStage(name string) (Stage, error) {
	var names []string
	for _, s := range Stages() {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return Stage{}, fmt.Errorf("unknown stage %q (stages: %s)", name, strings.Join(names, ", "))
}

// Validate checks the declaration itself: every topic a stage names is
// declared, no name repeats, and every topic is written by a stage or by a
// producer outside the graph.
func Validate() error {
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
	stages := map[string]bool{}
	for _, s := range Stages() {
		if stages[s.Name] {
			return fmt.Errorf("stage %q declared twice", s.Name)
		}
		stages[s.Name] = true
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

// Render prints the graph as text: topics, then stages with their groups
// and edges.
func Render() string {
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
	for _, s := range Stages() {
		writes := "—"
		if len(s.Writes) > 0 {
			writes = strings.Join(s.Writes, ", ")
		}
		fmt.Fprintf(&b, "  %-18s %-29s %s -> %s\n", s.Name, s.Group(), strings.Join(s.Reads, ", "), writes)
	}
	b.WriteString("\ngraph\n")
	producers := map[string][]string{}
	for _, s := range Stages() {
		for _, w := range s.Writes {
			producers[w] = append(producers[w], s.Name)
		}
	}
	var edges []string
	for _, s := range Stages() {
		for _, r := range s.Reads {
			from := producers[r]
			if len(from) == 0 {
				from = []string{"producers"}
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
