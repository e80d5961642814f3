package nodeexp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// exposition writes node_exporter's text format with the metric names, help,
// types and labels node_exporter uses, for a 2-CPU host whose counters grow
// by step per scrape.
func exposition(step int) string {
	s := float64(step)
	return fmt.Sprintf(`# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.
# TYPE node_cpu_seconds_total counter
node_cpu_seconds_total{cpu="0",mode="idle"} %g
node_cpu_seconds_total{cpu="0",mode="iowait"} %g
node_cpu_seconds_total{cpu="0",mode="system"} %g
node_cpu_seconds_total{cpu="0",mode="user"} %g
node_cpu_seconds_total{cpu="1",mode="idle"} %g
node_cpu_seconds_total{cpu="1",mode="system"} %g
node_cpu_seconds_total{cpu="1",mode="user"} %g
# HELP node_disk_io_time_seconds_total Total seconds spent doing I/Os.
# TYPE node_disk_io_time_seconds_total counter
node_disk_io_time_seconds_total{device="nvme0n1"} %g
node_disk_io_time_seconds_total{device="sda"} %g
node_disk_io_time_seconds_total{device="loop0"} %g
# HELP node_network_receive_bytes_total Network device statistic receive_bytes.
# TYPE node_network_receive_bytes_total counter
node_network_receive_bytes_total{device="eth0"} %g
node_network_receive_bytes_total{device="lo"} %g
# HELP node_network_transmit_bytes_total Network device statistic transmit_bytes.
# TYPE node_network_transmit_bytes_total counter
node_network_transmit_bytes_total{device="eth0"} %g
node_network_transmit_bytes_total{device="lo"} %g
# HELP node_memory_MemTotal_bytes Memory information field MemTotal_bytes.
# TYPE node_memory_MemTotal_bytes gauge
node_memory_MemTotal_bytes 1.7179869184e+10
`,
		1000+0.2*s, 10+0.1*s, 100+0.2*s, 200+0.5*s, // cpu0: per step 0.2 idle, 0.1 iowait, 0.2 system, 0.5 user
		1000+0.5*s, 100+0.1*s, 200+0.4*s, // cpu1: 0.5 idle, 0.1 system, 0.4 user
		50+0.6*s, 50+0.1*s, 50+1.0*s, // loop0 is ignored
		1e9+1e6*s, 5e9+9e9*s, // lo is ignored
		2e9+4e6*s, 5e9+9e9*s)
}

func TestBetweenHandComputed(t *testing.T) {
	a, err := parse(exposition(0))
	if err != nil {
		t.Fatal(err)
	}
	b, err := parse(exposition(10))
	if err != nil {
		t.Fatal(err)
	}
	a.At = time.Unix(0, 0)
	b.At = a.At.Add(10 * time.Second)
	s := between(a, b)
	// CPU over 10 steps: busy 0.2+0.5+0.1+0.4 = 1.2 of total 1.0+1.0 = 2.0 per step → 60 %.
	// Disk: nvme0n1 6 s of io_time in 10 s → 60 % (loop0's 100 % is ignored).
	// Network: eth0 only, 1e6 and 4e6 bytes per step of 1 s.
	if !near(s.CPU, 60) || !near(s.DiskUtil, 60) || !near(s.NetRx, 1e6) || !near(s.NetTx, 4e6) {
		t.Errorf("sample %+v", *s)
	}
	if b.MemoryBytes != 16<<30 {
		t.Errorf("memory %v", b.MemoryBytes)
	}
}

func near(a, b float64) bool { d := a - b; return d < 1e-6*max(1, b) && d > -1e-6*max(1, b) }

// A fake node_exporter on loopback: the sampler scrapes it in the background
// and Take turns consecutive scrapes into samples.
func TestSamplerAgainstFakeExporter(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprint(w, exposition(int(n.Add(1))))
	}))
	defer srv.Close()
	s, err := New(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := s.Start(ctx, 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	var got float64
	for i := 0; i < 200 && got == 0; i++ { // bounded: at most ~2 s
		time.Sleep(10 * time.Millisecond)
		if smp := s.Take(); smp != nil {
			got = smp.CPU
		}
	}
	if !near(got, 60) {
		t.Errorf("CPU from the fake exporter = %v, want 60", got)
	}
	if s.Memory() != 16<<30 {
		t.Errorf("memory %v", s.Memory())
	}
	bad, _ := New(srv.URL + "/nope")
	if err := bad.Start(ctx, time.Second); err == nil {
		t.Error("a 404 must fail Start")
	}
	if _, err := New("ftp://user:secret@host/metrics"); err == nil || contains(err.Error(), "secret") {
		t.Errorf("bad URL error %v", err)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
