package kafka

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/annalist-dev/annalist/topology"
)

// topicsReadyTimeout bounds the wait for created topics to show in the
// metadata (a real cluster propagates them asynchronously).
const topicsReadyTimeout = 30 * time.Second

// pollInterval paces WaitIdle and the wait for created topics.
const pollInterval = 25 * time.Millisecond

// EnsureTopics creates each topic and its dead-letter topic, idempotently:
// topics that exist already are left as they are. Every topic gets
// max.message.bytes from the config (BrokerMaxMessageBytes); compacted
// topics get cleanup.policy=compact; dead-letter topics have
// topology.DLTPartitions partitions. It returns once the topics show in the
// cluster's metadata with a leader for every partition: a real broker
// creates them asynchronously, and a write to a partition whose leader is
// not elected yet is refused (Not Leader For Partition). Pass topology.Topics() for the whole graph.
func EnsureTopics(ctx context.Context, cfg Config, topics []topology.Topic) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("ensure topics: %w", err)
	}
	cfg = cfg.withDefaults()
	t := newTransport(cfg)
	defer t.CloseIdleConnections()
	c := newClient(cfg, t)

	maxBytes := kafkago.ConfigEntry{ConfigName: "max.message.bytes", ConfigValue: strconv.Itoa(cfg.BrokerMaxMessageBytes())}
	var req []kafkago.TopicConfig
	var names []string
	for _, tp := range topics {
		if tp.Name == "" || tp.Partitions <= 0 {
			return fmt.Errorf("ensure topic %q: want a name and a positive partition count, got %d", tp.Name, tp.Partitions)
		}
		entries := []kafkago.ConfigEntry{maxBytes}
		if tp.Compacted {
			entries = append(entries, kafkago.ConfigEntry{ConfigName: "cleanup.policy", ConfigValue: "compact"})
		}
		req = append(req,
			kafkago.TopicConfig{Topic: tp.Name, NumPartitions: tp.Partitions, ReplicationFactor: cfg.ReplicationFactor, ConfigEntries: entries},
			kafkago.TopicConfig{Topic: topology.DLT(tp.Name), NumPartitions: topology.DLTPartitions, ReplicationFactor: cfg.ReplicationFactor, ConfigEntries: []kafkago.ConfigEntry{maxBytes}},
		)
		names = append(names, tp.Name, topology.DLT(tp.Name))
	}
	if len(req) == 0 {
		return nil
	}
	resp, err := c.CreateTopics(ctx, &kafkago.CreateTopicsRequest{Topics: req})
	if err != nil {
		return fmt.Errorf("create topics: %w", err)
	}
	var errs []error
	for _, name := range names {
		if e := resp.Errors[name]; e != nil && !errors.Is(e, kafkago.TopicAlreadyExists) {
			errs = append(errs, fmt.Errorf("create topic %s: %w", name, e))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}

	wctx, cancel := context.WithTimeout(ctx, topicsReadyTimeout)
	defer cancel()
	for {
		missing, err := missingTopics(wctx, c, names)
		if err == nil && len(missing) == 0 {
			return nil
		}
		if !sleep(wctx, pollInterval) {
			if err == nil {
				err = fmt.Errorf("%w: %q", ErrMissingTopic, missing)
			}
			return fmt.Errorf("wait for created topics: %w", err)
		}
	}
}

// missingTopics lists the names the cluster does not know, or knows with a
// partition that has no leader yet.
func missingTopics(ctx context.Context, c *kafkago.Client, names []string) ([]string, error) {
	md, err := c.Metadata(ctx, &kafkago.MetadataRequest{Topics: names})
	if err != nil {
		return nil, fmt.Errorf("read topic metadata: %w", err)
	}
	found := map[string]bool{}
	for _, t := range md.Topics {
		switch {
		case t.Error == nil:
			found[t.Name] = len(t.Partitions) > 0 && !slices.ContainsFunc(t.Partitions, leaderless)
		case errors.Is(t.Error, kafkago.UnknownTopicOrPartition), errors.Is(t.Error, kafkago.LeaderNotAvailable):
		default:
			return nil, fmt.Errorf("read metadata of topic %s: %w", t.Name, t.Error)
		}
	}
	var missing []string
	for _, n := range names {
		if !found[n] {
			missing = append(missing, n)
		}
	}
	return missing, nil
}

// leaderless reports a partition without an elected leader.
func leaderless(p kafkago.Partition) bool {
	return p.Error != nil || p.Leader.Host == ""
}

// PartitionLag is where a consumer group stands on one partition.
type PartitionLag struct {
	Topic     string
	Partition int
	// Start is the log start offset, End the high watermark (the offset the
	// next record will get).
	Start, End int64
	// Committed is the group's committed offset (the next record it will
	// read), or -1 when it has committed none.
	Committed int64
}

// Lag is how many records on the partition the group has not finished.
func (p PartitionLag) Lag() int64 {
	from := p.Committed
	if from < p.Start {
		from = p.Start
	}
	return max(0, p.End-from)
}

// Lag reports group's position on every partition of topics, sorted by
// topic and partition. An empty group reads the log offsets alone
// (Committed is then -1): what a dead-letter topic holds, for instance.
func Lag(ctx context.Context, cfg Config, group string, topics []string) ([]PartitionLag, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("lag of %s: %w", group, err)
	}
	cfg = cfg.withDefaults()
	t := newTransport(cfg)
	defer t.CloseIdleConnections()
	return lag(ctx, newClient(cfg, t), group, topics)
}

