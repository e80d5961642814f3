package runner

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// perClientWorkload is the fake workload with a count of operations per
// client (pgbench -t) and a log of each operation (pgbench -l).
type perClientWorkload struct{ fakeWorkload }

func (perClientWorkload) Kind() string { return "fake-perclient" }
func (perClientWorkload) New(params.Values) (workload.Instance, error) {
	behaveMu.Lock()
	defer behaveMu.Unlock()
	return perClientInstance{fakeInstance{op: behave}}, nil
}

type perClientInstance struct{ fakeInstance }

var (
	perClientLogMu sync.Mutex
	perClientLog   []workload.Logged
	perClientClose int
)

func (perClientInstance) Shape() workload.Shape {
	return workload.Shape{End: workload.PerClient(25, time.Minute, "each client has run its 25 operations"),
		Log: func(l workload.Logged) {
			perClientLogMu.Lock()
			perClientLog = append(perClientLog, l)
			perClientLogMu.Unlock()
		},
		Close: func() error { perClientClose++; return nil }}
}

func (f perClientInstance) NewWorker(ctx context.Context, c driver.Conn) (workload.Op, error) {
	return f.fakeInstance.NewWorker(ctx, c)
}

func init() { workload.Register(workload.Plugin{Workload: perClientWorkload{}}) }

// Each client performs exactly PerClient operations, an operation and its
// retries counting once; the log hears of each with the client's count
// and its tries, and is closed once.
func TestPerClientCountsOperationsNotTries(t *testing.T) {
	var mu sync.Mutex
	calls := map[*rand.Rand]int{}
	op := func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		mu.Lock()
		calls[rng]++
		n := calls[rng]
		mu.Unlock()
		if n%2 == 1 { // every operation's first try fails and is retried
			return 1, classErr{result.ErrSerialization}
		}
		return 1, nil
	}
	perClientLog, perClientClose = nil, 0
	run, err := runOne(t, context.Background(), op, study.Workload{Kind: "fake-perclient", Clients: []study.ClientLevel{{N: 2}}, MaxTries: 3}, 0, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if s := run.Summary; s.Transactions != 50 || s.Failed != 0 || s.Retried != 50 {
		t.Fatalf("transactions %d failed %d retried %d, want 2 clients × 25, each retried once", s.Transactions, s.Failed, s.Retried)
	}
	seqs := map[int][]int64{}
	for _, l := range perClientLog {
		if l.Tries != 2 || l.Failed || l.Op != 1 || l.MaxTries != 3 || l.End.Before(l.Intended) {
			t.Fatalf("logged %+v", l)
		}
		seqs[l.Client] = append(seqs[l.Client], l.Seq)
	}
	for c := range 2 {
		if len(seqs[c]) != 25 || seqs[c][0] != 1 || seqs[c][24] != 25 {
			t.Fatalf("client %d logged %v", c, seqs[c])
		}
	}
	if perClientClose != 1 {
		t.Fatalf("Close called %d times", perClientClose)
	}
}
