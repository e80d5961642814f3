package adapter

import (
	"testing"

	"github.com/fairbench/fairbench/internal/hist"
)

// fioEnvDir returns the run's per-direction numbers kept for the reports.
func fioEnvDir(t *testing.T, path, dir string) map[string]any {
	t.Helper()
	fe, _ := one(t, path).Env.Extra["fio"].(map[string]any)
	de, _ := fe[dir].(map[string]any)
	if de == nil {
		t.Fatalf("%s: no env.fio.%s", path, dir)
	}
	return de
}

// One entry per direction (numjobs=1, or group_reporting): the percentiles
// kept are the ones fio printed, to the nanosecond, in plain json and json+
// alike (json+'s bins read with HdrHistogram's rank give 85.503 ms for p99).
func TestFioKeepsPrintedPercentiles(t *testing.T) {
	rr := fioEnvDir(t, "fio/fio333-randrw-8k-json.txt", "read")
	near(t, "randrw read iops", rr["iops"].(float64), 28728.029294, 0)
	near(t, "randrw read bw", rr["bw_bytes"].(float64), 235340015, 0)
	near(t, "randrw read clat mean", rr["clat_mean_us"].(float64), 3466.144232332, 1e-9)
	near(t, "randrw read p99", rr["clat_p99_us"].(float64), 15794.176, 1e-9)
	near(t, "randrw read p99.9", rr["clat_p99.9_us"].(float64), 28180.48, 1e-9)
	rw := fioEnvDir(t, "fio/fio333-randrw-8k-json.txt", "write")
	near(t, "randrw write bw", rw["bw_bytes"].(float64), 59771057, 0)
	near(t, "randrw write p99", rw["clat_p99_us"].(float64), 17956.864, 1e-9)

	sr := fioEnvDir(t, "fio/fio333-seqread-1m-jsonplus.txt", "read")
	near(t, "seqread p99", sr["clat_p99_us"].(float64), 86507.52, 1e-9)
	near(t, "seqread p99.9", sr["clat_p99.9_us"].(float64), 96993.28, 1e-9)
}

// Two clones reported apart: no printed percentile covers both, so they come
// from the clones' merged histogram, the run's write operation.
func TestFioClonesPercentilesFromMergedHistogram(t *testing.T) {
	r := one(t, "fio/fio333-seqwrite-logs")
	fe := r.Env.Extra["fio"].(map[string]any)
	w := fe["write"].(map[string]any)
	near(t, "iops", w["iops"].(float64), 814.79014+911.19947, 1e-9)
	h, err := hist.Decode(r.Ops[0].Histogram)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "p99", w["clat_p99_us"].(float64), float64(h.ValueAtQuantile(99)), 0)
	near(t, "p99.9", w["clat_p99.9_us"].(float64), float64(h.ValueAtQuantile(99.9)), 0)
}
