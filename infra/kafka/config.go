package kafka

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/annalist-dev/annalist/internal/kit/backoff"
)

// Defaults of Config; a zero field means its default.
const (
	DefaultBroker            = "127.0.0.1:9092"
	DefaultClientID          = "annalist"
	DefaultMaxBatch          = 256
	DefaultBatchLinger       = 100 * time.Microsecond
	DefaultFetchMinBytes     = 1
	DefaultFetchMaxWait      = 1250 * time.Millisecond
	DefaultWriteBatchTimeout = 100 * time.Microsecond
	DefaultMaxMessageBytes   = 16 << 20
	DefaultRetryAttempts     = 5
	DefaultRetryBackoffBase  = 100 * time.Millisecond
	DefaultRetryBackoffMax   = 5 * time.Second
	DefaultMaxBackoff        = 30 * time.Second
	DefaultSessionTimeout    = 10 * time.Second
	DefaultHeartbeatInterval = time.Second
	DefaultRebalanceTimeout  = 10 * time.Second
	DefaultDrainTimeout      = 30 * time.Second
	DefaultReplicationFactor = 1
)

// Config is the client side of the Kafka runtime. The zero value means the
// defaults; each field documents its own. Call Validate at start-up.
type Config struct {
	// Brokers are the bootstrap host:port addresses.
	// Default: [DefaultBroker].
	Brokers []string
	// ClientID names this process to the brokers. Default: "annalist".
	ClientID string

	// MaxBatch is the most records one loop turn takes. Records are taken
	// greedily while immediately available, so a quiet topic gives batches
	// of one and a backlog gives full batches. Default: 256.
	MaxBatch int
	// BatchLinger is how long a loop turn waits for more records after the
	// first one before handling what it has. It trades a little latency
	// for batches under a steady trickle; a backlog fills batches without
	// it. A page's request crosses about 15 hops, each of which waits it
	// once. Default: 100µs (2ms made `bench generate --n 200
	// --concurrency 8` 10.4 ms per hop and p99 651 ms, 100µs with the
	// write batch timeout below 8.3 ms and 529 ms; ingestion and
	// generation at 64 in flight did not change).
	BatchLinger time.Duration

	// FetchMinBytes is the least data the broker gathers before answering a
	// fetch. One byte means "answer as soon as anything is there": the
	// lowest latency, at the cost of more, smaller fetches under load.
	// Default: 1.
	FetchMinBytes int
	// FetchMaxWait bounds one fetch. kafka-go's Reader asks the broker to
	// hold an empty fetch for FetchMaxWait minus a one-second allowance for
	// the round trip (minus a quarter when FetchMaxWait is under 1s), and
	// gives up on a response that has not started by FetchMaxWait. With
	// FetchMinBytes of 1 data ends the broker's wait at once, so the value
	// costs no latency; what it trades is the idle poll (which also delays
	// closing the reader and rebalancing, as kafka-go waits for the fetch
	// in flight) against the time a broker may take to start answering a
	// large fetch. The default gives idle polls of 250ms and a full second
	// for the answer. Values from 1s to 1.1s would ask the broker not to
	// wait at all (a busy poll) and are refused. Default: 1.25s.
	FetchMaxWait time.Duration
	// WriteBatchTimeout is how long the writer waits to fill a batch before
	// sending it. kafka-go's own default (1s) would make every synchronous
	// produce wait a second; the runtime hands the writer a whole
	// micro-batch at once, so waiting longer buys nothing. Default: 100µs.
	WriteBatchTimeout time.Duration
	// MaxMessageBytes bounds one record (documents can be several MB). It
	// sets the writer's batch bytes, the reader's fetch size and the topics'
	// max.message.bytes; the broker's message.max.bytes must be at least as
	// large. An output larger than this is dead-lettered with its input.
	// Default: 16 MiB.
	MaxMessageBytes int

	// RetryAttempts is how many times the Producer tries a publish the
	// broker refuses before it returns the error to its caller (who can
	// answer 503). It does not bound a stage: a stage retries an input
	// that fails with a transient error without limit (see MaxBackoff).
	// Default: 5.
	RetryAttempts int
	// RetryBackoffBase is the backoff before the second attempt; it doubles
	// with each attempt, with jitter. It paces the retries of failed
	// produce and fetch calls and the first retries of a stage paused on
	// a transient error. Default: 100ms.
	RetryBackoffBase time.Duration
	// RetryBackoffMax caps the backoff of produce and fetch retries.
	// Default: 5s.
	RetryBackoffMax time.Duration
	// MaxBackoff caps the wait between the calls of an input that fails
	// with a transient error (a dependency is down). The stage is paused
	// meanwhile: it retries the input without limit, holding its offset,
	// and resumes when the dependency is back; a permanent error is
	// dead-lettered at once instead. A longer cap costs less while a
	// dependency is down for long, a shorter one resumes sooner after it
	// comes back. Default: 30s.
	MaxBackoff time.Duration

	// SessionTimeout is how long the group coordinator waits for a
	// heartbeat before it gives the member's partitions to others. Shorter
	// detects dead members sooner; it must lie within the broker's
	// group.min/max.session.timeout.ms. Default: 10s.
	SessionTimeout time.Duration
	// HeartbeatInterval is how often a member heartbeats; it is also how
	// soon a member learns of a rebalance. Default: 1s.
	HeartbeatInterval time.Duration
	// RebalanceTimeout is how long the coordinator waits for members to
	// rejoin during a rebalance. Default: 10s.
	RebalanceTimeout time.Duration

	// DrainTimeout bounds a graceful shutdown: the in-flight batch has this
	// long to finish after the context is cancelled. Default: 30s.
	DrainTimeout time.Duration

	// ReplicationFactor of the topics EnsureTopics creates. Default: 1 (the
	// embedded broker and the compose file run one broker).
	ReplicationFactor int
}

