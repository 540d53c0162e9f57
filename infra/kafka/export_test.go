package kafka

import "github.com/annalist-dev/annalist/schemas"

// Crash points, exported to the black-box tests.
const (
	PointAfterProduce = pointAfterProduce
	PointBeforeCommit = pointBeforeCommit
)

// WithCrash returns o with a hook called at each crash point; an error from
// it stops the runner there, as a crash would.
func WithCrash(o Options, f func(point string) error) Options {
	o.crash = f
	return o
}

// RequestID is the request id the runtime logs for a message.
var RequestID = requestID

// EncodedSize is the size of m encoded for topic with meta, as the
// Producer and the runner check it against Config.MaxMessageBytes.
func EncodedSize(topic string, m schemas.Message, meta schemas.Meta) (int, error) {
	rec, err := encodeRecord(topic, m, meta)
	if err != nil {
		return 0, err
	}
	return recordSize(rec), nil
}
