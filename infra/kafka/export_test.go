package kafka

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
