package adapter

import (
	"math"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/params/ycsbparams"
	"github.com/fairbench/fairbench/internal/result"
)

// Real outputs of Java YCSB 0.18.0-SNAPSHOT (d9faaac8) and go-ycsb 1.0.1
// against Redis, PostgreSQL and FerretDB (MongoDB wire protocol), workloads
// A, C and F, loads and runs (testdata/ycsb/java-0.18-* and
// go-ycsb101-{redis,pg,mongodb}-workload*; each .cmd holds the command and
// the servers). Every expected value was read off the fixture by hand.

// peerOp is one op type as the output prints it: the count of successful
// operations and the percentiles printed (µs).
type peerOp struct {
	count         int64
	p50, p95, p99 float64
}

type peerCase struct {
	file       string
	load       bool
	version    string
	workload   string // the workload parameter (Java: from -P workloads/workloadX)
	clients    int
	seconds    float64 // RunTime(ms) / "Run finished, takes"
	throughput float64 // Summary.Throughput
	operations int64   // Summary.Extra[operations]
	failed     int64
	ops        map[string]peerOp
}

var peerCases = []peerCase{
	// Java YCSB 0.18 on Redis (private redis-server 7.0.15 on 6393).
	{file: "java-0.18-redis-workloada-load", load: true, version: "YCSB 0.18.0-SNAPSHOT", workload: "a", clients: 4, seconds: 3.675,
		throughput: 2721.08843537415, operations: 10000, ops: map[string]peerOp{"INSERT": {10000, 257, 6135, 16343}}},
	{file: "java-0.18-redis-workloada-run", version: "YCSB 0.18.0-SNAPSHOT", workload: "a", clients: 4, seconds: 3.543,
		throughput: 5644.933672029354, operations: 20000, ops: map[string]peerOp{"READ": {10044, 105, 2609, 8607}, "UPDATE": {9956, 140, 3577, 11551}}},
	{file: "java-0.18-redis-workloadc-load", load: true, version: "YCSB 0.18.0-SNAPSHOT", workload: "c", clients: 4, seconds: 3.577,
		throughput: 2795.638803466592, operations: 10000, ops: map[string]peerOp{"INSERT": {10000, 194, 6479, 14191}}},
	{file: "java-0.18-redis-workloadc-run", version: "YCSB 0.18.0-SNAPSHOT", workload: "c", clients: 4, seconds: 2.507,
		throughput: 7977.662544874352, operations: 20000, ops: map[string]peerOp{"READ": {20000, 113, 1682, 5491}}},
	{file: "java-0.18-redis-workloadf-run", version: "YCSB 0.18.0-SNAPSHOT", workload: "f", clients: 4, seconds: 3.096,
		throughput: 6459.948320413437, operations: 20000, ops: map[string]peerOp{"READ": {20000, 95, 1230, 4073},
			"READ-MODIFY-WRITE": {9997, 220, 3033, 6471}, "UPDATE": {9997, 102, 1192, 4263}}},
	// Java YCSB 0.18 on PostgreSQL 15 (jdbc binding).
	{file: "java-0.18-pg-workloada-load", load: true, version: "YCSB 0.18.0-SNAPSHOT", workload: "a", clients: 4, seconds: 5.569,
		throughput: 1795.654516071108, operations: 10000, ops: map[string]peerOp{"INSERT": {10000, 702, 4451, 7343}}},
	{file: "java-0.18-pg-workloada-run", version: "YCSB 0.18.0-SNAPSHOT", workload: "a", clients: 4, seconds: 14.556,
		throughput: 1374.0038472107722, operations: 20000, ops: map[string]peerOp{"READ": {10065, 295, 3417, 7803}, "UPDATE": {9935, 2024, 11063, 23775}}},
	{file: "java-0.18-pg-workloadc-load", load: true, version: "YCSB 0.18.0-SNAPSHOT", workload: "c", clients: 4, seconds: 7.579,
		throughput: 1319.4352816994326, operations: 10000, ops: map[string]peerOp{"INSERT": {10000, 563, 8519, 14271}}},
	{file: "java-0.18-pg-workloadc-run", version: "YCSB 0.18.0-SNAPSHOT", workload: "c", clients: 4, seconds: 9.291,
		throughput: 2152.620815843289, operations: 20000, ops: map[string]peerOp{"READ": {20000, 389, 6191, 12279}}},
	// Java YCSB 0.18 on FerretDB 1.24 (mongodb binding).
	{file: "java-0.18-mongodb-workloada-load", load: true, version: "YCSB 0.18.0-SNAPSHOT", workload: "a", clients: 4, seconds: 3.866,
		throughput: 258.6652871184687, operations: 1000, ops: map[string]peerOp{"INSERT": {1000, 5235, 31791, 118591}}},
	{file: "java-0.18-mongodb-workloada-run", version: "YCSB 0.18.0-SNAPSHOT", workload: "a", clients: 4, seconds: 30.661,
		throughput: 32.614722285639736, operations: 1000, ops: map[string]peerOp{"READ": {499, 25343, 93631, 189951}, "UPDATE": {501, 99455, 478719, 1343487}}},
	{file: "java-0.18-mongodb-workloadc-run", version: "YCSB 0.18.0-SNAPSHOT", workload: "c", clients: 4, seconds: 12.769,
		throughput: 78.31466833737959, operations: 1000, ops: map[string]peerOp{"READ": {1000, 34207, 114687, 196863}}},

	// go-ycsb 1.0.1 with Java YCSB's workload files, on the same servers.
	{file: "go-ycsb101-redis-workloada-load", load: true, version: "go-ycsb", clients: 4, seconds: 1.315065844,
		throughput: 7608.6, operations: 10000, ops: map[string]peerOp{"INSERT": {10000, 299, 1191, 4935}}},
	{file: "go-ycsb101-redis-workloada-run", version: "go-ycsb", clients: 4, seconds: 3.220260708,
		throughput: 6257.3, operations: 20000, ops: map[string]peerOp{"READ": {9962, 197, 414, 11287}, "UPDATE": {10038, 189, 378, 11007}}},
	{file: "go-ycsb101-redis-workloadc-load", load: true, version: "go-ycsb", clients: 4, seconds: 4.30181455,
		throughput: 2324.8, operations: 10000, ops: map[string]peerOp{"INSERT": {10000, 316, 10135, 17903}}},
	{file: "go-ycsb101-redis-workloadc-run", version: "go-ycsb", clients: 4, seconds: 1.883930874,
		throughput: 10617.6, operations: 20000, ops: map[string]peerOp{"READ": {20000, 188, 333, 5075}}},
	// TOTAL 29969 at 4939.8 ops/s counts each READ-MODIFY-WRITE's read and update:
	// 29969 − 9969 = 20000 operations, at 4939.8 × 20000/29969 ops/s.
	{file: "go-ycsb101-redis-workloadf-run", version: "go-ycsb", clients: 4, seconds: 6.079068887,
		throughput: 4939.8 * 20000 / 29969, operations: 20000, ops: map[string]peerOp{"READ": {20000, 203, 4103, 14991},
			"READ-MODIFY-WRITE": {9969, 425, 8791, 24367}, "UPDATE": {9969, 191, 3909, 13279}}},
	{file: "go-ycsb101-pg-workloada-load", load: true, version: "go-ycsb", clients: 4, seconds: 10.362176233,
		throughput: 965.7, operations: 10000, ops: map[string]peerOp{"INSERT": {10000, 3131, 10207, 14631}}},
	{file: "go-ycsb101-pg-workloada-run", version: "go-ycsb", clients: 4, seconds: 8.778538525,
		throughput: 2280.1, operations: 20000, ops: map[string]peerOp{"READ": {9969, 221, 1046, 3449}, "UPDATE": {10031, 1722, 8551, 13031}}},
	{file: "go-ycsb101-pg-workloadc-load", load: true, version: "go-ycsb", clients: 4, seconds: 8.577696245,
		throughput: 1167.5, operations: 10000, ops: map[string]peerOp{"INSERT": {10000, 2187, 8407, 12095}}},
	{file: "go-ycsb101-pg-workloadc-run", version: "go-ycsb", clients: 4, seconds: 2.096036187,
		throughput: 9561.1, operations: 20000, ops: map[string]peerOp{"READ": {20000, 252, 794, 4063}}},
	// The mongodb binding prints "Connected to MongoDB!" among go-ycsb's lines.
	{file: "go-ycsb101-mongodb-workloada-load", load: true, version: "go-ycsb", clients: 4, seconds: 1.362701853,
		throughput: 740.3, operations: 1000, ops: map[string]peerOp{"INSERT": {1000, 1200, 20367, 81471}}},
	{file: "go-ycsb101-mongodb-workloada-run", version: "go-ycsb", clients: 4, seconds: 17.66585602,
		throughput: 56.6, operations: 1000, ops: map[string]peerOp{"READ": {497, 12335, 40735, 56639}, "UPDATE": {503, 61311, 325119, 1168383}}},
	// READ 999 + READ_ERROR 1: 1000 operations, 999 of them successful.
	{file: "go-ycsb101-mongodb-workloadc-run", version: "go-ycsb", clients: 4, seconds: 7.974215015,
		throughput: 125.6, operations: 1000, failed: 1, ops: map[string]peerOp{"READ": {999, 24847, 75327, 107647}}},
}

