// Package producers turns outside input into documents on the documents
// topic: files and directories (.txt, .md, .jsonl), JSON Lines on a reader
// (stdin), and HTTP POST /v1/documents.
//
// Document ids are stable: a file's id is derived from its base name and a
// hash of its content, so ingesting the same file again yields the same id
// and the same event id, and nothing downstream changes. A JSONL record may
// carry its own doc_id; its event id is then derived from id and content.
package producers
