package ycsb

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/ycsbparams"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/workload"
)

func newInstance(t *testing.T, set map[string]any) (*instance, error) {
	t.Helper()
	v := params.Values{}
	for _, s := range ycsbparams.Specs() {
		v[s.Name] = s.Default
	}
	for k, x := range set {
		v[k] = x
	}
	in, err := Workload{}.New(v)
	if err != nil {
		return nil, err
	}
	return in.(*instance), nil
}

// Precedence as YCSB's command line: the preset's file, then the kind's
// parameters, then -P files in order, then -p.
func TestPropertiesPrecedence(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "w")
	os.WriteFile(f, []byte("# a YCSB workload file\nfieldcount=3\nreadproportion=0.2\nupdateproportion=0.8\nrecordcount=77\n"), 0o644)
	in, err := newInstance(t, map[string]any{"workload": "c", "recordcount": int64(500),
		"property_files": []string{f}, "properties": []string{"fieldcount=4"}})
	if err != nil {
		t.Fatal(err)
	}
	c := in.cfg
	if c.FieldCount != 4 || c.RecordCount != 77 || c.ReadProportion != 0.2 || c.UpdateProportion != 0.8 || c.RequestDist != "zipfian" {
		t.Fatalf("config %+v", c)
	}
}

// YCSB ignores what it does not know; fairbench names it and where it came from.
func TestBadPropertiesAreErrorsNamingThem(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "wl")
	os.WriteFile(f, []byte("readproportoin=0.5\n"), 0o644)
	for _, c := range []struct {
		set  map[string]any
		want []string
	}{
		{map[string]any{"properties": []string{"requestdistributon=uniform"}}, []string{"-p", `unknown property "requestdistributon"`}},
		{map[string]any{"property_files": []string{f}}, []string{f + ":1", `"readproportoin"`}},
		{map[string]any{"properties": []string{"readproportion=0.9"}}, []string{"proportions sum to 1.4", "readproportion=0.9 (-p)", "updateproportion=0.5 (preset workloada)"}},
		{map[string]any{"properties": []string{"threadcount=8"}}, []string{`"threadcount"`, "--threads"}},
		{map[string]any{"properties": []string{"mongodb.url=mongodb://x/y"}}, []string{`"mongodb.url"`, "--target"}},
		{map[string]any{"properties": []string{"dataintegrity=true"}}, []string{"dataintegrity"}},
		{map[string]any{"properties": []string{"fieldcount"}}, []string{"name=value"}},
		{map[string]any{"property_files": []string{filepath.Join(dir, "missing")}}, []string{filepath.Join(dir, "missing")}},
	} {
		_, err := newInstance(t, c.set)
		if err == nil {
			t.Fatalf("%v: no error", c.set)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q lacks %q", c.set, err, w)
			}
		}
	}
}

// The operation chooser draws each operation with its proportion
// (DiscreteGenerator), and never one whose proportion is 0.
func TestOperationMixFollowsTheProportions(t *testing.T) {
	w := []float64{0.5, 0.2, 0.05, 0.25, 0}
	c := newCumulative(w)
	r := rand.New(rand.NewPCG(1, 2))
	const n = 200000
	var got [5]int
	for range n {
		got[c.next(r)]++
	}
	for i, p := range w {
		share := float64(got[i]) / n
		// 5 standard deviations of a binomial share.
		if tol := 5 * math.Sqrt(p*(1-p)/n); math.Abs(share-p) > tol || (p == 0 && got[i] > 0) {
			t.Errorf("op %d: share %.4f, want %.4f ± %.4f", i, share, p, tol)
		}
	}
}

