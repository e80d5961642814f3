//go:build linux

package runner

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/fastpath"
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/workload"
)

// sockDriver's connections are fairbench sockets to a test server on loopback
// ("fakesock://127.0.0.1:PORT"), so the runner can put them on event loops.
type sockDriver struct{}

func (sockDriver) Name() string { return "fakesock" }
func (sockDriver) Open(ctx context.Context, t driver.Target, o driver.Options) (driver.Client, error) {
	return driver.NewConnClient(func(ctx context.Context) (driver.Conn, error) {
		nc, err := fastpath.Dial(ctx, "tcp", strings.TrimPrefix(t.URL, "fakesock://"))
		if err != nil {
			return nil, err
		}
		return &sockConn{s: nc.(*fastpath.Conn)}, nil
	}, false), nil
}

type sockConn struct{ s *fastpath.Conn }

func (c *sockConn) Close(context.Context) error                         { return c.s.Close() }
func (c *sockConn) Classify(error) result.ErrorClass                    { return result.ErrConnection }
func (c *sockConn) Interrupt()                                          { c.s.Close() }
func (c *sockConn) BlocksThread() bool                                  { return true }
func (c *sockConn) Multiplex(context.Context) (*fastpath.Conn, error)   { return c.s, nil }
func (pingWorkload) Kind() string                                       { return "fake-ping" }
func (pingWorkload) Description() string                                { return "one-byte round trips" }
func (pingWorkload) Params() []params.Spec                              { return nil }
func (pingWorkload) New(params.Values) (workload.Instance, error)       { return pingWorkload{}, nil }
func (pingWorkload) Ops() []string                                      { return []string{"ping"} }
func (pingWorkload) Prepare(context.Context, workload.PrepareEnv) error { return nil }

// pingWorkload's operation sends one byte and waits for the reply.
type pingWorkload struct{}

func (pingWorkload) NewWorker(ctx context.Context, conn driver.Conn) (workload.Op, error) {
	s := conn.(*sockConn).s
	buf := make([]byte, 1)
	return func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		if _, err := s.Write([]byte{'p'}); err != nil {
			return 0, err
		}
		_, err := io.ReadFull(s, buf)
		return 0, err
	}, nil
}

func init() {
	driver.Register(sockDriver{}, "fakesock://")
	workload.Register(workload.Plugin{Workload: pingWorkload{}})
}

// pingServer answers every byte with one byte. The first connection to get
// stallAt requests holds back its reply to that one for stall; with silent,
// nothing is ever answered.
func pingServer(t *testing.T, stallAt int, stall time.Duration, silent bool) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var stalled atomic.Bool
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 1)
				for n := 1; ; n++ {
					if _, err := io.ReadFull(c, buf); err != nil {
						return
					}
					if silent {
						continue
					}
					if n == stallAt && stalled.CompareAndSwap(false, true) {
						time.Sleep(stall)
					}
					if _, err := c.Write(buf); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "fakesock://" + l.Addr().String()
}

