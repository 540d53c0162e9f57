package pipelinetest_test

import (
	"reflect"
	"testing"

	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/pipeline/pipelinetest"
	"github.com/annalist-dev/annalist/schemas"
)

func TestInput(t *testing.T) {
	doc := schemas.Document{DocID: "d", Text: "x"}
	got := pipelinetest.Input(doc, pipelinetest.Tenant("acme"), pipelinetest.Event("e1"), pipelinetest.Trace("tr"),
		pipelinetest.Topic("documents"), pipelinetest.Partition(2), pipelinetest.Offset(7))
	want := pipeline.Input{
		Meta: schemas.Meta{Type: doc.MessageType(), Version: doc.SchemaVersion(), EventID: "e1", TraceID: "tr", Tenant: "acme"},
		Msg:  doc, Topic: "documents", Partition: 2, Offset: 7,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Input = %+v, want %+v", got, want)
	}
	if bare := pipelinetest.Input(doc); bare.Meta.EventID != "" || bare.Meta.Tenant != "" || bare.Topic != "" || bare.Offset != 0 {
		t.Errorf("Input without options = %+v, want only the message and its type", bare)
	}
}

func TestInputNil(t *testing.T) {
	for _, m := range []schemas.Message{nil, (*schemas.Document)(nil)} {
		if in := pipelinetest.Input(m, pipelinetest.Event("e")); in.Meta.Type != "" || in.Meta.EventID != "e" {
			t.Errorf("Input(%#v) = %+v", m, in)
		}
	}
}

func TestInputs(t *testing.T) {
	ts := []schemas.Triplet{{TripletID: "a"}, {TripletID: "b"}}
	ins := pipelinetest.Inputs(ts, "ev", pipelinetest.Options(pipelinetest.Topic("triplets"), pipelinetest.Partition(1)))
	if len(ins) != 2 {
		t.Fatalf("%d inputs, want 2", len(ins))
	}
	for i, in := range ins {
		if in.Meta.EventID != []string{"ev0", "ev1"}[i] || in.Offset != int64(i) || in.Topic != "triplets" || in.Partition != 1 ||
			in.Msg.(schemas.Triplet).TripletID != ts[i].TripletID {
			t.Errorf("input %d = %+v", i, in)
		}
	}
}