// RegisterFlags binds the config to flags. Defaults shown are the effective
// ones; a flag left unset keeps the zero value, which means the default.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.Var((*brokerList)(&c.Brokers), "brokers", "comma-separated Kafka bootstrap brokers host:port (default "+DefaultBroker+")")
	fs.StringVar(&c.ClientID, "kafka-client-id", c.ClientID, "Kafka client id (default "+DefaultClientID+")")
	fs.IntVar(&c.MaxBatch, "kafka-max-batch", c.MaxBatch, fmt.Sprintf("most records handled per loop turn (default %d; the ingestion stages 1024)", DefaultMaxBatch))
	fs.DurationVar(&c.BatchLinger, "kafka-batch-linger", c.BatchLinger, fmt.Sprintf("wait for more records after the first of a batch (default %s)", DefaultBatchLinger))
	fs.IntVar(&c.FetchMinBytes, "kafka-fetch-min-bytes", c.FetchMinBytes, fmt.Sprintf("broker gathers this much before answering a fetch (default %d)", DefaultFetchMinBytes))
	fs.DurationVar(&c.FetchMaxWait, "kafka-fetch-max-wait", c.FetchMaxWait, fmt.Sprintf("longest a fetch is held by the broker while idle (default %s)", DefaultFetchMaxWait))
	fs.DurationVar(&c.WriteBatchTimeout, "kafka-write-batch-timeout", c.WriteBatchTimeout, fmt.Sprintf("writer wait to fill a batch (default %s)", DefaultWriteBatchTimeout))
	fs.IntVar(&c.MaxMessageBytes, "kafka-max-message-bytes", c.MaxMessageBytes, fmt.Sprintf("largest record (default %d)", DefaultMaxMessageBytes))
	fs.IntVar(&c.RetryAttempts, "kafka-retry-attempts", c.RetryAttempts, fmt.Sprintf("attempts of a publish outside the stages before it fails (default %d)", DefaultRetryAttempts))
	fs.DurationVar(&c.RetryBackoffBase, "kafka-retry-backoff", c.RetryBackoffBase, fmt.Sprintf("first retry backoff, doubled per attempt (default %s)", DefaultRetryBackoffBase))
	fs.DurationVar(&c.RetryBackoffMax, "kafka-retry-backoff-max", c.RetryBackoffMax, fmt.Sprintf("largest backoff of produce and fetch retries (default %s)", DefaultRetryBackoffMax))
	fs.DurationVar(&c.MaxBackoff, "kafka-max-backoff", c.MaxBackoff, fmt.Sprintf("largest wait of a stage paused on a transient error, which it retries without limit (default %s)", DefaultMaxBackoff))
	fs.DurationVar(&c.SessionTimeout, "kafka-session-timeout", c.SessionTimeout, fmt.Sprintf("consumer group session timeout (default %s)", DefaultSessionTimeout))
	fs.DurationVar(&c.HeartbeatInterval, "kafka-heartbeat-interval", c.HeartbeatInterval, fmt.Sprintf("consumer group heartbeat interval (default %s)", DefaultHeartbeatInterval))
	fs.DurationVar(&c.RebalanceTimeout, "kafka-rebalance-timeout", c.RebalanceTimeout, fmt.Sprintf("consumer group rebalance timeout (default %s)", DefaultRebalanceTimeout))
	fs.DurationVar(&c.DrainTimeout, "kafka-drain-timeout", c.DrainTimeout, fmt.Sprintf("time the in-flight batch has to finish on shutdown (default %s)", DefaultDrainTimeout))
	fs.IntVar(&c.ReplicationFactor, "kafka-replication-factor", c.ReplicationFactor, fmt.Sprintf("replication factor of created topics (default %d)", DefaultReplicationFactor))
}

// brokerList is a flag.Value of comma-separated addresses.
type brokerList []string

func (b *brokerList) String() string {
	if b == nil {
		return ""
	}
	return strings.Join(*b, ",")
}

