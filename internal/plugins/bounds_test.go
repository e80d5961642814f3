package plugins_test

import (
	"math"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/params"
	_ "github.com/fairbench/fairbench/internal/plugins"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// hostile are the values every numeric parameter is given: as TOML and
// the command line hand them over (an integer parameter gets NaN and Inf
// as the numbers a study file's nan and inf are).
var hostile = []struct {
	name string
	v    any
}{{"NaN", math.NaN()}, {"Inf", math.Inf(1)}, {"-1", int64(-1)}, {"0", int64(0)}, {"1e12", int64(1e12)}}

// acceptedHostile are the hostile values a parameter legitimately takes:
// seeds take any number; 0 means "none" or "the default"; key indices and
// counts of requests or records are ranges and totals, not sizes.
var acceptedHostile = map[string]bool{}

func init() {
	for _, k := range []string{
		"bulkindex/seed=-1", "bulkindex/seed=0", "bulkindex/seed=1e12",
		"search/seed=-1", "search/seed=0", "search/seed=1e12", "search/replicas=0",
		"bulkindex/replicas=0", "bulkindex/retries=0", "bulkindex/ingest_percentage=0", "bulkindex/conflict_probability=0",
		"clickbench/seed=-1", "clickbench/seed=0", "clickbench/seed=1e12",
		"ssb/seed=-1", "ssb/seed=0", "ssb/seed=1e12",
		"tpcc/seed=0", "tpcc/seed=1e12",
		"kv/key_minimum=0", "kv/key_maximum=1e12", "kv/requests=0", "kv/requests=1e12",
		"kv/key_stddev=0", "kv/key_stddev=1e12", "kv/key_median=0", "kv/key_median=1e12",
		"ycsb/operationcount=0", "ycsb/operationcount=1e12", "ycsb/recordcount=1e12",
		// pgbench's -t and sysbench's --events: 0 is "run for the duration";
		// a count past what runs in 24 h is ended by the 24 h cap, as
		// operationcount is.
		"tpcb/transactions=0", "tpcb/transactions=1e12", "oltp/events=0", "oltp/events=1e12",
		"oltp/point_selects=0", "oltp/simple_ranges=0", "oltp/sum_ranges=0", "oltp/order_ranges=0",
		"oltp/distinct_ranges=0", "oltp/index_updates=0", "oltp/non_index_updates=0", "oltp/delete_inserts=0",
		"oltp/rand_spec_pct=0", "oltp/rand_spec_res=0",
	} {
		acceptedHostile[k] = true
	}
}

// Every numeric parameter of every registered workload, given NaN, Inf,
// -1, 0 and 10^12, is refused before anything connects — by its domain
// (params.Coerce), by the workload binding its values, or by the memory the
// cell would need on a 16 GB load generator — with one line naming the
// parameter; or the value is one it legitimately takes (acceptedHostile).
func TestEveryNumericParameterHasADomain(t *testing.T) {
	seen := map[string]bool{}
	for _, kind := range workload.Kinds() {
		w, err := workload.Get(kind)
		if err != nil {
			t.Fatal(err)
		}
		specs := w.Params()
		for _, spec := range specs {
			if spec.Kind != params.Int && spec.Kind != params.Float {
				continue
			}
			if spec.Max == nil {
				t.Errorf("%s: %s has no Max", kind, spec.Name)
			}
			for _, h := range hostile {
				key := kind + "/" + spec.Name + "=" + h.name
				seen[key] = true
				err := refusal(w, spec, h.v)
				switch {
				case err == nil && !acceptedHostile[key]:
					t.Errorf("%s is accepted: give %s a domain that refuses it, or list it as legitimate", key, spec.Name)
				case err != nil && acceptedHostile[key]:
					t.Errorf("%s is listed as accepted but refused: %v", key, err)
				case err != nil && (!strings.Contains(err.Error(), spec.Name) || strings.Contains(err.Error(), "\n")):
					t.Errorf("%s: the refusal is not one line naming %s: %v", key, spec.Name, err)
				}
			}
		}
	}
	for k := range acceptedHostile {
		if !seen[k] {
			t.Errorf("acceptedHostile lists %s, which no workload has", k)
		}
	}
}

// refusal is the error that stops a one-client cell of w with spec set to
// raw before anything connects, or nil when it would run.
func refusal(w workload.Workload, spec params.Spec, raw any) error {
	v, err := params.Coerce(spec, raw)
	if err != nil {
		return err
	}
	values := params.WithDefaults(w.Params(), params.Values{spec.Name: v})
	if _, err := w.New(values); err != nil {
		return err
	}
	cell := study.Cell{
		Target:   &study.Target{Name: "t", URL: "bbolt:unused.bolt"},
		Workload: &study.Workload{Name: w.Kind(), Kind: w.Kind()},
		Params:   values, Clients: 1,
	}
	return runner.CheckMemoryWithin([]study.Cell{cell}, 16<<30, "a 16 GB machine")
}

// Values each within their domain can still size buffers past the machine
// together (data_size × pipeline × clients, fieldcount × fieldlength): the
// memory check refuses the cell, naming the parameter and the most clients
// that fit.
func TestParametersThatSizeBuffersAreCheckedAgainstMemory(t *testing.T) {
	for _, tc := range []struct {
		kind   string
		values params.Values
		want   string
	}{
		{"kv", params.Values{"data_size": int64(512 << 20), "pipeline": int64(100)}, "data_size 536870912"},
		{"ycsb", params.Values{"properties": []string{"fieldcount=1024", "fieldlength=268435456"}}, "properties fieldcount=1024,fieldlength=268435456"},
	} {
		w, err := workload.Get(tc.kind)
		if err != nil {
			t.Fatal(err)
		}
		values := params.WithDefaults(w.Params(), tc.values)
		if _, err := w.New(values); err != nil {
			t.Fatalf("%s: %v", tc.kind, err)
		}
		cell := study.Cell{
			Target:   &study.Target{Name: "t", URL: "bbolt:unused.bolt"},
			Workload: &study.Workload{Name: tc.kind, Kind: tc.kind},
			Params:   values, Clients: 4,
		}
		err = runner.CheckMemoryWithin([]study.Cell{cell}, 16<<30, "a 16 GB machine")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "4 clients need") {
			t.Errorf("%s: %v, want a refusal naming %q", tc.kind, err, tc.want)
		}
	}
}
