package schemas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Header names carried by every message.
const (
	HeaderType          = "type"
	HeaderSchemaVersion = "schema_version"
	HeaderEventID       = "event_id"
	HeaderTraceID       = "trace_id"
	HeaderTenant        = "tenant"
)

// DefaultTenant is the tenant of messages that name none.
const DefaultTenant = "default"

// Sentinel errors of the codec. Every decode error wraps ErrDecode as well,
// so a caller can branch on "this message can never be read" without
// listing the causes.
var (
	ErrDecode         = errors.New("decode message")
	ErrUnknownType    = errors.New("unknown message type")
	ErrUnknownVersion = errors.New("unknown schema version")
	ErrMissingHeader  = errors.New("missing header")
	ErrInvalid        = errors.New("invalid message")
)

// Header is one Kafka record header. It mirrors the broker client's type so
// this package stays free of SDK imports.
type Header struct {
	Key   string
	Value []byte
}

// Message is implemented by every type that travels on a topic.
type Message interface {
	// MessageType is the value of the type header, e.g. "chunk".
	MessageType() string
	// SchemaVersion is the value of the schema_version header.
	SchemaVersion() int
	// PartitionKey is the record key (DESIGN §5: documents and chunks by
	// doc_id, triplets by entity, conversation messages by request_id).
	PartitionKey() string
	// Validate reports a message that is well-formed JSON but unusable.
	Validate() error
}

// Meta is the envelope of a message: everything but its body.
type Meta struct {
	Type    string
	Version int
	// EventID is assigned by the producer and stable across retries; it is
	// what idempotency markers are keyed by.
	EventID string
	TraceID string
	Tenant  string
}

// Encode frames m for a topic: key, JSON value and envelope headers. Type and
// version come from m; EventID is required; TraceID and Tenant default to
// EventID and DefaultTenant.
func Encode(m Message, meta Meta) (key, value []byte, headers []Header, err error) {
	if m == nil {
		return nil, nil, nil, fmt.Errorf("encode: %w: nil message", ErrInvalid)
	}
	if meta.EventID == "" {
		return nil, nil, nil, fmt.Errorf("encode %s: %w: %q", m.MessageType(), ErrMissingHeader, HeaderEventID)
	}
	if err := m.Validate(); err != nil {
		return nil, nil, nil, fmt.Errorf("encode %s: %w", m.MessageType(), err)
	}
	value, err = json.Marshal(m)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("encode %s: %w", m.MessageType(), err)
	}
	if meta.TraceID == "" {
		meta.TraceID = meta.EventID
	}
	if meta.Tenant == "" {
		meta.Tenant = DefaultTenant
	}
	headers = []Header{
		{Key: HeaderType, Value: []byte(m.MessageType())},
		{Key: HeaderSchemaVersion, Value: []byte(strconv.Itoa(m.SchemaVersion()))},
		{Key: HeaderEventID, Value: []byte(meta.EventID)},
		{Key: HeaderTraceID, Value: []byte(meta.TraceID)},
		{Key: HeaderTenant, Value: []byte(meta.Tenant)},
	}
	return []byte(m.PartitionKey()), value, headers, nil
}

// Decode reads a message from its headers and value. It fails with an error
// wrapping ErrDecode (and ErrUnknownType, ErrUnknownVersion, ErrMissingHeader
// or ErrInvalid where that is the cause) for anything it cannot read whole:
// the caller dead-letters such a message rather than dropping it.
func Decode(headers []Header, value []byte) (Message, Meta, error) {
	meta, err := ReadMeta(headers)
	if err != nil {
		return nil, meta, err
	}
	m, err := decodeBody(meta.Type, meta.Version, value)
	if err != nil {
		return nil, meta, fmt.Errorf("%w: %s v%d: %w", ErrDecode, meta.Type, meta.Version, err)
	}
	if err := m.Validate(); err != nil {
		return nil, meta, fmt.Errorf("%w: %s v%d: %w", ErrDecode, meta.Type, meta.Version, err)
	}
	return m, meta, nil
}

