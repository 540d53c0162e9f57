package kafka

import (
	"fmt"
	"net"
	"time"

	"github.com/rs/zerolog"
	kafkago "github.com/segmentio/kafka-go"

	"github.com/annalist-dev/annalist/schemas"
)

// dialTimeout bounds opening one broker connection.
const dialTimeout = 10 * time.Second

// metadataTTL is how long a transport serves the cluster's metadata from
// its cache: it refreshes the cache at random within each such period, so
// a topic created after a refresh is unknown to the transport (its writes
// fail with UnknownTopicOrPartition at once) for up to metadataTTL.
const metadataTTL = 10 * time.Second

// newTransport returns a transport owned by one Runner, Producer or admin
// call, so closing it closes exactly its connections (kafka-go's shared
// DefaultTransport would keep pools alive for the life of the process).
func newTransport(cfg Config) *kafkago.Transport {
	return &kafkago.Transport{
		ClientID:    cfg.ClientID,
		DialTimeout: dialTimeout,
		IdleTimeout: time.Minute,
		MetadataTTL: metadataTTL,
	}
}

// newWriter returns a synchronous writer with acks=all whose partitioning
// matches the Java client's (murmur2 of the key), so records with one key
// land on one partition whatever client wrote them.
func newWriter(cfg Config, t *kafkago.Transport, log zerolog.Logger) *kafkago.Writer {
	return &kafkago.Writer{
		Addr:         kafkago.TCP(cfg.Brokers...),
		Balancer:     kafkago.Murmur2Balancer{},
		MaxAttempts:  3,
		BatchSize:    cfg.MaxBatch * 4,
		BatchBytes:   int64(cfg.MaxMessageBytes),
		BatchTimeout: cfg.WriteBatchTimeout,
		RequiredAcks: kafkago.RequireAll,
		Async:        false,
		Transport:    t,
		ErrorLogger:  errorLogger(log),
	}
}

func newClient(cfg Config, t *kafkago.Transport) *kafkago.Client {
	return &kafkago.Client{Addr: kafkago.TCP(cfg.Brokers...), Timeout: 30 * time.Second, Transport: t}
}

func newDialer(cfg Config) *kafkago.Dialer {
	return &kafkago.Dialer{
		ClientID:  cfg.ClientID,
		Timeout:   dialTimeout,
		DualStack: true,
		KeepAlive: 30 * time.Second,
		Resolver:  &net.Resolver{},
	}
}

// errorLogger routes kafka-go's error log to zerolog at warn level: they
// are retried internally, and the runtime logs the decision it makes once.
func errorLogger(log zerolog.Logger) kafkago.Logger {
	return kafkago.LoggerFunc(func(format string, args ...any) {
		log.Warn().Str("component", "kafka-go").Msg(fmt.Sprintf(format, args...))
	})
}

// traceLogger routes kafka-go's chatty info log to zerolog at trace level,
// or nowhere when trace is off (formatting would be wasted).
func traceLogger(log zerolog.Logger) kafkago.Logger {
	if log.GetLevel() > zerolog.TraceLevel {
		return nil
	}
	return kafkago.LoggerFunc(func(format string, args ...any) {
		log.Trace().Str("component", "kafka-go").Msg(fmt.Sprintf(format, args...))
	})
}

func toSchemaHeaders(hs []kafkago.Header) []schemas.Header {
	out := make([]schemas.Header, len(hs))
	for i, h := range hs {
		out[i] = schemas.Header{Key: h.Key, Value: h.Value}
	}
	return out
}

func toKafkaHeaders(hs []schemas.Header) []kafkago.Header {
	out := make([]kafkago.Header, len(hs))
	for i, h := range hs {
		out[i] = kafkago.Header{Key: h.Key, Value: h.Value}
	}
	return out
}

// encodeRecord frames one message for a topic.
func encodeRecord(topic string, m schemas.Message, meta schemas.Meta) (kafkago.Message, error) {
	key, value, headers, err := schemas.Encode(m, meta)
	if err != nil {
		return kafkago.Message{}, err
	}
	return kafkago.Message{Topic: topic, Key: key, Value: value, Headers: toKafkaHeaders(headers)}, nil
}

// recordSize bounds from above the size kafka-go checks against the
// writer's batch bytes (key, value and headers plus their framing), so a
// record it admits is never refused by the writer as too large.
func recordSize(m kafkago.Message) int {
	n := 32 + len(m.Key) + len(m.Value)
	for _, h := range m.Headers {
		n += 10 + len(h.Key) + len(h.Value)
	}
	return n
}

// recordBatchOverhead is the room a record batch needs beyond its records.
const recordBatchOverhead = 64 << 10

// BrokerMaxMessageBytes is the broker's message.max.bytes (and the topics'
// max.message.bytes) that admits every record batch the writers of this
// config send.
func (c Config) BrokerMaxMessageBytes() int {
	return c.withDefaults().MaxMessageBytes + recordBatchOverhead
}
