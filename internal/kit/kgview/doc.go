// Package kgview is the view behind `annalist kg show NAME` and the
// entity endpoints (the KG's types are in internal/ports/graph): Show resolves a
// name (canonical name, courtesy name, art name, other alias or entity id)
// to the entities it may denote and builds a View; View.WriteText prints it
// for people and its JSON form is the command's stable --json contract:
//
//	{
//	  "query":   "进卿",                       // the name asked for
//	  "matched": "alias",                     // name | alias | id
//	  "id": "person:叶向高@1a2b3c4d", "name": "叶向高", "type": "person",
//	  "entry_chunk": "…",
//	  "aliases": ["叶向高", "进卿"],            // canonical name first
//	  "edges":    [{"relation": "courtesy_name", "tail": "进卿", "chunk_id": "…",
//	                "doc_id": "…", "span": {"start": 0, "end": 8},
//	                "evidence": "…", "method": "regex", …}, …],
//	  "incoming": [ … edges whose tail is this entity … ],
//	  "chunks":   ["chunk id", …]              // or, with text requested:
//	              [{"chunk_id": "…", "doc_id": "…", "text": "…"}, …],
//	  "homonyms": ["person:…", …],             // other entities of that name
//	  "candidates": [ … ]                      // only when the name is ambiguous
//	}
//
// An ambiguous name (two persons called 王溥, or a courtesy name two people
// shared) does not pick silently: the top-level object is the best
// candidate, and "candidates" lists every entity the name may denote, best
// first, with how it matched and how much the graph knows of it, so a
// caller can ask again by id. The best candidate is the one whose canonical
// name is the query over one that merely has it as an alias, then a person
// anchored to a biography entry over an unanchored one, then the one with
// more facts; ties go to the smaller id, so the choice is stable.
package kgview
