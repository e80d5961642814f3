package bulkindex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/searchparams"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/workload"
)

// fakeEngine is an in-memory search engine that refuses what a test tells
// it to, so that the workload's accounting can be checked exactly.
type fakeEngine struct {
	mu      sync.Mutex
	indexes map[string]*fakeIndex
	calls   int
	// rejectItems: on these calls (1-based), every other item gets a 429.
	rejectItems map[int]bool
	// rejectWhole: these calls get HTTP 429 for the whole request.
	rejectWhole map[int]bool
}

type fakeIndex struct {
	meta map[string]any
	docs int64
	ids  map[string]bool
}

type throttled struct{}

func (throttled) Error() string { return "HTTP 429: es_rejected_execution_exception" }

func (e *fakeEngine) Close(context.Context) error { return nil }
func (e *fakeEngine) Classify(err error) result.ErrorClass {
	if errors.As(err, new(throttled)) {
		return result.ErrThrottled
	}
	return result.ErrOther
}

func (e *fakeEngine) Bulk(_ context.Context, index string, body []byte, items int) (driver.BulkResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls++
	ix := e.indexes[index]
	if ix == nil {
		return driver.BulkResult{}, errors.New("no such index")
	}
	if e.rejectWhole[e.calls] {
		return driver.BulkResult{}, throttled{}
	}
	lines := bytes.Split(bytes.TrimSuffix(body, []byte("\n")), []byte("\n"))
	if len(lines) != 2*items {
		return driver.BulkResult{}, errors.New("body does not hold items actions")
	}
	res := driver.BulkResult{Items: items, Bytes: int64(len(body))}
	for k := 0; k < items; k++ {
		if e.rejectItems[e.calls] && k%2 == 1 {
			res.Failed = append(res.Failed, driver.ItemError{Index: k, Status: 429, Class: result.ErrThrottled})
			continue
		}
		if !json.Valid(lines[2*k+1]) {
			res.Failed = append(res.Failed, driver.ItemError{Index: k, Status: 400, Class: result.ErrOther})
			continue
		}
		var action struct {
			Index struct {
				ID string `json:"_id"`
			} `json:"index"`
		}
		if err := json.Unmarshal(lines[2*k], &action); err != nil {
			return driver.BulkResult{}, err
		}
		if id := action.Index.ID; id != "" {
			if !ix.ids[id] {
				ix.ids[id] = true
				ix.docs++
			}
		} else {
			ix.docs++
		}
	}
	return res, nil
}

func (e *fakeEngine) Query(context.Context, string, []byte) (driver.SearchResult, error) {
	return driver.SearchResult{}, nil
}

func (e *fakeEngine) CreateIndex(_ context.Context, index string, body []byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.indexes[index] != nil {
		return driver.ErrIndexExists
	}
	var def struct {
		Mappings struct {
			Meta map[string]any `json:"_meta"`
		} `json:"mappings"`
	}
	if err := json.Unmarshal(body, &def); err != nil {
		return err
	}
	e.indexes[index] = &fakeIndex{meta: def.Mappings.Meta, ids: map[string]bool{}}
	return nil
}

func (e *fakeEngine) IndexMeta(_ context.Context, index string) (map[string]any, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	ix := e.indexes[index]
	if ix == nil {
		return nil, false, nil
	}
	// As a real engine returns it: through JSON.
	b, _ := json.Marshal(ix.meta)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m, true, nil
}

func (e *fakeEngine) DeleteIndex(_ context.Context, index string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.indexes, index)
	return nil
}

func (e *fakeEngine) Refresh(context.Context, string) error { return nil }

func (e *fakeEngine) Count(_ context.Context, index string) (int64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.indexes[index].docs, nil
}

func newFake() *fakeEngine { return &fakeEngine{indexes: map[string]*fakeIndex{}} }

// recorder is a workload.Requests that keeps everything.
type recorder struct {
	requests, items int64
	failed          map[result.ErrorClass]int64
}

func (r *recorder) Request(op int, _ time.Duration, items, _ int64) { r.requests++; r.items += items }
func (r *recorder) Failed(op int, c result.ErrorClass) {
	if r.failed == nil {
		r.failed = map[result.ErrorClass]int64{}
	}
	r.failed[c]++
}

