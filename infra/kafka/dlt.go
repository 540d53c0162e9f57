package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"
	kafkago "github.com/segmentio/kafka-go"

	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// Dead letters are not a grave: ListDeadLetters shows what a dead-letter
// topic holds and why, ReplayDeadLetters publishes dead letters to their
// original topic again once the cause is fixed.
//
// A DLT record is never deleted (Kafka has no delete). What was replayed is
// recorded in a ReplayMarks store (Redis: one key per DLT record), so a
// second replay skips it and `dlt list` says it was replayed. A replay
// publishes first and marks second: a crash between the two leaves the
// record unmarked, and the next replay publishes it again under the same
// event id, which the stage's seen: marker makes a no-op once the first
// copy was handled. Dead-lettered inputs get no seen: marker, so the
// replayed copy is handled. Every group reading the topic gets the copy;
// the groups that handled the original skip it by its seen: marker (and
// their effects are idempotent upserts once the marker has expired).

// DeadLetter is one record of a dead-letter topic: where the original came
// from, why it was given up, and the original record itself.
type DeadLetter struct {
	// Topic, Partition and Offset are the original record's position.
	Topic     string `json:"topic"`
	Partition int    `json:"partition"`
	Offset    int64  `json:"offset"`
	// DLTPartition and DLTOffset are the dead letter's own position in
	// topology.DLT(Topic): what identifies it for a replay.
	DLTPartition int   `json:"dlt_partition"`
	DLTOffset    int64 `json:"dlt_offset"`
	// Group is the consumer group that gave up, Error why, Attempts how
	// many handler calls were made (0: it could not be decoded).
	Group     string `json:"group"`
	Error     string `json:"error"`
	Permanent bool   `json:"permanent"`
	Attempts  int    `json:"attempts"`
	// Time is when it was dead-lettered (the DLT record's timestamp).
	Time time.Time `json:"time"`
	// EventID and Type come from the original headers (empty when absent).
	EventID string `json:"event_id,omitempty"`
	Type    string `json:"type,omitempty"`
	// Tenant is the original's tenant header (schemas.DefaultTenant when
	// it names none).
	Tenant string `json:"tenant"`
	// Key and Value are the original record's bytes; JSON shows them as
	// text (invalid UTF-8 replaced), a replay sends the bytes.
	Key   string `json:"key"`
	Value string `json:"value"`
	// Replayed is true when a replay has published it again.
	Replayed bool `json:"replayed"`

	nilKey  bool
	headers []kafkago.Header // the original headers, without dlt_*
}

// DLTPosition is a dead letter's partition and offset in its DLT.
type DLTPosition struct {
	Partition int
	Offset    int64
}

func (p DLTPosition) String() string {
	return strconv.Itoa(p.Partition) + ":" + strconv.FormatInt(p.Offset, 10)
}

// ParseDLTPosition parses "PARTITION:OFFSET".
func ParseDLTPosition(s string) (DLTPosition, error) {
	ps, os, ok := strings.Cut(s, ":")
	p, err1 := strconv.Atoi(ps)
	o, err2 := strconv.ParseInt(os, 10, 64)
	if !ok || err1 != nil || err2 != nil || p < 0 || o < 0 {
		return DLTPosition{}, fmt.Errorf("dead-letter position %q: want PARTITION:OFFSET, both non-negative integers", s)
	}
	return DLTPosition{Partition: p, Offset: o}, nil
}

// ParseSince parses a --since value: an RFC 3339 time, or a duration (1h,
// 30m) counted back from now. Empty is the zero time (everything).
func ParseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return time.Time{}, fmt.Errorf("since %q: want an RFC 3339 time or a non-negative duration such as 1h", s)
	}
	return now.Add(-d), nil
}

// ErrUnknownTopic is returned for a topic the topology does not declare.
var ErrUnknownTopic = errors.New("unknown topic")