func lag(ctx context.Context, c *kafkago.Client, group string, topics []string) ([]PartitionLag, error) {
	md, err := c.Metadata(ctx, &kafkago.MetadataRequest{Topics: topics})
	if err != nil {
		return nil, fmt.Errorf("lag of %s: read metadata: %w", group, err)
	}
	parts := map[string][]int{}
	for _, t := range md.Topics {
		if t.Error != nil {
			return nil, fmt.Errorf("lag of %s: topic %s: %w", group, t.Name, t.Error)
		}
		for _, p := range t.Partitions {
			parts[t.Name] = append(parts[t.Name], p.ID)
		}
	}
	// First and last offsets in two requests: a partition named twice in
	// one ListOffsets request is refused by real brokers.
	starts, err := listOffsets(ctx, c, parts, kafkago.FirstOffsetOf)
	if err != nil {
		return nil, fmt.Errorf("lag of %s: %w", group, err)
	}
	ends, err := listOffsets(ctx, c, parts, kafkago.LastOffsetOf)
	if err != nil {
		return nil, fmt.Errorf("lag of %s: %w", group, err)
	}
	committed := map[tp]int64{}
	of := &kafkago.OffsetFetchResponse{}
	if group != "" {
		of, err = c.OffsetFetch(ctx, &kafkago.OffsetFetchRequest{GroupID: group, Topics: parts})
		if err != nil {
			return nil, fmt.Errorf("lag of %s: fetch committed offsets: %w", group, err)
		}
	}
	switch {
	case errors.Is(of.Error, kafkago.GroupIdNotFound):
		// A group that never committed: some brokers say so instead of
		// answering -1 per partition.
		of.Topics = nil
	case of.Error != nil:
		return nil, fmt.Errorf("lag of %s: fetch committed offsets: %w", group, of.Error)
	}
	for topic, ps := range of.Topics {
		for _, p := range ps {
			if errors.Is(p.Error, kafkago.GroupIdNotFound) {
				continue
			}
			if p.Error != nil {
				return nil, fmt.Errorf("lag of %s: committed offset of %s/%d: %w", group, topic, p.Partition, p.Error)
			}
			committed[tp{topic, p.Partition}] = p.CommittedOffset
		}
	}
	var out []PartitionLag
	for topic, ids := range parts {
		for _, id := range ids {
			k := tp{topic, id}
			c, ok := committed[k]
			if !ok {
				c = -1
			}
			out = append(out, PartitionLag{Topic: topic, Partition: id, Start: starts[k], End: ends[k], Committed: c})
		}
	}
	slices.SortFunc(out, func(a, b PartitionLag) int {
		if a.Topic != b.Topic {
			if a.Topic < b.Topic {
				return -1
			}
			return 1
		}
		return a.Partition - b.Partition
	})
	return out, nil
}

type tp struct {
	topic     string
	partition int
}

func listOffsets(ctx context.Context, c *kafkago.Client, parts map[string][]int, req func(int) kafkago.OffsetRequest) (map[tp]int64, error) {
	topics := map[string][]kafkago.OffsetRequest{}
	for topic, ids := range parts {
		for _, id := range ids {
			topics[topic] = append(topics[topic], req(id))
		}
	}
	resp, err := c.ListOffsets(ctx, &kafkago.ListOffsetsRequest{Topics: topics})
	if err != nil {
		return nil, fmt.Errorf("list offsets: %w", err)
	}
	out := map[tp]int64{}
	for topic, ps := range resp.Topics {
		for _, p := range ps {
			if p.Error != nil {
				return nil, fmt.Errorf("list offsets of %s/%d: %w", topic, p.Partition, p.Error)
			}
			// kafka-go files the answer under the timestamp the broker
			// echoes, which brokers set to -1 for both special queries; the
			// field not answered holds -1 or 0, and offsets are never
			// negative, so the largest value is the answer.
			off := max(p.FirstOffset, p.LastOffset)
			for o := range p.Offsets {
				off = max(off, o)
			}
			out[tp{topic, p.Partition}] = off
		}
	}
	return out, nil
}

// WaitIdle blocks until every stage's consumer group has finished every
// record on the stage's input topics (committed offset equals the high
// watermark on every partition), polling the broker. Pass the stages
// upstream first: a stage commits only after its outputs are acknowledged,
// so once an upstream stage is idle its outputs are already counted in the
// high watermarks checked for the stages after it. The producers feeding
// the graph must have finished before the call.
func WaitIdle(ctx context.Context, cfg Config, stages ...topology.Stage) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("wait idle: %w", err)
	}
	cfg = cfg.withDefaults()
	t := newTransport(cfg)
	defer t.CloseIdleConnections()
	c := newClient(cfg, t)
	var last error
	for {
		idle, err := allIdle(ctx, c, stages)
		if err == nil && idle {
			return nil
		}
		if err != nil {
			last = err
		}
		if !sleep(ctx, pollInterval) {
			if last != nil {
				return fmt.Errorf("wait idle: %w (last error: %w)", ctx.Err(), last)
			}
			return fmt.Errorf("wait idle: %w", ctx.Err())
		}
	}
}

func allIdle(ctx context.Context, c *kafkago.Client, stages []topology.Stage) (bool, error) {
	for _, s := range stages {
		ls, err := lag(ctx, c, s.Group(), s.Reads)
		if err != nil {
			return false, err
		}
		for _, l := range ls {
			if l.Lag() > 0 {
				return false, nil
			}
		}
	}
	return true, nil
}