// The summary reads as Java YCSB's: throughput is the operations counter
// over the run time, each op type with its count, latencies and returns.
func TestPeerSummaryIsYCSBsShape(t *testing.T) {
	h := hist.New()
	for i := int64(1); i <= 100; i++ {
		h.RecordValue(i * 10)
	}
	enc, err := hist.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	run := &result.Run{Duration: 2500 * time.Millisecond,
		Summary: result.Summary{Extra: map[string]float64{ycsbparams.Operations: 150}},
		Ops: []result.Op{
			{Name: ycsbparams.Read, Count: 100, Histogram: enc, Errors: map[result.ErrorClass]int64{result.ErrNotFound: 2, result.ErrTimeout: 1}},
			{Name: ycsbparams.Update, Count: 0},
		}}
	var b bytes.Buffer
	peerSummary(&b, run)
	out := b.String()
	for _, want := range []string{
		"[OVERALL], RunTime(ms), 2500\n",
		"[OVERALL], Throughput(ops/sec), 60\n",
		"[READ], Operations, 100\n",
		"[READ], AverageLatency(us), 505\n",
		"[READ], MinLatency(us), 10\n",
		"[READ], 95thPercentileLatency(us), 950\n",
		"[READ], Return=OK, 100\n",
		"[READ], Return=NOT_FOUND, 2\n",
		"[READ], Return=ERROR, 1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "[UPDATE]") {
		t.Errorf("an op type with no operation is printed:\n%s", out)
	}
}

// -p is a repeatable flag on the list parameter properties.
func TestFlagsMapToParameters(t *testing.T) {
	specs := Workload{}.Params()
	for _, f := range (Workload{}).Flags() {
		if f.Param == "" {
			continue
		}
		s, ok := params.Find(specs, f.Param)
		if !ok {
			t.Fatalf("flag %s sets unknown parameter %s", f.Name, f.Param)
		}
		if f.Repeat != (s.Kind == params.StringList) {
			t.Errorf("flag %s: repeat %v for a %s parameter", f.Name, f.Repeat, s.Kind)
		}
	}
	var _ workload.Flagger = Workload{}
}

func TestRecordEncodingRoundTrips(t *testing.T) {
	vals := [][]byte{[]byte("a"), {}, bytes.Repeat([]byte("x"), 300)}
	enc := encodeRecord(nil, vals)
	got, err := decodeRecord(nil, enc, 3)
	if err != nil || len(got) != 3 || string(got[0]) != "a" || len(got[1]) != 0 || len(got[2]) != 300 {
		t.Fatalf("%q %v", got, err)
	}
	if _, err := decodeRecord(nil, enc[:len(enc)-1], 3); err == nil {
		t.Fatal("a truncated record decodes")
	}
}

// Java's String.hashCode, YCSB's redis index score.
func TestJavaHashCode(t *testing.T) {
	for s, want := range map[string]int32{"": 0, "a": 97, "user1": 111578566, "user6284781860667377211": -594971599} { // printed by Java 17's String.hashCode
		if got := javaHashCode(s); got != want {
			t.Errorf("hashCode(%q) = %d, want %d", s, got, want)
		}
	}
}

// TestDeviationsOnlyOfTheMix: a layout's deviation is told only to a run
// whose mix has an operation it concerns: the Redis scan note to workload
// E, not A; the SQL missing-row UPDATE note to A, not C (reads only).
func TestDeviationsOnlyOfTheMix(t *testing.T) {
	scanNote, updateNote := "ZRANGEBYSCORE names in one pipeline", "an UPDATE of a missing row"
	for _, tc := range []struct {
		preset string
		layout func(*instance) layout
		note   string
		want   bool
	}{
		{"a", func(in *instance) layout { return &kvLayout{in: in, hashes: true} }, scanNote, false},
		{"e", func(in *instance) layout { return &kvLayout{in: in, hashes: true} }, scanNote, true},
		{"c", func(in *instance) layout { return &sqlLayout{in: in} }, updateNote, false},
		{"a", func(in *instance) layout { return &sqlLayout{in: in} }, updateNote, true},
		{"f", func(in *instance) layout { return &sqlLayout{in: in} }, updateNote, true}, // read-modify-write
	} {
		in, err := newInstance(t, map[string]any{ycsbparams.Workload: tc.preset})
		if err != nil {
			t.Fatal(err)
		}
		in.layout = tc.layout(in)
		_, devs := in.describe(nil)
		got := strings.Contains(strings.Join(devs, "\n"), tc.note)
		if got != tc.want {
			t.Errorf("%s on %T: note %q told = %v, want %v (deviations %q)", tc.preset, in.layout, tc.note, got, tc.want, devs)
		}
	}
}