// DLTTopics resolves a topic argument: "all" is every topic of the
// topology, anything else must be one of its topics (the original name,
// not the .dlt one).
func DLTTopics(arg string) ([]string, error) {
	if arg == "all" {
		var out []string
		for _, t := range topology.Topics() {
			out = append(out, t.Name)
		}
		return out, nil
	}
	if _, ok := topology.LookupTopic(arg); !ok {
		return nil, fmt.Errorf("%w %q: want a topic of `annalist topology` (the original name, not its .dlt) or all", ErrUnknownTopic, arg)
	}
	return []string{arg}, nil
}

// DLTQuery selects dead letters.
type DLTQuery struct {
	// Topics are original topic names; their DLTs are read.
	Topics []string
	// Since keeps dead letters whose DLT timestamp is not before it (zero:
	// all).
	Since time.Time
	// Positions keeps only these DLT positions (empty: all). With more than
	// one topic a position selects in each.
	Positions []DLTPosition
	// Tenant keeps one tenant's dead letters (empty: every tenant's).
	Tenant string
	// Limit keeps the first Limit (0: no limit), in topic, partition and
	// offset order.
	Limit int
}

func (q DLTQuery) keep(dl DeadLetter) bool {
	if !q.Since.IsZero() && dl.Time.Before(q.Since) {
		return false
	}
	if q.Tenant != "" && dl.Tenant != q.Tenant {
		return false
	}
	if len(q.Positions) > 0 && !slices.Contains(q.Positions, DLTPosition{dl.DLTPartition, dl.DLTOffset}) {
		return false
	}
	return true
}

// ReplayMarks records which dead letters were replayed.
type ReplayMarks interface {
	// Replayed reports, for each position of dltTopic, whether it was
	// replayed.
	Replayed(ctx context.Context, dltTopic string, pos []DLTPosition) ([]bool, error)
	// MarkReplayed records that the dead letter at pos was replayed.
	MarkReplayed(ctx context.Context, dltTopic string, pos DLTPosition) error
}

// ListDeadLetters reads the DLTs of q.Topics (every partition, from the
// log start to the high watermark at the call) and returns the dead letters
// q selects, with Replayed from marks (nil marks: all false). A DLT is
// scanned from its start and filtered by time: dead letters are few, and
// the scan needs no time index from the broker.
func ListDeadLetters(ctx context.Context, cfg Config, marks ReplayMarks, q DLTQuery) ([]DeadLetter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("list dead letters: %w", err)
	}
	cfg = cfg.withDefaults()
	t := newTransport(cfg)
	defer t.CloseIdleConnections()
	c := newClient(cfg, t)
	var out []DeadLetter
	for _, topic := range q.Topics {
		dlt := topology.DLT(topic)
		ls, err := lag(ctx, c, "", []string{dlt})
		if err != nil {
			return nil, fmt.Errorf("list dead letters of %s: %w", topic, err)
		}
		var got []DeadLetter
		for _, l := range ls {
			err := readPartition(ctx, c, cfg, dlt, l.Partition, l.Start, l.End, func(r *kafkago.Record) error {
				dl, err := toDeadLetter(topic, l.Partition, r)
				if err != nil {
					return err
				}
				if q.keep(dl) {
					got = append(got, dl)
				}
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("list dead letters of %s: %w", topic, err)
			}
		}
		if marks != nil && len(got) > 0 {
			pos := make([]DLTPosition, len(got))
			for i, dl := range got {
				pos[i] = DLTPosition{dl.DLTPartition, dl.DLTOffset}
			}
			done, err := marks.Replayed(ctx, dlt, pos)
			if err != nil {
				return nil, fmt.Errorf("list dead letters of %s: replay marks: %w", topic, err)
			}
			for i := range got {
				got[i].Replayed = done[i]
			}
		}
		out = append(out, got...)
		if q.Limit > 0 && len(out) >= q.Limit {
			return out[:q.Limit], nil
		}
	}
	return out, nil
}

