package tpcc_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/testenv"
)

// With keying and think times, the transactions still in their keying time
// when the measured phase ends were never sent: they are neither done nor
// failed, and the run ends with its phase (it once waited out the keying,
// up to 18 s, then counted them failed: "every operation failed (2)").
func TestKeyingTimeEndsWithTheMeasuredPhase(t *testing.T) {
	url := testenv.FreshPostgres(t)
	p := map[string][]any{"warehouses": {1}, "keying_thinking": {true}}
	// Every first keying time is 2 s or more (clause 5.2.5.7): a 1 s phase
	// with no warm-up ends while both clients key.
	st := tpccStudy(url, p, 2, 0, time.Second)
	cells, err := st.Plan(runner.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	sink := &runner.MemorySink{}
	r := runner.New(st, runner.Options{Sink: sink, Progress: testWriter{t}})
	if err := r.Prepare(context.Background(), cells[0]); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = r.Run(context.Background(), cells)
	if took := time.Since(start); took > testenv.StopDeadline {
		t.Fatalf("a 1 s phase took %v: the keying times outlived it", took)
	}
	if len(sink.Runs) != 1 {
		t.Fatalf("stored %d runs (%v)", len(sink.Runs), err)
	}
	run := sink.Runs[0]
	if run.Summary.Failed != 0 || run.Summary.Transactions != 0 {
		t.Fatalf("%d transactions done, %d failed: none was sent, so none is either (%s)", run.Summary.Transactions, run.Summary.Failed, run.Error)
	}
	if run.Status != result.StatusFailed || !strings.Contains(run.Error, "measure longer than those waits") {
		t.Fatalf("status %s (%q): a run that measured nothing says that its clients were waiting", run.Status, run.Error)
	}
}
