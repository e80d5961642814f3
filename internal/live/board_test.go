package live

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
)

// cellsOf are n repetitions of one cell, with a name a page must escape.
func cellsOf(n int) []study.Cell {
	t := &study.Target{Name: `db"><script>alert(1)</script>`}
	w := &study.Workload{Name: "tpcb", Kind: "tpcb"}
	cells := make([]study.Cell, n)
	for i := range cells {
		cells[i] = study.Cell{Index: i, Target: t, Workload: w, Clients: 2, Repetition: i + 1, Duration: 2 * time.Second}
	}
	return cells
}

// fakeClock is a clock the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestBoardCountsTicksAndETA(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	cells := cellsOf(3)
	b := NewBoard("study", cells, []time.Duration{10 * time.Second, 10 * time.Second, 10 * time.Second})
	b.now = clock.now
	if c := b.Snapshot().Counts; c.Total != 3 || c.Left != 3 || c.Done != 0 {
		t.Fatalf("before anything ran: %+v", c)
	}
	b.CellStarted(0, cells[0])
	for i := range MaxPoints + 50 {
		clock.t = clock.t.Add(time.Second / 10)
		b.Tick(kinds.Tick{Elapsed: time.Duration(i+1) * time.Second, Point: result.SeriesPoint{Rate: float64(i), P99: 2000, Missed: i == 3}})
	}
	s := b.Snapshot()
	if s.Counts.Running != 1 || s.Counts.Left != 2 {
		t.Errorf("one running: %+v", s.Counts)
	}
	if n := len(s.Running.Points); n != MaxPoints {
		t.Errorf("%d points kept, want the last %d", n, MaxPoints)
	}
	if last := s.Running.Points[len(s.Running.Points)-1]; last.Rate != MaxPoints+49 || last.P99 != 2 {
		t.Errorf("last point %+v: want the last reading, its latency in ms", last)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0].Text, "not read in time") {
		t.Errorf("a missed second must warn: %+v", s.Warnings)
	}
	// The first cell took twice its estimate: what is left is estimated
	// twice as long too.
	clock.t = time.Unix(1e9, 0).Add(20 * time.Second)
	run := &result.Run{Status: result.StatusOK, Summary: result.Summary{Throughput: 123,
		Flags: []result.Flag{{Kind: "host busy", Reason: "others used 2 cores"}}}}
	b.CellEnded(0, run, nil)
	s = b.Snapshot()
	if s.Counts.Done != 1 || s.Counts.Running != 0 || s.Counts.Left != 2 {
		t.Errorf("one done: %+v", s.Counts)
	}
	if s.ETA == nil || *s.ETA != 40 {
		t.Errorf("ETA %v, want 40 s (2 cells of 10 s, at the first's pace of 2×)", s.ETA)
	}
	if len(s.Scenarios) != 1 || len(s.Scenarios[0].Reps) != 1 || s.Scenarios[0].Reps[0].Value != 123 {
		t.Errorf("the headline beside its repetition: %+v", s.Scenarios)
	}
	if !strings.Contains(warningsText(s), "host busy") {
		t.Errorf("the run's flag must warn: %+v", s.Warnings)
	}
	b.CellSkipped(1)
	b.CellStarted(2, cells[2])
	b.CellEnded(2, &result.Run{Status: result.StatusFailed, Error: "boom"}, errors.New("boom"))
	b.Finish([]byte("<p>report</p>"), errors.New("1 of 3 cells failed"))
	s = b.Snapshot()
	if s.Counts != (Counts{Total: 3, Done: 2, Failed: 1, Skipped: 1}) {
		t.Errorf("at the end: %+v", s.Counts)
	}
	if s.State != StudyFailed || !s.Report || string(b.Report()) != "<p>report</p>" {
		t.Errorf("state %q, report %v", s.State, s.Report)
	}
	if got := s.Scenarios[0].Reps; len(got) != 2 || got[1].Status != "failed" {
		t.Errorf("the failed repetition beside the first: %+v", got)
	}
}

func warningsText(s *Snapshot) string {
	var parts []string
	for _, w := range s.Warnings {
		parts = append(parts, w.Text)
	}
	return strings.Join(parts, "\n")
}

