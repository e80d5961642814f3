package runner

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/study"
)

// With the target's node_exporter given, the run records its host's CPU in
// the idle window before the run, which the server-busy check reads.
func TestIdleServerCPUIsRecorded(t *testing.T) {
	old := idleWindow
	idleWindow = 20 * time.Millisecond
	t.Cleanup(func() { idleWindow = old })
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		k := float64(n.Add(1))
		// Each scrape adds 3 s idle and 1 s user: 25 % busy.
		fmt.Fprintf(w, "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} %g\nnode_cpu_seconds_total{cpu=\"0\",mode=\"user\"} %g\n", 3*k, k)
	}))
	defer srv.Close()
	runs, err := runHooked(t, context.Background(), "fake-test", "fake://x", 1, func(st *study.Study) {
		st.Targets[0].NodeExporter = srv.URL + "/metrics"
	})
	if err != nil || len(runs) != 1 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	s := runs[0].Env.Server
	if s.IdleCPU == nil || *s.IdleCPU != 25 || s.IdleSeconds <= 0 {
		t.Fatalf("server %+v: want 25 %% idle CPU recorded", s)
	}
}
