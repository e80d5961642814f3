package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// The measurement contract, checked with fake workloads: an operation may
// record several requests, each with its own latency, items and bytes, and a
// workload's kind declares the headline metric the run stores.

// opsWorkload is a fake kind with its own op types; its operations follow the
// shared behaviour of runner_test.go.
type opsWorkload struct {
	kind string
	ops  []string
}

func (w opsWorkload) Kind() string          { return w.kind }
func (w opsWorkload) Description() string   { return "test workload" }
func (w opsWorkload) Params() []params.Spec { return nil }
func (w opsWorkload) New(params.Values) (workload.Instance, error) {
	behaveMu.Lock()
	defer behaveMu.Unlock()
	return opsInstance{ops: w.ops, op: behave}, nil
}

type opsInstance struct {
	ops []string
	op  behaviour
}

func (i opsInstance) Ops() []string                                    { return i.ops }
func (opsInstance) Prepare(context.Context, workload.PrepareEnv) error { return nil }
func (i opsInstance) NewWorker(context.Context, driver.Conn) (workload.Op, error) {
	return workload.Op(i.op), nil
}

// kvWorkload asks its sessions for the KV capability and sends pipelines of
// depth GETs, recording each reply as a request, as the kv workload will.
type kvWorkload struct{ opsWorkload }

const depth = 16

func (w kvWorkload) New(params.Values) (workload.Instance, error) {
	return kvInstance{opsInstance{ops: w.ops}}, nil
}

type kvInstance struct{ opsInstance }

func (kvInstance) NewWorker(_ context.Context, conn driver.Conn) (workload.Op, error) {
	kv, ok := conn.(driver.KV)
	if !ok {
		return nil, errors.New("this target does not speak key-value")
	}
	cmds := make([]driver.KVCommand, depth)
	for i := range cmds {
		cmds[i] = driver.KVCommand{Name: "GET", Key: []byte(fmt.Sprintf("key:%d", i))}
	}
	replies := make([]driver.KVReply, depth)
	return func(ctx context.Context, rng *rand.Rand, req workload.Requests) (int, error) {
		if err := kv.Pipeline(ctx, cmds, replies); err != nil {
			return 0, err
		}
		for _, r := range replies {
			if r.Err != nil {
				req.Failed(0, r.Class)
				continue
			}
			req.Request(0, r.Latency, 1, r.Bytes)
		}
		return 0, nil
	}, nil
}

// Pipeline makes the fake driver's sessions key-value stores whose replies
// arrive 100 µs apart: reply i after (i+1) × 100 µs.
func (fakeConn) Pipeline(ctx context.Context, cmds []driver.KVCommand, replies []driver.KVReply) error {
	time.Sleep(200 * time.Microsecond)
	for i := range cmds {
		replies[i] = driver.KVReply{Value: make([]byte, 1024), Bytes: 1024 + 5, Latency: time.Duration(i+1) * 100 * time.Microsecond}
	}
	return nil
}

func init() {
	workload.Register(workload.Plugin{Workload: kvWorkload{opsWorkload{kind: "fake-kv", ops: []string{"get", "set"}}}})
	workload.Register(workload.Plugin{Workload: opsWorkload{kind: "fake-bulk", ops: []string{"bulk"}},
		Kind: kinds.Info{Headline: result.Headline{
			Name: "indexing throughput", Unit: "docs/s", HigherIsBetter: true, Field: result.FieldItems}}})
	workload.Register(workload.Plugin{Workload: opsWorkload{kind: "fake-tpcc", ops: []string{"new_order", "payment"}},
		Kind: kinds.Info{Headline: result.Headline{
			Name: "NOPM", Unit: "NOPM", HigherIsBetter: true, Field: result.FieldRequests, Ops: []string{"new_order"}, Per: 60}}})
}

