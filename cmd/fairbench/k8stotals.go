package main

import (
	"context"
	"fmt"
	"io"

	"github.com/fairbench/fairbench/internal/escape"
	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/store"
)

// cellTotals follows, in the results store, the cell the coordinator of a
// study is measuring and prints its per-second totals: the readings every
// generator published in its part, added up (runner.SlotTotals). The pods'
// logs are not needed, so it works where the cluster serves none.
type cellTotals struct {
	st     *store.Store
	hash   string // the study's: its coordinator's session is found by it
	name   string // the study's name, should the pods' copy hash otherwise
	prefix string // each line's
	sid    int64
	gens   int
	seq    int
	key    string
	totals *runner.SlotTotals
	failed bool // a reading failed once: said, then quiet
}

// poll prints the totals of every second added up since the last poll.
// Reading the store failing does not fail the run: it is for watching.
func (c *cellTotals) poll(ctx context.Context, log io.Writer) {
	warn := func(err error) {
		if err != nil && !c.failed && ctx.Err() == nil {
			c.failed = true
			fmt.Fprintf(log, "%s: per-second totals: %s\n", c.prefix, redact.Scrub(err.Error()))
		}
	}
	ss, ok, err := c.st.FindSession(ctx, 0, c.hash)
	if err == nil && !ok {
		// The pods read the study from its ConfigMap: a file whose bytes
		// came through YAML otherwise than they went in hashes
		// differently, and its session is still the newest of its name.
		if ss, ok, err = c.st.FindSession(ctx, 0, ""); ok && ss.StudyName != c.name {
			ok = false
		}
	}
	if err != nil || !ok {
		warn(err)
		return
	}
	if ss.ID != c.sid { // the coordinator's session (a restarted coordinator opens a new one)
		c.sid, c.gens, c.seq, c.totals = ss.ID, ss.Generators, 0, nil
	}
	for {
		cc, ok, err := c.st.NextCell(ctx, c.sid, c.seq)
		if err != nil {
			warn(err)
			return
		}
		if !ok {
			break
		}
		c.seq, c.key, c.totals = cc.Seq, cc.CellKey, runner.NewSlotTotals(0, c.gens)
	}
	if c.totals == nil {
		return
	}
	parts, err := c.st.PartProgress(ctx, c.sid, c.seq)
	if err != nil {
		warn(err)
		return
	}
	sums, err := c.totals.Seen(parts)
	warn(err)
	for _, t := range sums {
		phase := ""
		if t.Warmup {
			phase = "warm-up "
		}
		p := t.Point
		fmt.Fprintf(log, "%s: cell %d (%s), %s%.1f s: %.1f ops/s, lat %.3f ms p99 %.3f ms, %d failed, %d generators\n",
			c.prefix, c.seq, escape.Terminal(c.key), phase, t.Elapsed.Seconds(), p.Rate, p.Mean/1000, p.P99/1000, p.Errors, c.gens)
	}
}
