package nodeexp

import (
	"context"
	"time"

	"github.com/fairbench/fairbench/internal/result"
)

// Idle scrapes the exporter twice, window apart, and returns the server
// host's sample between: taken while fairbench sends nothing, its CPU is
// what the host does without the benchmark (the database's background work,
// and whatever else runs there).
func (s *Sampler) Idle(ctx context.Context, window time.Duration) (*result.ServerSample, error) {
	a, err := s.scrape(ctx)
	if err != nil {
		return nil, err
	}
	select {
	case <-time.After(window):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	b, err := s.scrape(ctx)
	if err != nil {
		return nil, err
	}
	return between(a, b), nil
}
