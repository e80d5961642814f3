package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/fairbench/fairbench/internal/live"
	"github.com/fairbench/fairbench/internal/testenv"
)

// serveStudy writes a short study on embedded SQLite: tpcb, reps
// repetitions of a 1 s warm-up and a 2 s measured phase, under a name a
// page must escape.
func serveStudy(t *testing.T, dir string, reps int) string {
	t.Helper()
	path := filepath.Join(dir, "study.toml")
	text := fmt.Sprintf(`[study]
name = "live <b>&amp;</b> 'study'"
repetitions = %d
warmup = "1s"
duration = "2s"
seed = 7

[[target]]
name = "lite"
url = %q

[[workload]]
name = "tpcb"
kind = "tpcb"
scale = 1
clients = 2
`, reps, "sqlite:"+filepath.Join(dir, "bench.db"))
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// served is a `fairbench run --serve` in progress.
type served struct {
	cmd    *exec.Cmd
	url    string
	exited chan error
	stderr *strings.Builder
}

var liveURL = regexp.MustCompile(`^live page: (http://127\.0\.0\.1:\d+/)`)

// startServed starts fairbench with args in dir and waits for the live
// page's URL on its stderr.
func startServed(t *testing.T, dir string, args ...string) *served {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &served{cmd: cmd, exited: make(chan error, 1), stderr: &strings.Builder{}}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	urls := make(chan string, 1)
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			if m := liveURL.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
			select {
			case lines <- sc.Text():
			default:
			}
		}
		close(lines)
		s.exited <- cmd.Wait()
	}()
	select {
	case s.url = <-urls:
	case <-time.After(time.Minute):
		t.Fatalf("no live page URL on stderr in a minute")
	}
	go func() {
		for l := range lines {
			s.stderr.WriteString(l + "\n")
		}
	}()
	return s
}

// snapshot reads the live page's JSON.
func (s *served) snapshot(t *testing.T) *live.Snapshot {
	t.Helper()
	c := http.Client{Timeout: 5 * time.Second}
	res, err := c.Get(s.url + "live.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var snap live.Snapshot
	if err := json.NewDecoder(res.Body).Decode(&snap); err != nil {
		t.Fatal(err)
	}
	return &snap
}

// stop interrupts it (Ctrl-C) and waits for it to exit.
func (s *served) stop(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.exited:
	case <-time.After(time.Minute):
		t.Fatal("run --serve-wait did not exit within a minute of Ctrl-C")
	}
}

// untilReport polls the snapshot until the final report is served, and
// returns every snapshot seen.
func (s *served) untilReport(t *testing.T) []*live.Snapshot {
	t.Helper()
	var seen []*live.Snapshot
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		snap := s.snapshot(t)
		seen = append(seen, snap)
		if snap.Report {
			return seen
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no final report in 2 minutes; stderr:\n%s", s.stderr)
	return nil
}

// TestServeProgressAdvances: the snapshot of a short study counts its
// cells as they finish, the running cell's points grow, each finished
// cell's headline stands beside its repetition, and at the end the page
// serves the study's HTML report; --serve-wait serves on until Ctrl-C.
func TestServeProgressAdvances(t *testing.T) {
	endToEnd(t)
	dir := t.TempDir()
	s := startServed(t, dir, "run", serveStudy(t, dir, 2), "--results", filepath.Join(dir, "r.db"), "--serve", "--serve-wait")
	seen := s.untilReport(t)
	last := seen[len(seen)-1]
	done, points := map[int]bool{}, 0
	grew := false
	for i, snap := range seen {
		done[snap.Counts.Done] = true
		if i > 0 && snap.Counts.Done < seen[i-1].Counts.Done {
			t.Errorf("cells done went back: %d after %d", snap.Counts.Done, seen[i-1].Counts.Done)
		}
		if snap.Running != nil {
			if n := len(snap.Running.Points); n > points && points > 0 {
				grew = true
			}
			points = max(points, len(snap.Running.Points))
		}
	}
	if !done[0] || !done[2] || len(done) < 2 {
		t.Errorf("cells done seen: %v; want 0, then up to 2", done)
	}
	if !grew {
		t.Errorf("the running cell's points never grew (at most %d)", points)
	}
	if last.State != live.StudyDone || last.Counts != (live.Counts{Total: 2, Done: 2}) {
		t.Errorf("at the end: state %q, counts %+v", last.State, last.Counts)
	}
	if len(last.Scenarios) != 1 || len(last.Scenarios[0].Reps) != 2 || last.Scenarios[0].Reps[0].Value <= 0 {
		t.Errorf("one scenario with its 2 repetitions' headlines: %+v", last.Scenarios)
	}
	res, err := http.Get(s.url + "report")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "live &lt;b&gt;&amp;amp;&lt;/b&gt;") {
		t.Errorf("/report: %d, want the study's HTML report with its name escaped (%d bytes)", res.StatusCode, len(body))
	}
	s.stop(t)
}

