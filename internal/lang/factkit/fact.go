package factkit

import "github.com/annalist-dev/annalist/schemas"

// MethodRegex is the method recorded on the facts of hand-made patterns.
const MethodRegex = "regex"

// Fact is a triplet before it is tied to its chunk: spans are byte offsets
// into the chunk text.
type Fact struct {
	Head, HeadType string
	Relation       string
	Tail, TailType string
	Qualifiers     map[string]string
	Start, End     int
	Method         string
	Pattern        string
	Confidence     float64
}

// Key identifies what the fact states: its head, relation and tail.
func (f Fact) Key() string { return f.Head + "\x00" + f.Relation + "\x00" + f.Tail }

// Part is a stretch of a chunk's text, byte offsets Start to End, about
// one person: Head, or no one when Head is empty.
type Part struct {
	Start, End int
	Head       string
}

// Reading is what a fact reader finds in a chunk.
type Reading struct {
	// Facts are the facts the reader's rules state, in no order.
	Facts []Fact
	// Parts divide the text by the person each part is about, in order
	// of the text; nil when the reader does not divide it (all of it is
	// about the chunk's person, as in English prose).
	Parts []Part
	// Known, when the reader offers it, returns the facts of the persons
	// that open sentences of the chunk outside the parts its own people
	// head, for the names known accepts (the persons the knowledge graph
	// knows): an archive book's "叶向高，万历十一年进士". Nil otherwise.
	Known func(known func(name string) bool) []Fact
}

// EntryPerson is the person chunk c is about when it lies in an entry:
// the entry's person, else the subject the chunker found; "" for a chunk
// outside entries.
func EntryPerson(c schemas.Chunk) string {
	if c.Entry == "" {
		return c.Subject
	}
	return c.Entry
}

// OpensEntry reports whether c is the first chunk of its entry, the one
// that states the person's names and origin.
func OpensEntry(c schemas.Chunk) bool {
	return c.Subject != "" || (c.Entry != "" && (c.EntryChunk == "" || c.EntryChunk == c.ChunkID))
}