// A snapshot once published never changes: a reader may hold it while the
// runner goes on.
func TestSnapshotIsImmutable(t *testing.T) {
	cells := cellsOf(2)
	b := NewBoard("study", cells, make([]time.Duration, 2))
	b.CellStarted(0, cells[0])
	b.Tick(kinds.Tick{Elapsed: time.Second, Point: result.SeriesPoint{Rate: 1}})
	held := b.Snapshot()
	heldJSON, _ := json.Marshal(held)
	for i := range 5 {
		b.Tick(kinds.Tick{Elapsed: time.Duration(i+2) * time.Second, Point: result.SeriesPoint{Rate: 2}})
	}
	b.CellEnded(0, &result.Run{Status: result.StatusOK}, nil)
	again, _ := json.Marshal(held)
	if string(again) != string(heldJSON) {
		t.Errorf("a published snapshot changed:\n%s\n%s", heldJSON, again)
	}
}

// The page escapes the study's names: the title by html/template, the rest
// reach it as JSON, which the script sets as text.
func TestPageEscapesTheTitle(t *testing.T) {
	b := NewBoard(`<script>alert(1)</script>`, cellsOf(1), nil)
	srv, err := Serve(DefaultAddr, "", b)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	body, code := get(t, srv.URL(), nil)
	if code != http.StatusOK || strings.Contains(body, "<script>alert(1)") || !strings.Contains(body, "&lt;script&gt;alert(1)") {
		t.Errorf("status %d; the title is not escaped:\n%.600s", code, body)
	}
	if strings.Contains(body, "innerHTML") {
		t.Error("the page's script must not use innerHTML")
	}
}

func TestTokenRequired(t *testing.T) {
	b := NewBoard("study", cellsOf(1), nil)
	if _, err := Serve("0.0.0.0:0", "", b); err == nil || !strings.Contains(err.Error(), "--serve-token") {
		t.Fatalf("an address other machines reach, without a token: %v, want a refusal naming --serve-token", err)
	}
	if _, err := Serve(DefaultAddr, "short", b); err == nil {
		t.Fatal("a 5-character token was taken")
	}
	const token = "0123456789abcdef-token"
	srv, err := Serve(DefaultAddr, token, b)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, path := range []string{"", "live.json"} {
		if _, code := get(t, srv.URL()+path, nil); code != http.StatusUnauthorized {
			t.Errorf("/%s without the token: %d, want 401", path, code)
		}
		if _, code := get(t, srv.URL()+path+"?token=wrong-wrong-wrong-wrong", nil); code != http.StatusUnauthorized {
			t.Errorf("/%s with a wrong token: %d, want 401", path, code)
		}
		if _, code := get(t, srv.URL()+path+"?token="+token, nil); code != http.StatusOK {
			t.Errorf("/%s with ?token=: %d, want 200", path, code)
		}
		if _, code := get(t, srv.URL()+path, map[string]string{TokenHeader: token}); code != http.StatusOK {
			t.Errorf("/%s with the header: %d, want 200", path, code)
		}
	}
	if body, _ := get(t, srv.URL()+"?token="+token, nil); !strings.Contains(body, "requires its token") {
		t.Error("the page must say that it requires its token")
	}
}

func TestCheckAddr(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:0": true, "localhost:8080": true, "[::1]:0": true, ":8080": false, "0.0.0.0:1": false, "10.1.2.3:80": false} {
		if got, err := CheckAddr(addr); err != nil || got != want {
			t.Errorf("CheckAddr(%q) = %v, %v; want %v", addr, got, err, want)
		}
	}
	for _, bad := range []string{"8080", "127.0.0.1:-1", "127.0.0.1:65536", "127.0.0.1:NaN", "127.0.0.1:1e12"} {
		if _, err := CheckAddr(bad); err == nil {
			t.Errorf("CheckAddr(%q) took it", bad)
		}
	}
}

func get(t *testing.T, url string, header map[string]string) (string, int) {
	t.Helper()
	req := httptest.NewRequest("GET", url, nil)
	req.RequestURI = ""
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var sb strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := res.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return sb.String(), res.StatusCode
}