// TestServeAdHocAndGenerators: an ad-hoc run and a study on two load
// generators (the coordinator's page) show their cell and end with the
// report; without --serve-wait, run exits once the study ends.
func TestServeAdHocAndGenerators(t *testing.T) {
	endToEnd(t)
	dir := t.TempDir()
	adHoc := []string{"run", "--target", "sqlite:" + filepath.Join(dir, "a.db"), "--workload", "tpcb", "-c", "2", "-T", "1", "--results", filepath.Join(dir, "r.db"), "--serve"}
	s := startServed(t, dir, append(adHoc, "--serve-wait")...)
	seen := s.untilReport(t)
	if last := seen[len(seen)-1]; last.Counts.Done != 1 || len(last.Scenarios) != 1 || last.Scenarios[0].Reps[0].Value <= 0 {
		t.Errorf("ad hoc: %+v, scenarios %+v", last.Counts, last.Scenarios)
	}
	s.stop(t)
	s = startServed(t, dir, adHoc...)
	select {
	case err := <-s.exited:
		if err != nil {
			t.Errorf("ad hoc without --serve-wait: %v\n%s", err, s.stderr)
		}
	case <-time.After(time.Minute):
		t.Fatal("run --serve without --serve-wait did not exit once the run ended")
	}

	studyFile := generatorsStudy(t, dir, "sqlite:"+filepath.Join(dir, "g.db"), 4, 2, "4s")
	g := startServed(t, dir, "run", studyFile, "--results", filepath.Join(dir, "r.db"), "--serve", "--serve-wait")
	seen = g.untilReport(t)
	last := seen[len(seen)-1]
	// While the generators measure, the chart already has the cell's
	// per-second totals (parttotals.go), not only once the merged run is in.
	live := false
	for _, snap := range seen {
		live = live || (snap.Counts.Done == 0 && snap.Running != nil && len(snap.Running.Points) > 0)
	}
	if !live {
		t.Errorf("2 generators: no point on the running cell's chart before the cell ended")
	}
	if last.Counts.Done != 1 || last.Running == nil || len(last.Running.Points) == 0 || len(last.Scenarios) != 1 {
		t.Errorf("2 generators: %+v; the merged run's series must reach the chart, its headline the table", last.Counts)
	}
	g.stop(t)
}

// TestServeInterruptStops: Ctrl-C during a measured phase stops run --serve
// as it stops run: the interrupted run is stored and the command exits 130,
// the page having said so.
func TestServeInterruptStops(t *testing.T) {
	endToEnd(t)
	dir := t.TempDir()
	s := startServed(t, dir, "run", "--target", "sqlite:"+filepath.Join(dir, "a.db"), "--workload", "tpcb", "-c", "1", "-T", "300",
		"--results", filepath.Join(dir, "r.db"), "--serve", "--serve-wait")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if snap := s.snapshot(t); snap.Running != nil && len(snap.Running.Points) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no reading of the running cell in 2 minutes; stderr:\n%s", s.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := s.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.exited:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted {
			t.Errorf("after Ctrl-C: %v, want exit %d", err, exitInterrupted)
		}
	case <-time.After(time.Minute):
		t.Fatal("run --serve did not stop within a minute of Ctrl-C")
	}
}

