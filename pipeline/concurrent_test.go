package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// request is a step of request id: a draft, keyed by its request.
func request(id string, step int) pipeline.Input {
	return pipeline.Input{Meta: schemas.Meta{Tenant: "t"}, Msg: schemas.Draft{RequestID: id, Kind: "biography", Subject: fmt.Sprint(step)}}
}

// TestConcurrentKeepsEachKeysOrder: inputs of one key are handled in
// order, one at a time, inputs of two keys side by side, and the outputs
// come back in input order.
func TestConcurrentKeepsEachKeysOrder(t *testing.T) {
	var mu sync.Mutex
	seen := map[string][]string{}
	inFlight := map[string]int{}
	// Both keys' first inputs must be in flight together before either
	// goes on: handled one after the other, the batch would never finish.
	var arrived sync.WaitGroup
	arrived.Add(2)
	h := func(ctx context.Context, in pipeline.Input) ([]pipeline.Output, error) {
		r := in.Msg.(schemas.Draft)
		mu.Lock()
		inFlight[r.RequestID]++
		if inFlight[r.RequestID] > 1 {
			t.Errorf("two inputs of %s in flight", r.RequestID)
		}
		seen[r.RequestID] = append(seen[r.RequestID], r.Subject)
		first := len(seen[r.RequestID]) == 1
		mu.Unlock()
		if first {
			arrived.Done()
			done := make(chan struct{})
			go func() { arrived.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Error("the two keys were not handled side by side")
			}
		}
		mu.Lock()
		inFlight[r.RequestID]--
		mu.Unlock()
		return []pipeline.Output{{Topic: "out", Msg: r}}, nil
	}
	ins := []pipeline.Input{request("a", 1), request("b", 1), request("a", 2), request("a", 3), request("b", 2)}
	out, err := pipeline.Concurrent(h, 4)(context.Background(), ins)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen["a"], []string{"1", "2", "3"}) || !slices.Equal(seen["b"], []string{"1", "2"}) {
		t.Errorf("order per key: %v", seen)
	}
	for i, o := range out {
		want := ins[i].Msg.(schemas.Draft)
		if len(o) != 1 || o[0].Msg.(schemas.Draft).RequestID != want.RequestID || o[0].Msg.(schemas.Draft).Subject != want.Subject {
			t.Errorf("output %d: %+v, want %+v", i, o, want)
		}
	}
}

// TestConcurrentStopsOnError: the first failing input's error is returned
// and its key's later inputs are not handled.
func TestConcurrentStopsOnError(t *testing.T) {
	var mu sync.Mutex
	var handled []string
	boom := errors.New("boom")
	h := func(ctx context.Context, in pipeline.Input) ([]pipeline.Output, error) {
		r := in.Msg.(schemas.Draft)
		mu.Lock()
		handled = append(handled, r.RequestID+r.Subject)
		mu.Unlock()
		if r.RequestID == "a" && r.Subject == "2" {
			return nil, boom
		}
		return nil, nil
	}
	ins := []pipeline.Input{request("a", 1), request("a", 2), request("a", 3)}
	if _, err := pipeline.Concurrent(h, 4)(context.Background(), append(ins, request("b", 1))); !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	if slices.Contains(handled, "a3") {
		t.Errorf("handled after the error: %v", handled)
	}
}

// TestConcurrentPanicsInTheCaller: a handler's panic is raised again in
// the goroutine that called the batch, where the runtime recovers it.
func TestConcurrentPanicsInTheCaller(t *testing.T) {
	h := func(ctx context.Context, in pipeline.Input) ([]pipeline.Output, error) {
		if in.Msg.(schemas.Draft).RequestID == "b" {
			panic("bad input")
		}
		return nil, nil
	}
	defer func() {
		if v := recover(); v != "bad input" {
			t.Errorf("recovered %v, want the handler's panic", v)
		}
	}()
	_, _ = pipeline.Concurrent(h, 4)(context.Background(), []pipeline.Input{request("a", 1), request("b", 1), request("c", 1)})
	t.Error("no panic")
}
