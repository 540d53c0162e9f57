// Package embed provides the embedders of the embedder stage
// (consumers/vec.Embedder):
//
//   - Offline: deterministic hashed character n-grams for Chinese and
//     English, no model and no network; the default.
//   - OpenAI: any OpenAI-compatible /embeddings endpoint through eino-ext's
//     embedder, with batching, per-attempt timeouts and retries.
//
// Config picks one from flags and ANNALIST_EMBED_* environment variables
// (the base URL and key default to the LLM's ANNALIST_LLM_*).
package embed