func TestYCSBPeerOutputs(t *testing.T) {
	for _, c := range peerCases {
		t.Run(c.file, func(t *testing.T) {
			r := one(t, "ycsb/"+c.file+".txt")
			eq(t, "kind", r.Kind, "ycsb")
			want := "ycsb"
			if c.load {
				want = "ycsb-load"
			}
			eq(t, "workload", r.Workload, want)
			eq(t, "version", r.ToolVersion, c.version)
			eq(t, "clients", r.Clients, c.clients)
			if c.workload != "" {
				eq(t, "workload param", r.Params["workload"], any(c.workload))
			}
			near(t, "duration", r.Duration.Seconds(), c.seconds, 1e-9)
			near(t, "throughput", r.Summary.Throughput, c.throughput, 1e-9*c.throughput)
			eq(t, "operations", r.Summary.Extra[ycsbparams.Operations], float64(c.operations))
			eq(t, "failed", r.Summary.Failed, c.failed)
			eq(t, "transactions", r.Summary.Transactions, c.operations-c.failed)
			eq(t, "op errors", r.TotalErrors(), c.failed)
			// The headline: operations per second over the measured duration.
			m := r.Headline()
			eq(t, "headline", m.Name, ycsbparams.Headline.Name)
			near(t, "headline value", m.Value, float64(c.operations)/c.seconds, 1e-9*m.Value)
			if c.version != "go-ycsb" {
				// YCSB's own [OVERALL] Throughput, failed operations included.
				near(t, "headline = [OVERALL] Throughput", m.Value, c.throughput, 0.5e-3*c.throughput)
			}
			eq(t, "op types", len(r.Ops), len(c.ops))
			for _, op := range r.Ops {
				w, ok := c.ops[op.Name]
				if !ok {
					t.Errorf("unexpected op %s", op.Name)
					continue
				}
				eq(t, op.Name+" count", op.Count, w.count)
				h := decodeOp(t, op)
				eq(t, op.Name+" hist count", h.TotalCount(), w.count)
				// Printed percentiles read back exactly (3 significant digits).
				near(t, op.Name+" p50", float64(h.ValueAtQuantile(50)), w.p50, w.p50*0.001)
				near(t, op.Name+" p95", float64(h.ValueAtQuantile(95)), w.p95, w.p95*0.001)
				near(t, op.Name+" p99", float64(h.ValueAtQuantile(99)), w.p99, w.p99*0.001)
			}
			if len(c.ops) == 1 {
				// One op type: the run's percentiles are its own.
				for _, w := range c.ops {
					near(t, "p50", r.Summary.P50, w.p50, w.p50*0.001)
					near(t, "p95", r.Summary.P95, w.p95, w.p95*0.001)
					near(t, "p99", r.Summary.P99, w.p99, w.p99*0.001)
				}
			}
			if c.version != "go-ycsb" {
				// Every operation block's Return=OK equals its count.
				rets, _ := ycsbEnv(r)["returns"].(map[string]any)
				for name, w := range c.ops {
					if name == ycsbparams.ReadModifyWrite {
						if _, ok := rets[name]; ok {
							t.Errorf("Return= lines for %s", name)
						}
						continue
					}
					eq(t, name+" Return=OK", rets[name].(map[string]any)["OK"], any(w.count))
				}
			}
		})
	}
}

