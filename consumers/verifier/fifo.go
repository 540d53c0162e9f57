package verifier

import "sync"

// fifo is a bounded map safe for concurrent use: past its size, the key
// stored first goes.
type fifo[V any] struct {
	size  int
	mu    sync.Mutex
	items map[uint64]V
	order []uint64
}

func newFIFO[V any](size int) *fifo[V] { return &fifo[V]{size: size, items: map[uint64]V{}} }

// get returns the value stored under key.
func (c *fifo[V]) get(key uint64) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.items[key]
	return v, ok
}

// add stores v under key unless a value is there, and returns the one
// stored.
func (c *fifo[V]) add(key uint64, v V) V {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.items[key]; ok {
		return old
	}
	if len(c.order) >= c.size {
		delete(c.items, c.order[0])
		c.order = c.order[1:]
	}
	c.items[key] = v
	c.order = append(c.order, key)
	return v
}