func bind(t *testing.T, set map[string]any) *instance {
	t.Helper()
	v := params.Values{}
	for k, x := range set {
		s, ok := params.Find(searchparams.BulkSpecs(), k)
		if !ok {
			t.Fatalf("no parameter %s", k)
		}
		c, err := params.Coerce(s, x)
		if err != nil {
			t.Fatal(err)
		}
		v[k] = c
	}
	in, err := Workload{}.New(params.WithDefaults(searchparams.BulkSpecs(), v))
	if err != nil {
		t.Fatal(err)
	}
	return in.(*instance)
}

// runAll runs one client until its corpus is done.
func runAll(t *testing.T, in *instance, e *fakeEngine) (*recorder, error) {
	t.Helper()
	ctx := context.Background()
	if err := in.Prepare(ctx, workload.PrepareEnv{Conn: e}); err != nil {
		t.Fatal(err)
	}
	if err := in.beforeRun(ctx, e); err != nil {
		t.Fatal(err)
	}
	op, err := in.NewWorker(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 1000; i++ {
		_, err := op(ctx, rng, rec)
		if errors.Is(err, workload.ErrClientDone) {
			return rec, in.check(ctx, e)
		}
		if err != nil && in.check(ctx, e) != nil {
			t.Fatalf("op: %v", err)
		}
	}
	t.Fatal("the corpus never ended")
	return nil, nil
}

func TestCorpusIndexedOnceAndCounted(t *testing.T) {
	e := newFake()
	in := bind(t, map[string]any{"docs": 2500, "bulk_size": 1000})
	rec, err := runAll(t, in, e)
	if err != nil {
		t.Fatal(err)
	}
	if rec.requests != 3 || rec.items != 2500 || len(rec.failed) != 0 {
		t.Fatalf("%d requests of %d items, failed %v; want 3 of 2500", rec.requests, rec.items, rec.failed)
	}
	if n := e.indexes[searchparams.DefaultIndex].docs; n != 2500 {
		t.Fatalf("index holds %d", n)
	}
}

func TestRefusedItemsAreCountedAndRetried(t *testing.T) {
	// Without retries, the refused items are counted as throttled failures
	// and dropped; the count check expects the accepted ones only.
	e := newFake()
	e.rejectItems = map[int]bool{2: true}
	in := bind(t, map[string]any{"docs": 3000, "bulk_size": 1000})
	rec, err := runAll(t, in, e)
	if err != nil {
		t.Fatal(err)
	}
	if rec.failed[result.ErrThrottled] != 500 || rec.items != 2500 || e.indexes[searchparams.DefaultIndex].docs != 2500 {
		t.Fatalf("no retries: %d items, failed %v, index %d", rec.items, rec.failed, e.indexes[searchparams.DefaultIndex].docs)
	}
	if c := in.Counts(); c["refused items"] != 500 || c["bulks with refused items"] != 1 {
		t.Fatalf("counts %v", c)
	}

	// With retries, the refused items are sent again, alone, until indexed;
	// a request refused whole is sent again too.
	e = newFake()
	e.rejectItems = map[int]bool{2: true, 3: true}
	e.rejectWhole = map[int]bool{5: true}
	in = bind(t, map[string]any{"docs": 3000, "bulk_size": 1000, "retries": 5})
	rec, err = runAll(t, in, e)
	if err != nil {
		t.Fatal(err)
	}
	// Call 2: 1000 items, 500 refused; call 3 (their retry): 250 refused;
	// call 4: the 250; call 5: the third bulk refused whole; call 6: it.
	if e.calls != 6 || rec.items != 3000 || e.indexes[searchparams.DefaultIndex].docs != 3000 {
		t.Fatalf("retries: %d calls, %d items accepted, index %d", e.calls, rec.items, e.indexes[searchparams.DefaultIndex].docs)
	}
	if rec.failed[result.ErrThrottled] != 500+250+1000 {
		t.Fatalf("failed %v, want 1750 throttled", rec.failed)
	}
	if c := in.Counts(); c["refused items"] != 0 || c["items sent again"] != 1750 {
		t.Fatalf("counts %v", c)
	}
}

func TestIngestPercentageAndUpdateConflicts(t *testing.T) {
	e := newFake()
	in := bind(t, map[string]any{"docs": 4000, "bulk_size": 500, "ingest_percentage": 50})
	rec, err := runAll(t, in, e)
	if err != nil || rec.items != 2000 {
		t.Fatalf("50 %% of 4000: %d items, %v", rec.items, err)
	}
	e = newFake()
	in = bind(t, map[string]any{"docs": 4000, "bulk_size": 500, "mode": "index-update", "conflict_probability": 25})
	rec, err = runAll(t, in, e)
	if err != nil {
		t.Fatal(err)
	}
	n := e.indexes[searchparams.DefaultIndex].docs
	if rec.items != 4000 || n >= 3300 || n <= 2700 {
		t.Fatalf("index-update with 25 %% conflicts: %d items sent, %d distinct documents (want about 3000)", rec.items, n)
	}
}

func TestForeignIndexIsNeverTouched(t *testing.T) {
	e := newFake()
	e.indexes[searchparams.DefaultIndex] = &fakeIndex{meta: map[string]any{"owner": "someone"}, docs: 42}
	in := bind(t, map[string]any{"docs": 10})
	err := in.beforeRun(context.Background(), e)
	if err == nil || !strings.Contains(err.Error(), "fairbench did not create it") {
		t.Fatalf("BeforeRun on a foreign index: %v", err)
	}
	if err := in.cleanup(context.Background(), e); err == nil {
		t.Fatal("Cleanup deleted or accepted a foreign index")
	}
	if ix := e.indexes[searchparams.DefaultIndex]; ix == nil || ix.docs != 42 {
		t.Fatal("the foreign index was changed")
	}
}

func TestCountMismatchFailsTheCheck(t *testing.T) {
	e := newFake()
	in := bind(t, map[string]any{"docs": 100, "bulk_size": 100})
	if _, err := runAll(t, in, e); err != nil {
		t.Fatal(err)
	}
	e.indexes[searchparams.DefaultIndex].docs-- // a document lost on the engine
	if err := in.check(context.Background(), e); err == nil || !strings.Contains(err.Error(), "holds 99 documents") {
		t.Fatalf("check: %v", err)
	}
}

func TestThroughputSamplesAreOSBs(t *testing.T) {
	// Three seconds of 30 000, 20 000 and 10 000 documents, then 2 000 in
	// the last 0.5 s: OSB's samples are the running averages 30 000/1,
	// 50 000/2, 60 000/3 and 62 000/3.5, whose mean is 23 178.6.
	pt := func(sec int, items int64) result.SeriesPoint {
		return result.SeriesPoint{Second: sec, Hists: []result.IntervalOp{{Name: "bulk", Count: 1, Items: items}}}
	}
	series := []result.SeriesPoint{pt(1, 30000), pt(2, 20000), pt(3, 10000), pt(4, 2000)}
	got := osbThroughput(series, "bulk", true, 3.5)
	want := []float64{30000, 25000, 20000, 62000 / 3.5}
	if len(got) != len(want) {
		t.Fatalf("samples %v, want %v", got, want)
	}
	for i := range want {
		if d := got[i] - want[i]; d > 1e-9 || d < -1e-9 {
			t.Fatalf("samples %v, want %v", got, want)
		}
	}
	run := &result.Run{Duration: 3500 * time.Millisecond, Series: series,
		Ops: []result.Op{{Name: "bulk", Count: 4, Items: 62000, Errors: map[result.ErrorClass]int64{result.ErrThrottled: 620}}}}
	var b strings.Builder
	printSummary(&b, run)
	for _, want := range []string{"|  Mean Throughput | bulk | 23178.6 | docs/s |", "| Throughput over the run | bulk | 17714.3 | docs/s |", "| error rate | bulk | 0.990099 |      % |"} {
		if !strings.Contains(strings.Join(strings.Fields(b.String()), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}
