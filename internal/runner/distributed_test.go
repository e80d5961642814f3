package runner

import "testing"

// Clients split over generators as evenly as can be, in contiguous slots
// that cover every client once.
func TestShareSplitsClientsEvenly(t *testing.T) {
	for _, c := range []struct{ clients, n int }{{8, 4}, {10, 4}, {5, 2}, {4, 4}, {7, 3}, {100, 7}} {
		next := 0
		for i := range c.n {
			base, count := share(c.clients, c.n, i)
			if base != next {
				t.Errorf("%d over %d: generator %d starts at slot %d, want %d", c.clients, c.n, i, base, next)
			}
			if lo := c.clients / c.n; count < lo || count > lo+1 {
				t.Errorf("%d over %d: generator %d has %d clients", c.clients, c.n, i, count)
			}
			next += count
		}
		if next != c.clients {
			t.Errorf("%d over %d: the shares cover %d clients", c.clients, c.n, next)
		}
	}
}
