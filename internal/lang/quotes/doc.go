// Package quotes is the knowledge of a quotation collection: the quotable
// format ([{_id, content, author, tags}]) and its checks at the edge, how
// a quotation travels through the pipeline (one document and one chunk
// per quotation, its author the chunk's subject, its tags in the chunk's
// title), and the ranking of quotations for a topic or a text (features,
// a logistic model fitted on the collection's tags, author credibility
// from the collection, maximal marginal relevance, a fitted cut), and the
// finder over the ports (Finder: candidates from the tags, the vectors
// and a per-tenant word index, with topic words learned from the tagged
// quotations to find the untagged ones).
package quotes
