// Package pipelinetest builds pipeline.Input values for tests of handlers
// and middleware, so that every test states the same way which message it
// feeds a stage and under which tenant, event id and position.
//
// Only tests may import it: layers_test.go keeps *test packages out of the
// binary.
package pipelinetest

import (
	"fmt"
	"reflect"

	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// Option sets one field of an input built by Input.
type Option func(*pipeline.Input)

// Input returns msg as the runtime hands it to a handler. Meta.Type and
// Meta.Version are msg's own (left empty for a nil message); tenant, event
// id, trace id, topic, partition and offset are zero unless an option sets
// them.
func Input(msg schemas.Message, opts ...Option) pipeline.Input {
	in := pipeline.Input{Msg: msg}
	if !isNil(msg) {
		in.Meta.Type, in.Meta.Version = msg.MessageType(), msg.SchemaVersion()
	}
	for _, o := range opts {
		o(&in)
	}
	return in
}

// Inputs returns one input per message, in order: the i-th has event id
// prefix followed by i, offset i, and the options.
func Inputs[M schemas.Message](msgs []M, prefix string, opts ...Option) []pipeline.Input {
	ins := make([]pipeline.Input, len(msgs))
	for i, m := range msgs {
		ins[i] = Input(m, append([]Option{Event(fmt.Sprint(prefix, i)), Offset(int64(i))}, opts...)...)
	}
	return ins
}

// Options is the options applied in order, as one.
func Options(opts ...Option) Option {
	return func(in *pipeline.Input) {
		for _, o := range opts {
			o(in)
		}
	}
}

// Tenant sets Meta.Tenant.
func Tenant(tenant string) Option { return func(in *pipeline.Input) { in.Meta.Tenant = tenant } }

// Event sets Meta.EventID.
func Event(id string) Option { return func(in *pipeline.Input) { in.Meta.EventID = id } }

// Trace sets Meta.TraceID.
func Trace(id string) Option { return func(in *pipeline.Input) { in.Meta.TraceID = id } }

// Topic sets the topic the input was read from.
func Topic(topic string) Option { return func(in *pipeline.Input) { in.Topic = topic } }

// Partition sets the partition the input was read from.
func Partition(p int) Option { return func(in *pipeline.Input) { in.Partition = p } }

// Offset sets the input's offset in its partition.
func Offset(off int64) Option { return func(in *pipeline.Input) { in.Offset = off } }

// isNil reports whether m is nil or a nil pointer, whose methods with value
// receivers would panic.
func isNil(m schemas.Message) bool {
	if m == nil {
		return true
	}
	v := reflect.ValueOf(m)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
