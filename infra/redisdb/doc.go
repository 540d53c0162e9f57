// Package redisdb connects annalist to Redis: the client configuration, the
// embedded server of the embedded mode (a supervised child redis-server
// with AOF under the data directory that never outlives its owner, or
// in-process miniredis when no binary is on PATH),
// idempotency markers and the document/chunk store.
//
// Keys carry the tenant between braces (ARCHITECTURE.md §9), e.g. chunk:{default}:ID,
// which is also the Redis Cluster hash tag: one tenant's keys co-locate, so
// multi-key pipelines and scripts stay valid on a cluster.
package redisdb
