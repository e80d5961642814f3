package nodeexp

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// Idle is the host's CPU busy share between its two scrapes: 10 s busy of
// 40 s of CPU time is 25 %.
func TestIdleIsTheShareBetweenTwoScrapes(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		idle, user := 100.0, 0.0
		if n.Add(1) > 1 {
			idle, user = 130, 10
		}
		fmt.Fprintf(w, "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} %g\nnode_cpu_seconds_total{cpu=\"0\",mode=\"user\"} %g\n", idle, user)
	}))
	defer srv.Close()
	s, err := New(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Idle(context.Background(), 10*time.Millisecond)
	if err != nil || got == nil || math.Abs(got.CPU-25) > 1e-9 || n.Load() != 2 {
		t.Fatalf("idle %+v, %v after %d scrapes: want 25 %% busy from 2", got, err, n.Load())
	}
}