// Readers of the page never wait for the runner, nor the runner for them:
// with the race detector, they share nothing but the published pointer.
func TestReadersWhileTheRunnerWrites(t *testing.T) {
	cells := cellsOf(2)
	b := NewBoard("study", cells, nil)
	srv, err := Serve(DefaultAddr, "", b)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	stop := make(chan struct{})
	read := make(chan int)
	go func() {
		n := 0
		defer func() { read <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if body, code := get(t, srv.URL()+"live.json", nil); code != http.StatusOK || !strings.Contains(body, `"counts"`) {
				t.Errorf("live.json: %d %.200s", code, body)
				return
			}
			n++
		}
	}()
	for i, c := range cells {
		b.CellStarted(i, c)
		for k := range 300 {
			b.Tick(kinds.Tick{Elapsed: time.Duration(k) * time.Second, Point: result.SeriesPoint{Rate: float64(k)}})
		}
		b.CellEnded(i, &result.Run{Status: result.StatusOK}, nil)
	}
	b.Finish(nil, nil)
	close(stop)
	if n := <-read; n == 0 {
		t.Log("no read overlapped the writes (a slow machine); the race detector saw nothing to check")
	}
	if s := b.Snapshot(); s.Counts.Done != 2 || s.State != StudyDone {
		t.Errorf("at the end: %+v %s", s.Counts, s.State)
	}
}

// BenchmarkTick is what the runner pays per progress tick for the page: a
// full chart's copy and one snapshot published (bench/README.md, serve.sh).
func BenchmarkTick(b *testing.B) {
	cells := cellsOf(1)
	board := NewBoard("study", cells, nil)
	board.CellStarted(0, cells[0])
	for k := range MaxPoints {
		board.Tick(kinds.Tick{Elapsed: time.Duration(k) * time.Second, Point: result.SeriesPoint{Rate: 1}})
	}
	b.ReportAllocs()
	for k := 0; b.Loop(); k++ {
		board.Tick(kinds.Tick{Elapsed: time.Duration(MaxPoints+k) * time.Second, Point: result.SeriesPoint{Rate: 1}})
	}
}

// BenchmarkSnapshotJSON is what one reader's poll costs the process (the
// page polls once a second): a full chart encoded.
func BenchmarkSnapshotJSON(b *testing.B) {
	cells := cellsOf(1)
	board := NewBoard("study", cells, nil)
	board.CellStarted(0, cells[0])
	for k := range MaxPoints {
		board.Tick(kinds.Tick{Elapsed: time.Duration(k) * time.Second, Point: result.SeriesPoint{Rate: 1234.5, P50: 1234, P95: 5678, P99: 9012}})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(board.Snapshot()); err != nil {
			b.Fatal(err)
		}
	}
}

// A starved second (nothing completed or failed while fairbench's threads
// waited for a CPU, what the run's host-busy flag counts) warns as it
// comes, once per repetition; a second without operations alone does not
// (a slow query set has many).
func TestBoardWarnsOfAStarvedSecond(t *testing.T) {
	cells := cellsOf(1)
	b := NewBoard("study", cells, []time.Duration{10 * time.Second})
	b.CellStarted(0, cells[0])
	b.Tick(kinds.Tick{Elapsed: time.Second, Point: result.SeriesPoint{CPUWait: 0.1}})
	b.Tick(kinds.Tick{Elapsed: 2 * time.Second, Point: result.SeriesPoint{Ops: 5, Rate: 5, CPUWait: 0.9}})
	if w := b.Snapshot().Warnings; len(w) != 0 {
		t.Fatalf("an idle second and a busy one with operations warned: %+v", w)
	}
	for i := range 3 {
		b.Tick(kinds.Tick{Elapsed: time.Duration(3+i) * time.Second, Point: result.SeriesPoint{CPUWait: result.StarvedCPUWait}})
	}
	if w := b.Snapshot().Warnings; len(w) != 1 || !strings.Contains(w[0].Text, "waited for a CPU") {
		t.Errorf("three starved seconds: %+v, want one warning naming the CPU wait", w)
	}
}
