package kafka

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	kafkago "github.com/segmentio/kafka-go"
)

func TestDeadLetterHeaders(t *testing.T) {
	orig := kafkago.Message{
		Topic: "chunks", Partition: 5, Offset: 1234, Key: []byte("doc-1"), Value: []byte(`{"x":1}`),
		Headers: []kafkago.Header{{Key: "type", Value: []byte("chunk")}, {Key: HeaderDLTError, Value: []byte("an older failure")}},
	}
	d := deadLetter(orig, "annalist.extractor", errors.New("extract: boom"), false, 5)
	if d.Topic != "chunks.dlt" || string(d.Key) != "doc-1" || string(d.Value) != `{"x":1}` {
		t.Fatalf("dead letter %s key %q value %q", d.Topic, d.Key, d.Value)
	}
	last := map[string]string{}
	for _, h := range d.Headers {
		last[h.Key] = string(h.Value)
	}
	want := map[string]string{
		"type":             "chunk",
		HeaderDLTError:     "extract: boom",
		HeaderDLTPermanent: "false",
		HeaderDLTTopic:     "chunks",
		HeaderDLTPartition: "5",
		HeaderDLTOffset:    "1234",
		HeaderDLTGroup:     "annalist.extractor",
		HeaderDLTAttempts:  "5",
	}
	for k, v := range want {
		if last[k] != v {
			t.Errorf("header %s = %q, want %q", k, last[k], v)
		}
	}
	if d.Headers[0].Key != "type" || string(d.Headers[1].Value) != "an older failure" {
		t.Errorf("original headers not kept first, in order: %v", d.Headers[:2])
	}
	if len(orig.Headers) != 2 {
		t.Errorf("the original record's headers were modified")
	}
}

func TestDeadLetterTruncatesError(t *testing.T) {
	long := strings.Repeat("错", MaxDLTErrorBytes) // 3 bytes a rune: the cut falls inside one
	d := deadLetter(kafkago.Message{Topic: "t"}, "g", errors.New(long), true, 1)
	for _, h := range d.Headers {
		if h.Key == HeaderDLTError {
			if len(h.Value) > MaxDLTErrorBytes || !utf8.Valid(h.Value) {
				t.Fatalf("error header of %d bytes, valid UTF-8 %v", len(h.Value), utf8.Valid(h.Value))
			}
			return
		}
	}
	t.Fatal("no error header")
}