// Workload F: the operations are the READ-MODIFY-WRITEs and the plain reads,
// not the sum of the blocks, in both tools.
func TestYCSBPeerWorkloadF(t *testing.T) {
	// Java: [READ] 20000 = 10003 plain reads + the 9997 read-modify-writes'
	// reads; [UPDATE] 9997 are theirs; [OVERALL] 6459.948320413437 ops/s over
	// 3096 ms = 20000 operations.
	j := one(t, "ycsb/java-0.18-redis-workloadf-run.txt")
	eq(t, "java operations", j.Summary.Extra[ycsbparams.Operations], float64(20000))
	eq(t, "java transactions", j.Summary.Transactions, int64(20000))
	if j.Summary.Extra[ycsbparams.Operations] == float64(20000+9997+9997) {
		t.Error("java: the blocks summed")
	}
	// go-ycsb: READ 20000, READ_MODIFY_WRITE 9969, UPDATE 9969, TOTAL 29969
	// (reads and updates); 10031 plain reads + 9969 read-modify-writes = 20000.
	g := one(t, "ycsb/go-ycsb101-redis-workloadf-run.txt")
	eq(t, "go-ycsb operations", g.Summary.Extra[ycsbparams.Operations], float64(20000))
	eq(t, "go-ycsb total calls", ycsbEnv(g)["total_calls"], any(int64(29969)))
	names := map[string]bool{}
	for _, op := range g.Ops {
		names[op.Name] = true
	}
	if !names[ycsbparams.ReadModifyWrite] || names["READ_MODIFY_WRITE"] {
		t.Errorf("go-ycsb op names %v: READ_MODIFY_WRITE is not under its ycsbparams name", names)
	}
	if !hasDeviation(g, "counts each READ-MODIFY-WRITE once") {
		t.Errorf("deviations: %v", g.Deviations)
	}
	// Both: the headline is operations per second.
	near(t, "java headline", j.Headline().Value, 6459.948320413437, 0.01)
	near(t, "go-ycsb headline", g.Headline().Value, 20000/6.079068887, 1e-6)
}

