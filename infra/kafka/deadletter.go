package kafka

import (
	"strconv"
	"strings"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/annalist-dev/annalist/topology"
)

// Headers a dead letter carries besides the original record's own (which
// are kept, with its key and value, byte for byte, so the record can be
// replayed to its topic as it was). They are appended after the original
// headers. Replay (dlt.go) strips them before it publishes the record
// again, so a record dead-lettered again after a replay carries one set;
// readers still take the last occurrence of each name, which stays right
// for a record replayed by other means.
const (
	// HeaderDLTError is the error that sent the record to the DLT,
	// truncated to MaxDLTErrorBytes.
	HeaderDLTError = "dlt_error"
	// HeaderDLTPermanent is "true" when the error was permanent (decode,
	// validation, pipeline.Permanent) and "false" when transient retries
	// ran out.
	HeaderDLTPermanent = "dlt_permanent"
	// HeaderDLTTopic is the topic the record was read from.
	HeaderDLTTopic = "dlt_topic"
	// HeaderDLTPartition is its partition, in decimal.
	HeaderDLTPartition = "dlt_partition"
	// HeaderDLTOffset is its offset, in decimal.
	HeaderDLTOffset = "dlt_offset"
	// HeaderDLTGroup is the consumer group that gave up on it.
	HeaderDLTGroup = "dlt_group"
	// HeaderDLTAttempts is how many times the handler was called for it, in
	// decimal: 0 for a record that could not be decoded.
	HeaderDLTAttempts = "dlt_attempts"
)

// MaxDLTErrorBytes bounds the error header, so a runaway error message
// cannot make the dead letter itself too large to produce.
const MaxDLTErrorBytes = 4 << 10

// deadLetter builds the DLT record of m, read by group, that failed with err
// after attempts handler calls.
func deadLetter(m kafkago.Message, group string, err error, permanent bool, attempts int) kafkago.Message {
	msg := err.Error()
	if len(msg) > MaxDLTErrorBytes {
		msg = strings.ToValidUTF8(msg[:MaxDLTErrorBytes], "")
	}
	headers := make([]kafkago.Header, 0, len(m.Headers)+7)
	headers = append(headers, m.Headers...)
	headers = append(headers,
		kafkago.Header{Key: HeaderDLTError, Value: []byte(msg)},
		kafkago.Header{Key: HeaderDLTPermanent, Value: []byte(strconv.FormatBool(permanent))},
		kafkago.Header{Key: HeaderDLTTopic, Value: []byte(m.Topic)},
		kafkago.Header{Key: HeaderDLTPartition, Value: []byte(strconv.Itoa(m.Partition))},
		kafkago.Header{Key: HeaderDLTOffset, Value: []byte(strconv.FormatInt(m.Offset, 10))},
		kafkago.Header{Key: HeaderDLTGroup, Value: []byte(group)},
		kafkago.Header{Key: HeaderDLTAttempts, Value: []byte(strconv.Itoa(attempts))},
	)
	return kafkago.Message{
		Topic:   topology.DLT(m.Topic),
		Key:     m.Key,
		Value:   m.Value,
		Headers: headers,
	}
}
