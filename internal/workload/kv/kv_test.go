package kv

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/workload"
)

// fakeKV answers GETs of even keys with a value and of odd ones with nil,
// and records what it was sent.
type fakeKV struct {
	sent []driver.KVCommand
}

func (f *fakeKV) Close(context.Context) error      { return nil }
func (f *fakeKV) Classify(error) result.ErrorClass { return result.ErrOther }
func (f *fakeKV) Pipeline(_ context.Context, cmds []driver.KVCommand, r []driver.KVReply) error {
	for i, c := range cmds {
		f.sent = append(f.sent, driver.KVCommand{Name: c.Name, Key: append([]byte(nil), c.Key...), Value: c.Value})
		r[i] = driver.KVReply{Latency: time.Duration(i+1) * time.Microsecond, Bytes: 10}
		if c.Name == "GET" && c.Key[len(c.Key)-1]%2 == 1 {
			r[i].Miss = true
		}
	}
	return nil
}

type recorded struct {
	ops    []int
	failed int
}

func (r *recorded) Request(op int, _ time.Duration, _, _ int64) { r.ops = append(r.ops, op) }
func (r *recorded) Failed(int, result.ErrorClass)               { r.failed++ }

func instanceOf(t *testing.T, set params.Values) *instance {
	t.Helper()
	in, err := Workload{}.New(params.WithDefaults(Workload{}.Params(), set))
	if err != nil {
		t.Fatal(err)
	}
	return in.(*instance)
}

// memtier's ratio is a cycle, not a draw: 1:3 sends SET, GET, GET, GET, and
// again; every request of a pipeline is recorded, hits and misses counted.
func TestRatioCycleAndPipelineRecording(t *testing.T) {
	in := instanceOf(t, params.Values{"ratio": "1:3", "pipeline": int64(8), "key_maximum": int64(99)})
	f := &fakeKV{}
	op, err := in.NewSlotWorker(context.Background(), f, workload.ClientSlot{Index: 0, Clients: 1})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorded{}
	rng := rand.New(rand.NewPCG(1, 1))
	for range 2 {
		if _, err := op(context.Background(), rng, rec); err != nil {
			t.Fatal(err)
		}
	}
	want := "SGGGSGGGSGGGSGGG"
	got := ""
	for _, c := range f.sent {
		got += c.Name[:1]
	}
	if got != want || len(rec.ops) != 16 {
		t.Fatalf("sent %s (%d recorded), want %s", got, len(rec.ops), want)
	}
	c := in.counts()
	if c["hits"]+c["misses"] != 12 {
		t.Fatalf("hits %d + misses %d, want the 12 GETs", c["hits"], c["misses"])
	}
}

func TestProfilesAndCommands(t *testing.T) {
	in := instanceOf(t, params.Values{"profile": "incr-only", "pipeline": int64(2)})
	if in.Ops()[0] != "incr" {
		t.Fatalf("incr-only ops %v", in.Ops())
	}
	f := &fakeKV{}
	op, _ := in.NewWorker(context.Background(), f)
	rec := &recorded{}
	if _, err := op(context.Background(), rand.New(rand.NewPCG(1, 1)), rec); err != nil {
		t.Fatal(err)
	}
	if f.sent[0].Name != "INCR" || len(f.sent[0].Key) == 0 || len(rec.ops) != 2 {
		t.Fatalf("sent %+v", f.sent)
	}
	// Two commands in memtier's turn: 2 INCRs, 1 GET, and again.
	in = instanceOf(t, params.Values{"command": []string{"INCR __key__", "GET __key__"}, "command_ratio": []string{"2", "1"}, "pipeline": int64(6)})
	if ops := in.Ops(); len(ops) != 2 || ops[0] != "incr" || ops[1] != "get" {
		t.Fatalf("ops %v", ops)
	}
	f = &fakeKV{}
	op, _ = in.NewWorker(context.Background(), f)
	rec = &recorded{}
	if _, err := op(context.Background(), rand.New(rand.NewPCG(1, 1)), rec); err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, c := range f.sent {
		got += c.Name[:1]
	}
	if got != "IIGIIG" || rec.ops[2] != 1 || rec.ops[0] != 0 {
		t.Fatalf("sent %s, recorded %v; want IIGIIG", got, rec.ops)
	}
	// rmw: the GETs, then SETs of the same keys, one request each.
	in = instanceOf(t, params.Values{"profile": "rmw", "pipeline": int64(3)})
	f = &fakeKV{}
	op, _ = in.NewWorker(context.Background(), f)
	rec = &recorded{}
	if _, err := op(context.Background(), rand.New(rand.NewPCG(1, 1)), rec); err != nil {
		t.Fatal(err)
	}
	if len(f.sent) != 6 || f.sent[0].Name != "GET" || f.sent[3].Name != "SET" || string(f.sent[0].Key) != string(f.sent[3].Key) || len(rec.ops) != 3 {
		t.Fatalf("rmw sent %+v, recorded %v", f.sent, rec.ops)
	}
	for _, bad := range []params.Values{
		{"command": []string{"INCR counter"}}, {"command_ratio": []string{"2"}}, {"command": []string{"INCR __key__", "GET __key__"}, "command_ratio": []string{"1"}}, {"ratio": "0:0"}, {"key_minimum": int64(5), "key_maximum": int64(4)},
		{"data_size_range": "10-5"}, {"key_zipf_exp": 5.0}, {"key_prefix": ""}, {"key_pattern": "P:R"},
	} {
		if _, err := (Workload{}).New(params.WithDefaults(Workload{}.Params(), bad)); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// With memtier's shared seed every client draws the same keys; with
// distinct seeds they differ.
func TestDistinctClientSeed(t *testing.T) {
	keys := func(distinct bool, client uint64) string {
		in := instanceOf(t, params.Values{"ratio": "0:1", "pipeline": int64(4), "distinct_client_seed": distinct})
		f := &fakeKV{}
		op, _ := in.NewWorker(context.Background(), f)
		op(context.Background(), rand.New(rand.NewPCG(7, client)), &recorded{})
		s := ""
		for _, c := range f.sent {
			s += string(c.Key) + " "
		}
		return s
	}
	if keys(false, 1) != keys(false, 2) {
		t.Error("shared seed: clients drew different keys")
	}
	if keys(true, 1) == keys(true, 2) {
		t.Error("distinct seeds: clients drew the same keys")
	}
}
