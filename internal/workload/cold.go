package workload

import (
	"context"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
)

// Cold makes the next try a cold one: it runs what the target's study entry
// asks for (its restart, a drop of the host's page cache) and, after a
// restart, waits for the server to answer again. before names the query the
// try is of, for the record. It returns a session to run the try on when
// the one the caller had was lost to the restart, nil when that one still
// serves. An error ends the run: the runner fails it, naming the command.
type Cold func(ctx context.Context, before string) (driver.Conn, error)

// ColdTrier is optional: an instance whose runs have cold tries (a query
// set's first try of each query, ClickBench's and SSB's). When the target
// has a way to make a try cold, the runner gives it to UseCold, once, when
// it binds the cell, before Prepare, with the longest one call of cold may
// take (the run's bound must allow for it once per query; the runner reads
// the instance's Shape again after UseCold); UseCold says whether the run
// will use it (false: its runs have no cold tries, such as a query set's
// concurrent mode). A run that uses it is recorded as having true cold tries
// (result.Summary.ColdBy); for any other run, the runner restarts the
// target and drops the caches once, before the run's setup.
type ColdTrier interface {
	UseCold(cold Cold, most time.Duration) bool
}
