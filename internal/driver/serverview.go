package driver

import (
	"context"

	"github.com/fairbench/fairbench/internal/result"
)

// ServerViewer is the optional capability of a client to sample the server's
// own statistics while a run is measured: what the server was doing, so that
// a report can say why two targets differ, not only by how much. Engine
// knowledge (which views, which counters, which privilege) stays in the
// driver.
type ServerViewer interface {
	// ServerView opens a sampler on its own connection. A missing privilege
	// or a disabled facility never fails: the sampler samples what it can
	// and Unavailable says what would enable the rest.
	ServerView(ctx context.Context) (ServerSampler, error)
}

// ServerSampler takes samples of one target's statistics.
type ServerSampler interface {
	// Sample takes one sample now. It must be cheap for the server (the
	// runner samples at an interval chosen to cost it at most 1 %).
	Sample(ctx context.Context) (result.EngineSample, error)
	// Unavailable lists one line per part of the view the sampler cannot
	// read, each naming the grant or setting that would enable it
	// ("pg_stat_activity of other users: GRANT pg_monitor TO bench").
	Unavailable() []string
	// Units names the unit of counters and gauges that are not counts.
	Units() result.EngineMetricUnit
	Close(ctx context.Context) error
}
