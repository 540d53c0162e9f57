// Package broker runs annalist's own Kafka-protocol broker: one in-process
// kfake broker (github.com/twmb/franz-go/pkg/kfake) on a loopback TCP port,
// with its state persisted under a data directory. The embedded mode starts
// it inside the demo process; `annalist broker` runs it alone (Serve) so
// several processes can share it. Clients reach it exactly as they reach a
// real Kafka cluster, through infra/kafka.
//
// # Durability
//
// With a DataDir, kfake appends every produced record batch to a segment
// file and every offset commit and group change to groups.log as it
// happens, with a plain write: the data is in the operating system's page
// cache when the produce or commit is acknowledged. It therefore survives
// the broker process being killed (kill -9, a panic, Ctrl-C) without a
// Close; Close additionally writes a full snapshot. Only a crash of the
// machine itself can lose the writes of the last seconds, exactly as with
// real Kafka's default (log.flush.interval.messages unset). SyncWrites adds
// an fsync per batch and per commit for machine-crash durability, at a
// large cost in throughput; the embedded mode does not need it, because the
// pipeline's sources (the ingested files) can be ingested again and ingest
// is idempotent.
//
// Two brokers must not share a DataDir: Start takes an exclusive lock on
// the directory and fails while another process holds it.
package broker

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/topology"
)

// DefaultAddr listens on a free loopback port.
const DefaultAddr = "127.0.0.1:0"

// minSessionTimeout is the shortest consumer-group session the broker
// accepts. Real Kafka's default minimum is 6s; a local broker can let tests
// and demos detect a dead member sooner.
const minSessionTimeout = time.Second

// Config configures the broker. The zero value is an in-memory broker on a
// free loopback port.
type Config struct {
	// DataDir holds the broker's state: topics, record segments, consumer
	// groups and committed offsets. Empty keeps everything in memory, lost
	// on Close.
	DataDir string
	// Addr is the host:port to listen on; it is also the address the broker
	// advertises to clients, so the host must be one they can dial.
	// Default: DefaultAddr.
	Addr string
	// SyncWrites fsyncs every produced batch and commit (see the package
	// documentation). Default: false.
	SyncWrites bool
	// MaxMessageBytes is the largest record clients may send; the broker
	// accepts batches of that size plus framing. Default: the infra/kafka
	// default, so the runtime's writers are never refused.
	MaxMessageBytes int
	// Logger receives the broker's warnings and errors (its per-request log
	// at trace level). The zero value logs nothing.
	Logger zerolog.Logger
}

// RegisterFlags binds the network and durability settings to flags. The
// data directory comes from the command's --data-dir.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.Addr, "broker-addr", c.Addr, "host:port the broker listens on and advertises (default "+DefaultAddr+", a free loopback port)")
	fs.BoolVar(&c.SyncWrites, "broker-sync-writes", c.SyncWrites, "fsync every produced batch and commit (survives a machine crash; much slower)")
	fs.IntVar(&c.MaxMessageBytes, "broker-max-message-bytes", c.MaxMessageBytes, fmt.Sprintf("largest record accepted (default %d)", kafka.DefaultMaxMessageBytes))
}

// Validate reports an unusable config.
func (c Config) Validate() error {
	if c.MaxMessageBytes < 0 {
		return fmt.Errorf("broker max message bytes %d: must not be negative", c.MaxMessageBytes)
	}
	if c.Addr == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return fmt.Errorf("broker addr %q: %w", c.Addr, err)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return fmt.Errorf("broker addr %q: bad port", c.Addr)
	}
	return nil
}

// ErrDataDirInUse is returned by Start when another broker holds the data
// directory.
var ErrDataDirInUse = errors.New("data directory in use by another broker")

// Broker is a running broker.
type Broker struct {
	cluster *kfake.Cluster
	addrs   []string
	unlock  func() error
	log     zerolog.Logger

	closeOnce sync.Once
	closeErr  error
}

// Start starts the broker, reloading its state from cfg.DataDir when there
// is one, and creates every topic of the topology (and its dead-letter
// topic) that does not exist yet, so producers never race topic creation.
// ctx bounds the start-up only. The caller closes the broker.
func Start(ctx context.Context, cfg Config) (*Broker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	addr := cfg.Addr
	if addr == "" {
		addr = DefaultAddr
	}
	kcfg := kafka.Config{MaxMessageBytes: cfg.MaxMessageBytes}
	opts := []kfake.Opt{
		kfake.NumBrokers(1),
		kfake.Ports(0),
		kfake.ListenFn(func(network, _ string) (net.Listener, error) { return net.Listen(network, addr) }),
		kfake.ClusterID("annalist"),
		kfake.GroupMinSessionTimeout(minSessionTimeout),
		kfake.BrokerConfigs(map[string]string{"message.max.bytes": strconv.Itoa(kcfg.BrokerMaxMessageBytes())}),
		kfake.WithLogger(logger{cfg.Logger}),
	}
	unlock := func() error { return nil }
	if cfg.DataDir != "" {
		if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
			return nil, fmt.Errorf("start broker: create data dir: %w", err)
		}
		var err error
		if unlock, err = lockDir(cfg.DataDir); err != nil {
			return nil, fmt.Errorf("start broker: %w", err)
		}
		opts = append(opts, kfake.DataDir(cfg.DataDir))
		if cfg.SyncWrites {
			opts = append(opts, kfake.SyncWrites())
		}
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		_ = unlock()
		return nil, fmt.Errorf("start broker on %s: %w", addr, err)
	}
	b := &Broker{cluster: c, addrs: c.ListenAddrs(), unlock: unlock, log: cfg.Logger}
	kcfg.Brokers = b.addrs
	if err := kafka.EnsureTopics(ctx, kcfg, topology.Topics()); err != nil {
		return nil, errors.Join(fmt.Errorf("start broker: %w", err), b.Close())
	}
	return b, nil
}

// Addrs are the host:port addresses clients bootstrap from.
func (b *Broker) Addrs() []string { return append([]string(nil), b.addrs...) }

// Close stops the broker: it stops accepting connections, writes its state
// to the data directory and releases it. Safe to call more than once.
func (b *Broker) Close() error {
	b.closeOnce.Do(func() {
		b.cluster.Close()
		if err := b.unlock(); err != nil {
			b.closeErr = fmt.Errorf("close broker: %w", err)
		}
	})
	return b.closeErr
}

// Serve runs a broker until ctx is cancelled, then closes it. It logs the
// address clients should use.
func Serve(ctx context.Context, cfg Config) error {
	b, err := Start(ctx, cfg)
	if err != nil {
		return err
	}
	ev := cfg.Logger.Info().Strs("addrs", b.Addrs())
	if cfg.DataDir != "" {
		ev = ev.Str("data_dir", cfg.DataDir)
	} else {
		ev = ev.Bool("in_memory", true)
	}
	ev.Msg("broker listening")
	<-ctx.Done()
	err = b.Close()
	cfg.Logger.Info().Msg("broker stopped")
	return err
}

// logger adapts zerolog to kfake's logger. kfake logs every request at
// info level, so its info goes to trace and its debug is dropped.
type logger struct{ l zerolog.Logger }

func (g logger) Logf(level kfake.LogLevel, format string, args ...any) {
	var ev *zerolog.Event
	switch level {
	case kfake.LogLevelError:
		ev = g.l.Error()
	case kfake.LogLevelWarn:
		ev = g.l.Warn()
	case kfake.LogLevelInfo:
		ev = g.l.Trace()
	default:
		return
	}
	ev.Str("component", "kfake").Msgf(format, args...)
}