// readPartition calls f for each record of topic/partition in [from, to).
func readPartition(ctx context.Context, c *kafkago.Client, cfg Config, topic string, partition int, from, to int64, f func(*kafkago.Record) error) error {
	for off := from; off < to; {
		resp, err := c.Fetch(ctx, &kafkago.FetchRequest{Topic: topic, Partition: partition, Offset: off,
			MinBytes: 1, MaxBytes: int64(2 * cfg.BrokerMaxMessageBytes()), MaxWait: 500 * time.Millisecond})
		if err != nil {
			return fmt.Errorf("fetch %s/%d@%d: %w", topic, partition, off, err)
		}
		if resp.Error != nil {
			return fmt.Errorf("fetch %s/%d@%d: %w", topic, partition, off, resp.Error)
		}
		next := off
		for {
			r, err := resp.Records.ReadRecord()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return fmt.Errorf("read %s/%d@%d: %w", topic, partition, next, err)
			}
			// A fetch may start before the offset asked for.
			if r.Offset < off || r.Offset >= to {
				continue
			}
			if err := f(r); err != nil {
				return err
			}
			next = r.Offset + 1
		}
		if next == off {
			switch {
			case resp.LogStartOffset > off:
				// Retention removed records while we read: go on from
				// the new log start.
				next = resp.LogStartOffset
			case resp.HighWatermark <= off:
				return nil
			default:
				return fmt.Errorf("fetch %s/%d@%d: no records below the end %d", topic, partition, off, to)
			}
		}
		off = next
	}
	return nil
}

func toDeadLetter(topic string, dltPartition int, r *kafkago.Record) (DeadLetter, error) {
	key, err := readBytes(r.Key)
	if err != nil {
		return DeadLetter{}, err
	}
	value, err := readBytes(r.Value)
	if err != nil {
		return DeadLetter{}, err
	}
	dl := DeadLetter{Topic: topic, Partition: -1, Offset: -1, DLTPartition: dltPartition, DLTOffset: r.Offset, Time: r.Time,
		Key: string(key), Value: string(value), nilKey: key == nil}
	// The last occurrence of a dlt_* header is the current one (see
	// deadLetter); the original headers are kept in order.
	for _, h := range r.Headers {
		v := string(h.Value)
		switch h.Key {
		case HeaderDLTError:
			dl.Error = v
		case HeaderDLTPermanent:
			dl.Permanent = v == "true"
		case HeaderDLTTopic:
			if v != "" {
				dl.Topic = v
			}
		case HeaderDLTPartition:
			if n, err := strconv.Atoi(v); err == nil {
				dl.Partition = n
			}
		case HeaderDLTOffset:
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				dl.Offset = n
			}
		case HeaderDLTGroup:
			dl.Group = v
		case HeaderDLTAttempts:
			if n, err := strconv.Atoi(v); err == nil {
				dl.Attempts = n
			}
		default:
			switch h.Key {
			case schemas.HeaderEventID:
				dl.EventID = v
			case schemas.HeaderType:
				dl.Type = v
			case schemas.HeaderTenant:
				dl.Tenant = v
			}
			dl.headers = append(dl.headers, kafkago.Header{Key: h.Key, Value: slices.Clone(h.Value)})
		}
	}
	if dl.Tenant == "" {
		dl.Tenant = schemas.DefaultTenant
	}
	return dl, nil
}

func readBytes(b kafkago.Bytes) ([]byte, error) {
	if b == nil {
		return nil, nil
	}
	v, err := kafkago.ReadAll(b)
	if err != nil {
		return nil, fmt.Errorf("read record bytes: %w", err)
	}
	if v == nil {
		v = []byte{}
	}
	return v, nil
}

// ReplayResult is what a replay did.
type ReplayResult struct {
	// Replayed are the dead letters published again by this call.
	Replayed []DeadLetter `json:"replayed"`
	// Skipped counts the selected dead letters an earlier replay had
	// published already.
	Skipped int `json:"skipped"`
}

