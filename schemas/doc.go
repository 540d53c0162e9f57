// Package schemas holds the versioned message types that travel on annalist's
// Kafka topics and the envelope codec that frames them.
//
// A message value is the JSON of one struct; its headers say what it is:
// type, schema_version, event_id, trace_id and tenant. Decoding switches on
// (type, version) through a Registry: an unknown type or version is an
// error (ErrUnknownType, ErrUnknownVersion, both wrapping ErrDecode), never
// a silent drop, so the runtime dead-letters it.
//
// # Schema evolution and rolling upgrades
//
// Stages are upgraded one replica at a time, so for a while old and new
// builds read and write the same topics. The rules below keep that window
// free of dead letters.
//
// An additive change keeps the schema version: a new field that readers may
// ignore and whose absence (the zero value, in messages written by builds
// that predate it) means what it meant before the field existed. The
// decoder ignores fields it does not know, so a build not yet upgraded
// reads the new producer's messages, and an upgraded build reads the old
// ones.
//
// Anything else is a breaking change and bumps the version: renaming,
// removing, splitting or retyping a field; changing a field's meaning or
// unit; making an optional field required; a new value of an enumerated
// field that older builds' Validate rejects. The previous struct is kept,
// frozen, as the decoder of the old version, and RegisterUpgrade converts
// it to the new current struct, so code past the decoder only ever sees
// the current one. Roll out the stages that read the type before those
// that write it (annalist topology lists each stage's reads and writes;
// the CLI and the HTTP API write documents and requests): a new-version
// message that reaches a build not yet upgraded is dead-lettered, not
// lost, and can be replayed once that build is gone.
//
// The old version's decoder stays until no message of that version can be
// read again: every producer writes the new version, and the topic's
// retention and its dead-letter topic no longer hold old-version records.
// On a compacted topic (pages) old records stay until their key is written
// again, so the decoder stays until every key has been rewritten. Normally
// only the current and the previous version are registered: an older one
// still there means its removal is overdue.
//
// The HTTP API is stricter on purpose: a request body with an unknown field
// is a client's mistake at the edge and is answered 400, whereas a message
// on a topic was written by another build of this program.
//
// This package imports nothing of the project, so every stage, producer and
// adapter can depend on it.
package schemas