func (b *brokerList) Set(s string) error {
	var out []string
	for _, a := range strings.Split(s, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	*b = out
	return nil
}

// Validate reports an unusable config: negative sizes or durations, a
// heartbeat not shorter than the session, a backoff cap below its base.
func (c Config) Validate() error {
	var errs []error
	for _, b := range c.Brokers {
		if !strings.Contains(b, ":") {
			errs = append(errs, fmt.Errorf("broker %q: want host:port", b))
		}
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"max batch", int64(c.MaxBatch)},
		{"batch linger", int64(c.BatchLinger)},
		{"fetch min bytes", int64(c.FetchMinBytes)},
		{"fetch max wait", int64(c.FetchMaxWait)},
		{"write batch timeout", int64(c.WriteBatchTimeout)},
		{"max message bytes", int64(c.MaxMessageBytes)},
		{"retry attempts", int64(c.RetryAttempts)},
		{"retry backoff", int64(c.RetryBackoffBase)},
		{"retry backoff max", int64(c.RetryBackoffMax)},
		{"max backoff", int64(c.MaxBackoff)},
		{"session timeout", int64(c.SessionTimeout)},
		{"heartbeat interval", int64(c.HeartbeatInterval)},
		{"rebalance timeout", int64(c.RebalanceTimeout)},
		{"drain timeout", int64(c.DrainTimeout)},
		{"replication factor", int64(c.ReplicationFactor)},
	} {
		if f.v < 0 {
			errs = append(errs, fmt.Errorf("kafka %s %d: must not be negative", f.name, f.v))
		}
	}
	d := c.withDefaults()
	if d.HeartbeatInterval >= d.SessionTimeout {
		errs = append(errs, fmt.Errorf("kafka heartbeat interval %s must be shorter than the session timeout %s", d.HeartbeatInterval, d.SessionTimeout))
	}
	if d.FetchMaxWait >= time.Second && d.FetchMaxWait < 1100*time.Millisecond {
		errs = append(errs, fmt.Errorf("kafka fetch max wait %s: kafka-go would ask the broker to wait %s; use less than 1s or at least 1.1s", d.FetchMaxWait, d.FetchMaxWait-time.Second))
	}
	if d.RetryBackoffMax < d.RetryBackoffBase {
		errs = append(errs, fmt.Errorf("kafka retry backoff max %s is below the base %s", d.RetryBackoffMax, d.RetryBackoffBase))
	}
	if d.MaxBackoff < d.RetryBackoffBase {
		errs = append(errs, fmt.Errorf("kafka max backoff %s is below the retry backoff %s", d.MaxBackoff, d.RetryBackoffBase))
	}
	return errors.Join(errs...)
}

// withDefaults returns c with every zero field set to its default.
func (c Config) withDefaults() Config {
	if len(c.Brokers) == 0 {
		c.Brokers = []string{DefaultBroker}
	}
	setDefault(&c.ClientID, DefaultClientID)
	setDefault(&c.MaxBatch, DefaultMaxBatch)
	setDefault(&c.BatchLinger, DefaultBatchLinger)
	setDefault(&c.FetchMinBytes, DefaultFetchMinBytes)
	setDefault(&c.FetchMaxWait, DefaultFetchMaxWait)
	setDefault(&c.WriteBatchTimeout, DefaultWriteBatchTimeout)
	setDefault(&c.MaxMessageBytes, DefaultMaxMessageBytes)
	setDefault(&c.RetryAttempts, DefaultRetryAttempts)
	setDefault(&c.RetryBackoffBase, DefaultRetryBackoffBase)
	setDefault(&c.RetryBackoffMax, DefaultRetryBackoffMax)
	setDefault(&c.MaxBackoff, DefaultMaxBackoff)
	setDefault(&c.SessionTimeout, DefaultSessionTimeout)
	setDefault(&c.HeartbeatInterval, DefaultHeartbeatInterval)
	setDefault(&c.RebalanceTimeout, DefaultRebalanceTimeout)
	setDefault(&c.DrainTimeout, DefaultDrainTimeout)
	setDefault(&c.ReplicationFactor, DefaultReplicationFactor)
	return c
}

func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// Backoff is the wait before retry number attempt (1 = the wait after the
// first failure) of a produce or a fetch: exponential from
// RetryBackoffBase, capped at RetryBackoffMax, with "equal jitter": a
// uniformly random value in [d/2, d] where d is the capped exponential.
// The jitter spreads the retries of many members that failed together;
// the floor keeps a retry from coming back at once.
func (c Config) Backoff(attempt int) time.Duration {
	c = c.withDefaults()
	return backoff.Exponential{Base: c.RetryBackoffBase, Cap: c.RetryBackoffMax, Jitter: true}.Delay(attempt)
}

// PauseBackoff is the wait before retry number attempt of an input that
// fails with a transient error: like Backoff, but capped at MaxBackoff,
// since a paused stage retries for as long as its dependency is down.
func (c Config) PauseBackoff(attempt int) time.Duration {
	c = c.withDefaults()
	return backoff.Exponential{Base: c.RetryBackoffBase, Cap: c.MaxBackoff, Jitter: true}.Delay(attempt)
}