// ReplayDeadLetters publishes the dead letters q selects that were not
// replayed yet to their original topics, with their original key, value
// and headers (the dlt_* ones removed, the event id kept), acks=all, and
// then marks them replayed. marks is required: without it a replay could
// not tell what it already did. q.Limit is ignored.
func ReplayDeadLetters(ctx context.Context, cfg Config, marks ReplayMarks, q DLTQuery) (ReplayResult, error) {
	res := ReplayResult{Replayed: []DeadLetter{}}
	if marks == nil {
		return res, errors.New("replay dead letters: no replay marks store")
	}
	q.Limit = 0
	dls, err := ListDeadLetters(ctx, cfg, marks, q)
	if err != nil {
		return res, err
	}
	var todo []DeadLetter
	var msgs []kafkago.Message
	for _, dl := range dls {
		if dl.Replayed {
			res.Skipped++
			continue
		}
		m := kafkago.Message{Topic: dl.Topic, Value: []byte(dl.Value), Headers: dl.headers}
		if !dl.nilKey {
			m.Key = []byte(dl.Key)
		}
		todo = append(todo, dl)
		msgs = append(msgs, m)
	}
	if len(msgs) == 0 {
		return res, nil
	}
	cfg = cfg.withDefaults()
	t := newTransport(cfg)
	defer t.CloseIdleConnections()
	w := newWriter(cfg, t, zerolog.Nop())
	err = writeRetrying(ctx, w, cfg, msgs, max(cfg.RetryAttempts, 1), zerolog.Nop())
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return res, fmt.Errorf("replay %d dead letters: %w", len(msgs), err)
	}
	for _, dl := range todo {
		if err := marks.MarkReplayed(ctx, topology.DLT(dl.Topic), DLTPosition{dl.DLTPartition, dl.DLTOffset}); err != nil {
			return res, fmt.Errorf("replayed %d dead letters, but marking them failed (a replay again is safe: the event ids are kept): %w", len(todo), err)
		}
		dl.Replayed = true
		res.Replayed = append(res.Replayed, dl)
	}
	return res, nil
}

// DeadLetterCounts returns how many records each topic's DLT holds (log
// start to high watermark, replayed ones included), by original topic.
func DeadLetterCounts(ctx context.Context, cfg Config, topics []string) (map[string]int64, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("count dead letters: %w", err)
	}
	cfg = cfg.withDefaults()
	t := newTransport(cfg)
	defer t.CloseIdleConnections()
	dlts := make([]string, len(topics))
	for i, tp := range topics {
		dlts[i] = topology.DLT(tp)
	}
	ls, err := lag(ctx, newClient(cfg, t), "", dlts)
	if err != nil {
		return nil, fmt.Errorf("count dead letters: %w", err)
	}
	out := make(map[string]int64, len(topics))
	for _, tp := range topics {
		out[tp] = 0
	}
	for _, l := range ls {
		out[strings.TrimSuffix(l.Topic, topology.DLTSuffix)] += l.End - l.Start
	}
	return out, nil
}

// DeadLetters is the dead-letter view of one cluster: the functions above
// bound to a config and a marker store, for the CLI and the HTTP API.
type DeadLetters struct {
	Config Config
	Marks  ReplayMarks
}

// List is ListDeadLetters.
func (d DeadLetters) List(ctx context.Context, q DLTQuery) ([]DeadLetter, error) {
	return ListDeadLetters(ctx, d.Config, d.Marks, q)
}

// Replay is ReplayDeadLetters.
func (d DeadLetters) Replay(ctx context.Context, q DLTQuery) (ReplayResult, error) {
	return ReplayDeadLetters(ctx, d.Config, d.Marks, q)
}

// Counts is DeadLetterCounts.
func (d DeadLetters) Counts(ctx context.Context, topics []string) (map[string]int64, error) {
	return DeadLetterCounts(ctx, d.Config, topics)
}
