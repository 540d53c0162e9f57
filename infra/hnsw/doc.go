// Package hnsw is the embedded vector index of annalist: an HNSW graph
// over cosine similarity written in the project, held in memory, persisted
// per tenant under a directory, and exposed as an vec.Store so the
// embedded mode needs no Milvus.
//
// # Search
//
// Index is the graph (Malkov & Yashunin, "Efficient and robust approximate
// nearest neighbor search using Hierarchical Navigable Small World graphs",
// 2018) with the neighbour-selection heuristic. Exact brute-force search is
// provided beside it: it is the baseline recall is measured against, and
// the index answers with it while a collection is small (Params.ExactBelow),
// where it is as fast and exact; the graph is only built once a collection
// reaches that size, so small collections also insert fast. The dot
// product is AVX2/FMA assembly on amd64 CPUs that have it, portable Go
// elsewhere. Recall measures recall@k against exact search and the queries
// per second of both; the tests assert recall@10 ≥ 0.98 with the default
// parameters on random and on clustered vectors.
//
// # Persistence and crash guarantee
//
// A persistent Store keeps, for each tenant, a directory holding
//
//   - index.snap: the whole graph (vectors, links, ids, tombstones, the level
//     generator's state) and the log sequence number it reflects, with a
//     CRC-32C trailer. It is only ever replaced atomically: written to a
//     temporary file, fsynced, renamed over the old one, and the directory
//     fsynced.
//   - index.log: an append-only log of the upserts and deletes since that
//     snapshot, one CRC-framed record per item, each with a sequence number.
//
// Upsert and Delete append their records and fsync the log before they
// change the index in memory or return, so once they return nil the change
// survives a crash of the process or the machine. A crash can leave a torn
// record at the end of the log: it was never acknowledged, and Open cuts it
// away. On open the snapshot is loaded and the log records newer than it
// are replayed; replay is idempotent (an upsert of an identical vector is a
// no-op and sequence numbers at or below the snapshot's are skipped), so a
// crash between writing a snapshot and emptying the log loses and repeats
// nothing. When the log has grown by Config.SnapshotEvery records or a
// quarter of the index, whichever is more, and on Close, a new snapshot is
// written and the log emptied, which bounds replay time at start-up. A
// corrupt snapshot is an error, never silently dropped. One process owns a
// directory at a time (an exclusive flock on DIR/LOCK).
package hnsw
