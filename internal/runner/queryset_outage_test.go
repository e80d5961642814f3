package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/queryset"
)

// setWorkload is a query set in the tries mode: queries q1… each tried
// three times in a row.
type setWorkload struct{}

const setQueries = 10

func (setWorkload) Kind() string          { return "fake-queryset" }
func (setWorkload) Description() string   { return "a query set" }
func (setWorkload) Params() []params.Spec { return queryset.Specs() }
func (setWorkload) New(p params.Values) (workload.Instance, error) {
	var names []string
	for i := range setQueries {
		names = append(names, fmt.Sprintf("q%d", i+1))
	}
	s, err := queryset.New(p, names)
	return setInstance{s}, err
}

type setInstance struct{ *queryset.Set }

func (i setInstance) Prepare(context.Context, workload.PrepareEnv) error {
	var qs []queryset.Query
	for _, n := range i.Names() {
		qs = append(qs, queryset.Query{Name: n, SQL: "SELECT " + n})
	}
	return i.Bind(qs)
}

func init() { workload.Register(workload.Plugin{Workload: setWorkload{}}) }

// runSet runs the query set (30 tries) on the pool driver, the tries whose
// call number down names failing with a lost connection.
func runSet(t *testing.T, down func(call int64) bool, edit func(*study.Study)) (*result.Run, error) {
	t.Helper()
	queryCalls.Store(0)
	queryDown = down
	defer func() { queryDown = nil }()
	return runOneWith(t, context.Background(), nil, study.Workload{Kind: "fake-queryset", Clients: []study.ClientLevel{{N: 1}}}, 0, time.Minute,
		func(st *study.Study) {
			st.Targets[0].URL = "fakepool://x"
			if edit != nil {
				edit(st)
			}
		})
}

// A query set whose server goes away after 8 of its 30 tries: the run goes
// on to the end, recording each failed try as null, and is stored as failed
// past max_error_ratio; with that limit lenient, past max_dead_ratio, its
// dead time being the time in which no try succeeded. A brief outage, three
// tries, leaves a run that stands.
func TestQuerySetOutageFailsTheRun(t *testing.T) {
	gone := func(n int64) bool { return n > 8 }
	run, err := runSet(t, gone, nil)
	s := run.Summary
	t.Logf("status %s %q; %d ok, %d failed; dead %d s %v of %s; %d reconnects in %d attempts", run.Status, run.Error,
		s.Transactions, s.Failed, s.DeadSeconds, s.DeadSpans, run.Duration, s.Reconnects, s.ReconnectAttempts)
	if err == nil || run.Status != result.StatusFailed || !strings.Contains(run.Error, "22 of 30 tries failed") || !strings.Contains(run.Error, "max_error_ratio") {
		t.Errorf("status %s, error %q: want failed, 22 of 30 tries past max_error_ratio", run.Status, run.Error)
	}
	if len(s.Queries) != setQueries || s.Transactions != 8 || s.Failed != 22 {
		t.Errorf("%d queries, %d ok and %d failed tries: the run did not go on to its end", len(s.Queries), s.Transactions, s.Failed)
	}
	if s.DeadSeconds == 0 || len(s.DeadSpans) != 1 {
		t.Errorf("dead time %d s %v: want one stall to the end", s.DeadSeconds, s.DeadSpans)
	}
	if s.Reconnects != 0 || s.ReconnectAttempts == 0 {
		t.Errorf("%d reconnects in %d attempts: want attempts and no reconnect", s.Reconnects, s.ReconnectAttempts)
	}

	lenient := 0.9
	run, err = runSet(t, gone, func(st *study.Study) { st.MaxErrorRatio = &lenient })
	if err == nil || run.Status != result.StatusFailed || !strings.Contains(run.Error, "no try succeeded in") || !strings.Contains(run.Error, "max_dead_ratio") {
		t.Errorf("status %s, error %q: want failed past max_dead_ratio", run.Status, run.Error)
	}

	run, err = runSet(t, func(n int64) bool { return n > 8 && n <= 11 }, nil)
	s = run.Summary
	if err != nil || run.Status != result.StatusOK || s.Failed != 3 {
		t.Errorf("status %s %q, %d failed tries: want a run that stands with 3 nulls", run.Status, run.Error, s.Failed)
	}
	if s.Reconnects != 1 || s.ReconnectAttempts != 3 {
		t.Errorf("%d reconnects in %d attempts, want 1 in 3", s.Reconnects, s.ReconnectAttempts)
	}
}

// A query set's stalls become dead seconds: their total length, and the
// progress seconds they touch as spans.
func TestStallSeconds(t *testing.T) {
	start := time.Now()
	at := func(s float64) time.Time { return start.Add(time.Duration(s * float64(time.Second))) }
	spans, n := stallSeconds([]workload.Stall{{From: at(3.2), To: at(9.7)}, {From: at(10.1), To: at(10.3)}, {From: at(20), To: at(20.4)}}, start)
	if n != 7 || fmt.Sprint(spans) != "[[4 11] [21 21]]" {
		t.Errorf("%d dead seconds %v, want 7 in [[4 11] [21 21]]", n, spans)
	}
}