// ReadMeta reads the envelope headers alone. The last occurrence of a
// header wins, as in Kafka's own header semantics for repeated keys.
func ReadMeta(headers []Header) (Meta, error) {
	var meta Meta
	var version string
	for _, h := range headers {
		switch h.Key {
		case HeaderType:
			meta.Type = string(h.Value)
		case HeaderSchemaVersion:
			version = string(h.Value)
		case HeaderEventID:
			meta.EventID = string(h.Value)
		case HeaderTraceID:
			meta.TraceID = string(h.Value)
		case HeaderTenant:
			meta.Tenant = string(h.Value)
		}
	}
	for _, req := range []struct{ name, v string }{
		{HeaderType, meta.Type}, {HeaderSchemaVersion, version}, {HeaderEventID, meta.EventID},
	} {
		if req.v == "" {
			return meta, fmt.Errorf("%w: %w: %q", ErrDecode, ErrMissingHeader, req.name)
		}
	}
	v, err := strconv.Atoi(version)
	if err != nil || v <= 0 {
		return meta, fmt.Errorf("%w: %w: %q", ErrDecode, ErrUnknownVersion, version)
	}
	meta.Version = v
	if meta.Tenant == "" {
		meta.Tenant = DefaultTenant
	}
	if !validTenant(meta.Tenant) {
		return meta, fmt.Errorf("%w: %w: tenant %q", ErrDecode, ErrInvalid, meta.Tenant)
	}
	if meta.TraceID == "" {
		meta.TraceID = meta.EventID
	}
	return meta, nil
}

// validTenant accepts the names that can be embedded in a Redis key between
// braces: 1–64 characters of letters, digits, '-', '_' and '.'.
func validTenant(t string) bool {
	if len(t) == 0 || len(t) > 64 {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// ValidTenant reports whether t may be used as a tenant name.
func ValidTenant(t string) bool { return validTenant(t) }

// strictUnmarshal decodes exactly one JSON object with no unknown fields:
// a field a version does not define is a different version.
func strictUnmarshal(data []byte, v any) error {
	if !utf8.Valid(data) {
		return fmt.Errorf("%w: value is not UTF-8", ErrInvalid)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("%w: trailing data after the JSON value", ErrInvalid)
	}
	return nil
}

func decodeInto[T Message](data []byte) (Message, error) {
	var m T
	if err := strictUnmarshal(data, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// decodeBody switches on (type, version). Adding a version means adding a
// case here and keeping the old one as long as old messages may be read.
func decodeBody(typ string, version int, data []byte) (Message, error) {
	type tv struct {
		t string
		v int
	}
	switch (tv{typ, version}) {
	case tv{TypeDocument, 1}:
		return decodeInto[Document](data)
	case tv{TypeChunk, 1}:
		return decodeInto[Chunk](data)
	case tv{TypeTriplet, 1}:
		return decodeInto[Triplet](data)
	case tv{TypeKGUpdate, 1}:
		return decodeInto[KGUpdate](data)
	case tv{TypeRequest, 1}:
		return decodeInto[Request](data)
	case tv{TypeDraft, 1}:
		return decodeInto[Draft](data)
	case tv{TypeVerdict, 1}:
		return decodeInto[Verdict](data)
	case tv{TypeRepair, 1}:
		return decodeInto[Repair](data)
	case tv{TypeCorrection, 1}:
		return decodeInto[Correction](data)
	case tv{TypeReview, 1}:
		return decodeInto[Review](data)
	case tv{TypePage, 1}:
		return decodeInto[Page](data)
	}
	if knownType(typ) {
		return nil, fmt.Errorf("%w: %s v%d", ErrUnknownVersion, typ, version)
	}
	return nil, fmt.Errorf("%w: %q", ErrUnknownType, typ)
}

func knownType(t string) bool {
	for _, k := range Types() {
		if k == t {
			return true
		}
	}
	return false
}
