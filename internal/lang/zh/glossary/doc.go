// Package glossary is the domain-knowledge collection the knowledge solver
// consults (Alstorian §2.3.2, Knowledge-lack Solver): examination ranks,
// offices and old place names, ingested like any other collection.
//
// # Format
//
// A glossary document (collection "glossary", chunker profile "glossary")
// is plain text, one entry per line:
//
//	term[、other name…]｜category｜definition
//
// The separator is the full-width bar ｜ (an ASCII | is accepted too). The
// first name is the term; further names, separated by 、, are other ways
// the sources write the same thing (状元、进士第一、廷试第一). The category
// is a lower-case word: rank (examination ranks and degrees), office, or
// place (old place names). Lines that start with # and blank lines are
// not entries.
//
// # Through the pipeline
//
// The chunker cuts one chunk per entry line, so a chunk holds one
// definition. The extractor turns each entry into triplets whose head is
// the term with head type "term": (term, category, <category>) with the
// definition as evidence, and (term, alias, <other name>) for each other
// name. The knowledge graph keys such a node as term:<term> and makes
// every other name an alias of it, so a lookup by any name finds the
// entry's chunk. Store answers Lookup from the graph and the chunk store.
//
// glossary.txt is a small glossary written for the project (Ming
// examination ranks, offices and a few place names); Document returns it
// for ingestion.
package glossary