// TestServeRefusesOpenAddressWithoutToken: an address other machines reach
// needs --serve-token, refused before anything runs.
func TestServeRefusesOpenAddressWithoutToken(t *testing.T) {
	endToEnd(t)
	dir := t.TempDir()
	o := fairbench(t, dir, "run", serveStudy(t, dir, 1), "--results", filepath.Join(dir, "r.db"), "--serve=0.0.0.0:0")
	if o.code == 0 || !strings.Contains(o.stderr, "--serve-token") {
		t.Errorf("exit %d, stderr %q; want a refusal naming --serve-token", o.code, o.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "bench.db")); err == nil {
		t.Error("the study ran before the flag was refused")
	}
	o = fairbench(t, dir, "run", serveStudy(t, dir, 1), "--results", filepath.Join(dir, "r.db"), "--serve", "127.0.0.1:8080")
	if o.code == 0 || !strings.Contains(o.stderr, "--serve=127.0.0.1:8080") {
		t.Errorf("an address after a bare --serve: exit %d, stderr %q; want how to write it", o.code, o.stderr)
	}
	o = fairbench(t, dir, "run", serveStudy(t, dir, 1), "--results", filepath.Join(dir, "r.db"), "--serve=0.0.0.0:0", "--serve-token", "short")
	if o.code == 0 || !strings.Contains(o.stderr, "at least") {
		t.Errorf("a short token: exit %d, stderr %q", o.code, o.stderr)
	}
}

// TestServePageInBrowser opens the live page in headless Chromium during
// a short study: the chart's points grow, the count of cells done
// advances, and the final report appears on the page.
func TestServePageInBrowser(t *testing.T) {
	endToEnd(t)
	dir := t.TempDir()
	tab, stopBrowser := testenv.Browser(t, 3*time.Minute)
	defer stopBrowser()
	s := startServed(t, dir, "run", serveStudy(t, dir, 2), "--results", filepath.Join(dir, "r.db"), "--serve", "--serve-wait")
	if err := chromedp.Run(tab, chromedp.Navigate(s.url), chromedp.WaitReady("#chart-rate")); err != nil {
		t.Fatal(err)
	}
	shots := testenv.ArtifactDir(t, "../..")
	type view struct {
		Done, Points int
		Report       bool
		ReportText   string
	}
	read := `(() => {
		const f = document.getElementById("report");
		let text = "";
		try { text = f && f.contentDocument && f.contentDocument.body ? f.contentDocument.body.innerText : ""; } catch (e) {}
		return {Done: +document.getElementById("done").textContent,
			Points: +(document.getElementById("chart-rate").getAttribute("data-points") || 0),
			Report: !!f, ReportText: text.slice(0, 2000)};
	})()`
	var views []view
	midShot := ""
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		var v view
		if err := chromedp.Run(tab, chromedp.Evaluate(read, &v)); err != nil {
			t.Fatal(err)
		}
		views = append(views, v)
		if midShot == "" && v.Points >= 2 {
			midShot = filepath.Join(shots, "live-running.png")
			saveShot(t, tab, midShot)
		}
		if v.Report && strings.Contains(v.ReportText, "study") {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	last := views[len(views)-1]
	if !last.Report || !strings.Contains(last.ReportText, "live <b>&amp;</b> 'study'") {
		t.Fatalf("the final report did not appear with the study's name as text; last view %+v\nstderr:\n%s", last, s.stderr)
	}
	finalShot := filepath.Join(shots, "live-final.png")
	saveShot(t, tab, finalShot)
	grew, advanced := false, false
	for i := 1; i < len(views); i++ {
		grew = grew || (views[i].Points > views[i-1].Points && views[i-1].Points > 0)
		advanced = advanced || views[i].Done > views[i-1].Done
	}
	if !grew || !advanced || last.Done != 2 {
		t.Errorf("points grew %v, cells done advanced %v (last %d of 2); views %+v", grew, advanced, last.Done, views)
	}
	t.Logf("screenshots: %s, %s", midShot, finalShot)
	s.stop(t)
}

// saveShot saves a full-page screenshot of tab at path.
func saveShot(t *testing.T, tab context.Context, path string) {
	t.Helper()
	var png []byte
	if err := chromedp.Run(tab, chromedp.FullScreenshot(&png, 100)); err != nil {
		t.Logf("screenshot: %v", err)
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Logf("screenshot not saved: %v", err)
		}
	}
}