// go-ycsb's READ_ERROR line: a failed read is an error of READ, counted as an
// operation but not a successful one.
func TestYCSBPeerGoYcsbReadError(t *testing.T) {
	r := one(t, "ycsb/go-ycsb101-mongodb-workloadc-run.txt")
	eq(t, "READ errors", r.Ops[0].Errors[result.ErrOther], int64(1))
	eq(t, "READ ok", r.Ops[0].Count, int64(999))
	eq(t, "operations", r.Summary.Extra[ycsbparams.Operations], float64(1000))
	if hasDeviation(r, "undercounted") {
		t.Errorf("workload C has no read-modify-write: %v", r.Deviations)
	}
}

// An op type whose every call failed (UPDATE_ERROR without UPDATE) is an op
// with no successful operation, its failures counted; the same output with
// the READ_ERROR line of go-ycsb101-mongodb-workloadc-run renamed.
func TestYCSBPeerGoYcsbAllFailed(t *testing.T) {
	text := readFixture(t, "ycsb/go-ycsb101-mongodb-workloadc-run.txt")
	text = replaceOnce(t, text, "READ_ERROR - Takes(s): 4.3, Count: 1,", "UPDATE_ERROR - Takes(s): 4.3, Count: 1,")
	runs, err := parseYcsb("x.txt", text)
	if err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	eq(t, "ops", len(r.Ops), 2)
	eq(t, "UPDATE", r.Ops[1].Name, "UPDATE")
	eq(t, "UPDATE count", r.Ops[1].Count, int64(0))
	eq(t, "UPDATE errors", r.Ops[1].Errors[result.ErrOther], int64(1))
	eq(t, "failed", r.Summary.Failed, int64(1))
	eq(t, "operations", r.Summary.Extra[ycsbparams.Operations], float64(1000))
	if math.IsNaN(r.Summary.Throughput) {
		t.Error("NaN throughput")
	}
}

func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if strings.Count(s, old) != 1 {
		t.Fatalf("%q is not in the text exactly once", old)
	}
	return strings.Replace(s, old, new, 1)
}
