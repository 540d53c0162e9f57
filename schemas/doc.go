// Package schemas holds the versioned message types that travel on annalist's
// Kafka topics and the envelope codec that frames them.
//
// A message value is the JSON of one struct; its headers say what it is:
// type, schema_version, event_id, trace_id and tenant. Decoding switches on
// (type, version): an unknown type or version is an error (ErrUnknownType,
// ErrUnknownVersion), never a silent drop, so the runtime can dead-letter it.
//
// This package imports nothing of the project, so every stage, producer and
// adapter can depend on it.
package schemas
