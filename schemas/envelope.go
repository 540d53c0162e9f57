package schemas

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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
	// PartitionKey is the record key (ARCHITECTURE.md §8: documents and chunks by
	// doc_id, triplets by entity, conversation messages by request_id).
	PartitionKey() string
	// Validate reports a message that is well-formed JSON but unusable.
	Validate() error
}

// Meta is the envelope of a message: everything but its body.
type Meta struct {
	Type string
	// Version is the schema version on the wire. A decoded message is the
	// current struct of its type whatever this says (see Registry.Decode).
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

// Decode reads a message from its headers and value with the registry of
// this package's types; see Registry.Decode.
func Decode(headers []Header, value []byte) (Message, Meta, error) {
	return defaultRegistry.Decode(headers, value)
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

// unmarshal decodes exactly one JSON value into v. Fields v does not
// define are ignored: they are additive changes of the same schema version
// that a consumer not yet upgraded must read past (see the package doc).
// Anything else that is not one well-formed value of v's shape is an error.
func unmarshal(data []byte, v any) error {
	if !utf8.Valid(data) {
		return fmt.Errorf("%w: value is not UTF-8", ErrInvalid)
	}
	// Unmarshal refuses trailing data after the value as a syntax error.
	err := json.Unmarshal(data, v)
	if se := (*json.SyntaxError)(nil); errors.As(err, &se) {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return err
}

// Registry maps each message type to the Go struct of its current version
// and to a decoder for every schema version it still reads: the current
// one, decoded straight into that struct, and older ones, each decoded
// into a struct of its own and upgraded to the current one. Decoding thus
// switches on (type, version), and code past the decoder only ever sees
// current structs.
//
// Registration happens before the first Decode and panics on a mistake (a
// version registered twice, an upgrade from a version not older than the
// current one): it runs when the program starts, where a mistake must stop
// it. A registry is safe for concurrent decoding once registration is
// done.
type Registry struct {
	types map[string]*typeVersions
}

// typeVersions is what a registry knows of one type.
type typeVersions struct {
	current  int
	decoders map[int]func([]byte) (Message, error)
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{types: make(map[string]*typeVersions)}
}

// Register makes T the current version of its type: T's MessageType and
// SchemaVersion, read from T's zero value, name the type and the version,
// and Encode writes that version. Register a type's current version before
// its older ones.
func Register[T Message](r *Registry) {
	var zero T
	typ, v := zero.MessageType(), zero.SchemaVersion()
	if typ == "" || v <= 0 {
		panic(fmt.Sprintf("schemas: register %T: type %q version %d", zero, typ, v))
	}
	if _, dup := r.types[typ]; dup {
		panic(fmt.Sprintf("schemas: register %T: type %q is registered already", zero, typ))
	}
	r.types[typ] = &typeVersions{current: v, decoders: map[int]func([]byte) (Message, error){
		v: func(data []byte) (Message, error) {
			var m T
			if err := unmarshal(data, &m); err != nil {
				return nil, err
			}
			return m, nil
		},
	}}
}

// RegisterUpgrade makes an older version of T's type readable: a value of
// that version is decoded into Old, the frozen struct of that version, and
// upgrade turns it into T, the current one. An error of upgrade fails the
// decode like malformed JSON. Register[T] must have been called first.
func RegisterUpgrade[Old any, T Message](r *Registry, version int, upgrade func(Old) (T, error)) {
	var zero T
	typ := zero.MessageType()
	tv, ok := r.types[typ]
	switch {
	case !ok || tv.current != zero.SchemaVersion():
		panic(fmt.Sprintf("schemas: upgrade to %T: register it as the current version of %q first", zero, typ))
	case version <= 0 || version >= tv.current:
		panic(fmt.Sprintf("schemas: upgrade %q from version %d: only versions 1 to %d can be upgraded", typ, version, tv.current-1))
	}
	if _, dup := tv.decoders[version]; dup {
		panic(fmt.Sprintf("schemas: upgrade %q from version %d: registered already", typ, version))
	}
	tv.decoders[version] = func(data []byte) (Message, error) {
		var old Old
		if err := unmarshal(data, &old); err != nil {
			return nil, err
		}
		m, err := upgrade(old)
		if err != nil {
			return nil, fmt.Errorf("upgrade from v%d to v%d: %w", version, tv.current, err)
		}
		return m, nil
	}
}

// Versions lists the schema versions of typ the registry reads, oldest
// first; the last is the current one. It is empty for an unknown type.
func (r *Registry) Versions(typ string) []int {
	tv, ok := r.types[typ]
	if !ok {
		return nil
	}
	out := make([]int, 0, len(tv.decoders))
	for v := range tv.decoders {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// Decode reads a message from its headers and value. The message is the
// current struct of its type, upgraded when the value is of an older
// version; Meta.Version is the version on the wire. Decode fails with an
// error wrapping ErrDecode (and ErrUnknownType, ErrUnknownVersion,
// ErrMissingHeader or ErrInvalid where that is the cause) for anything it
// cannot read whole: the caller dead-letters such a message rather than
// dropping it.
func (r *Registry) Decode(headers []Header, value []byte) (Message, Meta, error) {
	meta, err := ReadMeta(headers)
	if err != nil {
		return nil, meta, err
	}
	m, err := r.decodeBody(meta.Type, meta.Version, value)
	if err != nil {
		return nil, meta, fmt.Errorf("%w: %s v%d: %w", ErrDecode, meta.Type, meta.Version, err)
	}
	if err := m.Validate(); err != nil {
		return nil, meta, fmt.Errorf("%w: %s v%d: %w", ErrDecode, meta.Type, meta.Version, err)
	}
	return m, meta, nil
}

func (r *Registry) decodeBody(typ string, version int, data []byte) (Message, error) {
	tv, ok := r.types[typ]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownType, typ)
	}
	decode, ok := tv.decoders[version]
	if !ok {
		return nil, fmt.Errorf("%w: %s v%d (this build reads %v)", ErrUnknownVersion, typ, version, r.Versions(typ))
	}
	return decode(data)
}

// defaultRegistry reads every type of this package. A breaking change of a
// type adds its previous version here with RegisterUpgrade, for as long as
// the package doc's policy keeps it.
var defaultRegistry = newDefaultRegistry()

func newDefaultRegistry() *Registry {
	r := NewRegistry()
	Register[Document](r)
	Register[Chunk](r)
	Register[Triplet](r)
	Register[KGUpdate](r)
	Register[Request](r)
	Register[Draft](r)
	Register[Verdict](r)
	Register[Repair](r)
	Register[Correction](r)
	Register[Review](r)
	Register[Page](r)
	Register[Retraction](r)
	Register[Discussion](r)
	Register[FeedItem](r)
	return r
}