func runPing(t *testing.T, ctx context.Context, url string, w study.Workload, d time.Duration) (*result.Run, error) {
	t.Helper()
	w.Name = "ping"
	if w.Kind == "" {
		w.Kind = "fake-ping"
	}
	st := &study.Study{Name: "t", Duration: d, Seed: 7,
		Targets: []*study.Target{{Name: "s", URL: url}}, Workloads: []*study.Workload{&w}}
	cells, err := st.Plan(Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	sink := &MemorySink{}
	err = New(st, Options{Sink: sink, Every: 100 * time.Millisecond}).Run(ctx, cells)
	if len(sink.Runs) != 1 {
		t.Fatalf("want 1 stored run, got %d (err %v)", len(sink.Runs), err)
	}
	return sink.Runs[0], err
}

// Four clients share one event loop. When the server stalls one client's
// reply, that client's scheduled operations all show the stall (latency from
// the intended start), while the other three, on the same thread, keep their
// schedule: a loop waits for sockets, never for one client.
func TestClientsOnOneLoopStallIndependently(t *testing.T) {
	const rate, clients = 400.0, 4
	url := pingServer(t, 20, 2*time.Second, false)
	run, err := runPing(t, context.Background(), url,
		study.Workload{Clients: []study.ClientLevel{{N: clients}}, Threads: 1, Rate: rate}, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if io := run.Env.Client.IO; !strings.HasPrefix(io, "event loops") {
		t.Fatalf("client io %q, want event loops", io)
	}
	h, err := hist.Decode(run.Ops[0].Histogram)
	if err != nil {
		t.Fatal(err)
	}
	slow := h.TotalCount() - countBelow(h, 1_000_000)
	// The stalled client is due rate/clients = 100 operations a second: the
	// 100 due in the first second of its 2 s stall wait over a second. Had
	// the stall held up the loop, all four clients' would (about 400). The
	// stall and the threshold are long so that a busy machine's own pauses
	// (tens to hundreds of ms with a CPU hog beside the test) add nothing.
	if slow < 50 || slow > 200 {
		t.Fatalf("%d operations slower than 1 s, want about 100 (one client's share of the stall)", slow)
	}
}

// A cancelled run interrupts clients hung on a loop, as it does clients with a
// thread each.
func TestCancelledRunInterruptsClientsOnLoops(t *testing.T) {
	url := pingServer(t, 0, 0, true)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	run, err := runPing(t, ctx, url, study.Workload{Clients: []study.ClientLevel{{N: 3}}, Threads: 1}, time.Minute)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("want ErrInterrupted, got %v", err)
	}
	if el := time.Since(start); el > testenv.StopDeadline { // the run lasts a minute
		t.Fatalf("took %v to stop clients hung on a loop", el)
	}
	if run.Status != result.StatusInterrupted {
		t.Fatalf("run status %s, want interrupted", run.Status)
	}
}

// tidWorkload is pingWorkload recording, per worker, the OS threads its
// operations ran on.
type tidWorkload struct{ pingWorkload }

var workerTIDs struct {
	sync.Mutex
	sets []map[int]bool
}

func (tidWorkload) Kind() string                                 { return "fake-tid" }
func (tidWorkload) New(params.Values) (workload.Instance, error) { return tidWorkload{}, nil }
func (tidWorkload) NewWorker(ctx context.Context, conn driver.Conn) (workload.Op, error) {
	ping, err := pingWorkload{}.NewWorker(ctx, conn)
	if err != nil {
		return nil, err
	}
	tids := map[int]bool{}
	workerTIDs.Lock()
	workerTIDs.sets = append(workerTIDs.sets, tids)
	workerTIDs.Unlock()
	return func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		tids[unix.Gettid()] = true // only this worker's goroutine writes it
		return ping(ctx, rng, nil)
	}, nil
}

func init() { workload.Register(workload.Plugin{Workload: tidWorkload{}}) }

// With a CPU for each client thread, a client's operations all run on one OS
// thread, over a run long enough for dozens of yields to the Go scheduler
// (which, unlocked, mostly move a goroutine to another thread); with more
// client threads than CPUs the threads are not locked, and the run says so.
func TestClientThreadsKeepTheirOSThread(t *testing.T) {
	url := pingServer(t, 0, 0, false)
	cpus := runtime.GOMAXPROCS(0)
	for _, tc := range []struct {
		name             string
		clients, threads int
		locked           bool
	}{
		{"one thread per client", 1, 1, true},
		{"clients on one loop", 3, 1, true},
		{"more client threads than CPUs", cpus + 1, cpus + 1, false},
	} {
		workerTIDs.Lock()
		workerTIDs.sets = nil
		workerTIDs.Unlock()
		run, err := runPing(t, context.Background(), url, study.Workload{Kind: "fake-tid",
			Clients: []study.ClientLevel{{N: tc.clients}}, Threads: tc.threads}, 30*fastpath.YieldEvery)
		if err != nil {
			t.Fatal(err)
		}
		client := run.Env.Client
		if got := client.LockedThreads != nil && *client.LockedThreads; got != tc.locked {
			t.Fatalf("%s: locked_threads = %v, want %v (client env %+v)", tc.name, got, tc.locked, client)
		}
		if !tc.locked {
			continue
		}
		workerTIDs.Lock()
		for i, tids := range workerTIDs.sets {
			if len(tids) != 1 {
				t.Errorf("%s: client %d ran on %d OS threads, want 1", tc.name, i, len(tids))
			}
		}
		workerTIDs.Unlock()
	}
}