func TestPipelineRecordsEachRequest(t *testing.T) {
	// One operation is a pipeline of 16 GETs through the driver's KV
	// capability, whose replies arrive 100 µs apart: 16 requests with 16
	// latencies, not one operation of the pipeline's time.
	var op behaviour // the kv workload brings its own operation
	run, err := runOne(t, context.Background(), op, study.Workload{Kind: "fake-kv", Clients: []study.ClientLevel{{N: 2}}}, 0, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	get := run.Ops[0]
	if get.Count == 0 || get.Count%depth != 0 {
		t.Fatalf("GET requests %d: want a positive multiple of %d", get.Count, depth)
	}
	if run.Ops[1].Count != 0 {
		t.Fatalf("SET requests %d, want 0", run.Ops[1].Count)
	}
	if get.Items != get.Count || get.Bytes != 1029*get.Count {
		t.Fatalf("items %d bytes %d for %d requests", get.Items, get.Bytes, get.Count)
	}
	h, err := hist.Decode(get.Histogram)
	if err != nil {
		t.Fatal(err)
	}
	// Each of the 16 latencies holds exactly a 16th of the requests.
	for i := 1; i <= depth; i++ {
		us := int64(i * 100)
		var n int64
		for _, b := range h.Distribution() {
			if b.From <= us && us <= b.To {
				n += b.Count
			}
		}
		if n != get.Count/depth {
			t.Fatalf("requests at %d µs: %d, want %d", us, n, get.Count/depth)
		}
	}
	if run.Summary.Transactions != get.Count {
		t.Fatalf("summary counts %d, want every request (%d)", run.Summary.Transactions, get.Count)
	}
	// The per-second series carries the same requests, losslessly per op type.
	var series int64
	for _, p := range run.Series {
		for _, iv := range p.Hists {
			if iv.Name == "get" {
				series += iv.Count
			}
		}
	}
	if series != get.Count {
		t.Fatalf("interval histograms hold %d GETs, the run %d", series, get.Count)
	}
}

func TestBulkRequestCarriesItems(t *testing.T) {
	const docs = 5000
	op := func(ctx context.Context, rng *rand.Rand, req workload.Requests) (int, error) {
		time.Sleep(2 * time.Millisecond)
		req.Request(0, 2*time.Millisecond, docs, docs*200)
		return 0, nil
	}
	run, err := runOne(t, context.Background(), op, study.Workload{Kind: "fake-bulk", Clients: []study.ClientLevel{{N: 1}}}, 0, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	bulk := run.Ops[0]
	if bulk.Count == 0 || bulk.Items != docs*bulk.Count {
		t.Fatalf("%d bulk requests carrying %d items: want %d items per request", bulk.Count, bulk.Items, docs)
	}
	m := run.Summary.Metric
	if m == nil || m.Unit != "docs/s" {
		t.Fatalf("metric %+v, want the kind's docs/s headline", m)
	}
	want := float64(bulk.Items) / run.Duration.Seconds()
	if math.Abs(m.Value-want) > 1e-9*want {
		t.Fatalf("headline %.1f docs/s, want items per second %.1f (requests/s would be %.1f)", m.Value, want, run.Summary.Throughput)
	}
}

func TestHeadlineCountsOneOpType(t *testing.T) {
	// Every other transaction is a New-Order: NOPM counts those only, per minute.
	op := func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		time.Sleep(time.Millisecond)
		return rng.IntN(2), nil
	}
	run, err := runOne(t, context.Background(), op, study.Workload{Kind: "fake-tpcc", Clients: []study.ClientLevel{{N: 2}}}, 0, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	no, pay := run.Ops[0].Count, run.Ops[1].Count
	if no == 0 || pay == 0 {
		t.Fatalf("new_order %d payment %d: want both", no, pay)
	}
	m := run.Headline()
	want := float64(no) / run.Duration.Seconds() * 60
	if m.Name != "NOPM" || math.Abs(m.Value-want) > 1e-9*want {
		t.Fatalf("headline %s = %.1f, want NOPM = %.1f (all transactions per minute would be %.1f)",
			m.Name, m.Value, want, float64(no+pay)/run.Duration.Seconds()*60)
	}
}

func TestRunsStoreThroughputAsDefaultHeadline(t *testing.T) {
	op := func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		time.Sleep(time.Millisecond)
		return 0, nil
	}
	run, err := runOne(t, context.Background(), op, study.Workload{Clients: []study.ClientLevel{{N: 1}}}, 0, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	m := run.Summary.Metric
	if m == nil || m.Name != result.Throughput.Name || math.Abs(m.Value-run.Summary.Throughput) > 1e-9*run.Summary.Throughput {
		t.Fatalf("metric %+v, want throughput %.1f", m, run.Summary.Throughput)
	}
}

func TestRequestsInRateModeCountFromTheIntendedStart(t *testing.T) {
	// A server stall of 30 ms every 10th operation at a rate the server could
	// otherwise keep: the requests of the operations the stall delayed must show
	// the delay, not just their own 100 µs.
	var n int
	op := func(ctx context.Context, rng *rand.Rand, req workload.Requests) (int, error) {
		n++
		if n%10 == 0 {
			time.Sleep(30 * time.Millisecond)
		}
		req.Request(0, 100*time.Microsecond, 1, 0)
		return 0, nil
	}
	run, err := runOne(t, context.Background(), op, study.Workload{Kind: "fake-bulk", Clients: []study.ClientLevel{{N: 1}}, Rate: 200}, 0, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	h, err := hist.Decode(run.Ops[0].Histogram)
	if err != nil {
		t.Fatal(err)
	}
	// Without the schedule lag every request would be 100 µs.
	if h.ValueAtQuantile(99) < 5000 {
		t.Fatalf("p99 %d µs: the stall's delay to later requests is missing", h.ValueAtQuantile(99))
	}
	// The service times, from the send, are kept apart, as OSB keeps them:
	// every request took its 100 µs.
	if len(run.Ops[0].ServiceHistogram) == 0 {
		t.Fatal("a rate-mode run kept no service times")
	}
	sv, err := hist.Decode(run.Ops[0].ServiceHistogram)
	if err != nil {
		t.Fatal(err)
	}
	if sv.TotalCount() != h.TotalCount() || sv.Max() > 101 || sv.Min() < 99 {
		t.Fatalf("service times: %d of %d, %d–%d µs; want every request's 100 µs", sv.TotalCount(), h.TotalCount(), sv.Min(), sv.Max())
	}
}

func TestClosedLoopKeepsNoSeparateServiceTimes(t *testing.T) {
	op := func(ctx context.Context, rng *rand.Rand, req workload.Requests) (int, error) {
		time.Sleep(time.Millisecond)
		return 0, nil
	}
	run, err := runOne(t, context.Background(), op, study.Workload{Clients: []study.ClientLevel{{N: 1}}}, 0, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Ops[0].ServiceHistogram) != 0 {
		t.Fatal("a closed loop stored service times apart from its latencies")
	}
}

func TestPacedOperationsKeepServiceTimes(t *testing.T) {
	// An operation the runner times itself: its latency counts from the
	// schedule, its service time from its start.
	var n int
	op := func(ctx context.Context, rng *rand.Rand, req workload.Requests) (int, error) {
		n++
		if n%10 == 0 {
			time.Sleep(30 * time.Millisecond)
		}
		return 0, nil
	}
	run, err := runOne(t, context.Background(), op, study.Workload{Clients: []study.ClientLevel{{N: 1}}, Rate: 200}, 0, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	lat, _ := hist.Decode(run.Ops[0].Histogram)
	sv, err := hist.Decode(run.Ops[0].ServiceHistogram)
	if err != nil {
		t.Fatal(err)
	}
	if sv.TotalCount() != lat.TotalCount() || lat.ValueAtQuantile(95) <= sv.ValueAtQuantile(95) {
		t.Fatalf("latency p95 %d µs, service p95 %d µs (%d, %d samples): the stall must delay the later operations' latency, not their service", lat.ValueAtQuantile(95), sv.ValueAtQuantile(95), lat.TotalCount(), sv.TotalCount())
	}
}
