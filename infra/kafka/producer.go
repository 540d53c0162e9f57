package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"
	kafkago "github.com/segmentio/kafka-go"

	"github.com/annalist-dev/annalist/schemas"
)

// Record is one message to publish.
type Record struct {
	Topic string
	Msg   schemas.Message
	// Meta carries the event id (required: it is what downstream stages
	// deduplicate by, so a retried publish must reuse it), and optionally
	// the trace id and tenant. Type and version come from Msg.
	Meta schemas.Meta
}

// Producer publishes messages from outside the stage graph (ingestion, the
// HTTP API). It is safe for concurrent use; one per process is enough.
type Producer struct {
	cfg       Config
	transport *kafkago.Transport
	writer    *kafkago.Writer
}

// NewProducer returns a producer for cfg (zero fields take their defaults;
// validate cfg at start-up). The caller closes it.
func NewProducer(cfg Config) *Producer {
	cfg = cfg.withDefaults()
	t := newTransport(cfg)
	return &Producer{cfg: cfg, transport: t, writer: newWriter(cfg, t, zerolog.Nop())}
}

// Publish encodes recs and writes them with acks=all, waiting for the
// acknowledgements. Nothing is sent when a record cannot be encoded (the
// error wraps the schemas sentinel and names the record). Records that the
// broker refuses are retried with backoff up to Config.RetryAttempts times;
// an error then means some records may have been written: publish them
// again with the same event ids. A topic the producer's cached metadata
// does not know yet (created after its last refresh) is retried until the
// cache was refreshed, however many attempts that takes.
func (p *Producer) Publish(ctx context.Context, recs ...Record) error {
	msgs := make([]kafkago.Message, len(recs))
	for i, r := range recs {
		if r.Topic == "" {
			return fmt.Errorf("publish record %d: %w: no topic", i, schemas.ErrInvalid)
		}
		m, err := encodeRecord(r.Topic, r.Msg, r.Meta)
		if err != nil {
			return fmt.Errorf("publish record %d to %s: %w", i, r.Topic, err)
		}
		if n := recordSize(m); n > p.cfg.MaxMessageBytes {
			return fmt.Errorf("publish record %d to %s: %w: record of %d bytes exceeds the limit of %d", i, r.Topic, schemas.ErrInvalid, n, p.cfg.MaxMessageBytes)
		}
		msgs[i] = m
	}
	return writeRetrying(ctx, p.writer, p.cfg, msgs, max(p.cfg.RetryAttempts, 1), zerolog.Nop())
}

// Close waits for writes in flight and closes the connections.
func (p *Producer) Close() error {
	err := p.writer.Close()
	p.transport.CloseIdleConnections()
	return err
}

// unknownTopicPoll paces the retries of a write to a topic the writer's
// cached metadata does not know.
const unknownTopicPoll = 100 * time.Millisecond

// writeRetrying writes records with acks=all and waits. Records that fail
// are written again, with backoff, until all are acknowledged, ctx ends or
// maxAttempts writes were made (0: no limit). A write that fails because a
// topic is unknown is retried past maxAttempts until metadataTTL has passed
// since the first such failure: the topic may be new, and the transport
// learns of it only at its next metadata refresh.
func writeRetrying(ctx context.Context, w *kafkago.Writer, cfg Config, records []kafkago.Message, maxAttempts int, log zerolog.Logger) error {
	var unknownSince time.Time
	for attempt := 1; len(records) > 0; attempt++ {
		err := w.WriteMessages(ctx, records...)
		if err == nil {
			return nil
		}
		switch {
		case !unknownTopic(err):
			unknownSince = time.Time{}
		case unknownSince.IsZero():
			unknownSince = time.Now()
		}
		var werrs kafkago.WriteErrors
		if errors.As(err, &werrs) && len(werrs) == len(records) {
			failed := records[:0:0]
			for k, e := range werrs {
				if e != nil {
					failed = append(failed, records[k])
				}
			}
			records = failed
		}
		if ctx.Err() != nil {
			return fmt.Errorf("produce %d records: %w (last error: %w)", len(records), context.Cause(ctx), err)
		}
		waitForMetadata := !unknownSince.IsZero() && time.Since(unknownSince) < metadataTTL
		if maxAttempts > 0 && attempt >= maxAttempts && !waitForMetadata {
			return fmt.Errorf("produce %d records after %d attempts: %w", len(records), attempt, err)
		}
		log.Warn().Err(err).Int("records", len(records)).Int("attempt", attempt).Msg("produce; retrying")
		wait := cfg.Backoff(attempt)
		if waitForMetadata {
			wait = max(wait, unknownTopicPoll)
		}
		if !sleep(ctx, wait) {
			return fmt.Errorf("produce %d records: %w (last error: %w)", len(records), context.Cause(ctx), err)
		}
	}
	return nil
}

// unknownTopic reports whether a write failed, in whole or for some
// records, because a topic or partition is unknown.
func unknownTopic(err error) bool {
	if errors.Is(err, kafkago.UnknownTopicOrPartition) {
		return true
	}
	var werrs kafkago.WriteErrors
	if errors.As(err, &werrs) {
		for _, e := range werrs {
			if errors.Is(e, kafkago.UnknownTopicOrPartition) {
				return true
			}
		}
	}
	return false
}
