package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fairbench/fairbench/internal/k8s"
	"github.com/fairbench/fairbench/internal/testenv"
)

// testCluster is the one-node cluster scripts/k8s-cluster.sh starts
// (test-servers starts it when its binaries are cached): its kubeconfig, the
// fairbench image built from this checkout, and a namespace of the test's own,
// deleted with everything in it when the test ends.
type testCluster struct {
	kubeconfig, image, namespace string
}

func clusterForTest(t *testing.T) testCluster {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the cluster tests take a minute and more")
	}
	kc, img := os.Getenv("FAIRBENCH_TEST_K8S_KUBECONFIG"), os.Getenv("FAIRBENCH_TEST_K8S_IMAGE")
	if kc == "" || img == "" {
		t.Skip("no test cluster: FAIRBENCH_TEST_K8S_KUBECONFIG and FAIRBENCH_TEST_K8S_IMAGE unset (bash scripts/k8s-cluster.sh start; eval \"$(bash scripts/k8s-cluster.sh env)\")")
	}
	b := make([]byte, 4)
	rand.Read(b) //nolint:errcheck // crypto/rand does not fail on Linux
	c := testCluster{kubeconfig: kc, image: img, namespace: "fbtest-" + hex.EncodeToString(b)}
	t.Setenv("KUBECONFIG", kc)
	c.kubectl(t, "create", "namespace", c.namespace)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		exec.CommandContext(ctx, "kubectl", "--kubeconfig", kc, "delete", "namespace", c.namespace, "--wait=false").Run() //nolint:errcheck // best effort
	})
	return c
}

func (c testCluster) kubectl(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", c.kubeconfig}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// secret creates the Secret the pods take their passwords from.
func (c testCluster) secret(t *testing.T, name string, env map[string]string) {
	t.Helper()
	args := []string{"-n", c.namespace, "create", "secret", "generic", name}
	for k, v := range env {
		args = append(args, "--from-literal="+k+"="+v)
	}
	c.kubectl(t, args...)
}

// leftovers lists what of run label value is still in the namespace.
func (c testCluster) leftovers(t *testing.T) string {
	t.Helper()
	return strings.TrimSpace(c.kubectl(t, "-n", c.namespace, "get", "jobs,configmaps,pods", "-l", k8s.LabelRun, "-o", "name"))
}

// clusterRun is a study of one tpcb cell on n generator pods against a
// fresh database of the test PostgreSQL, its results store there too, and
// the Secret holding both passwords (the local process reads the store's
// from FAIRBENCH_RESULTS_PASSWORD).
type clusterRun struct {
	dir, studyFile string
	target         string // with its password, for the test's own checks
	results        string // without
	pw, rpw        string // the target's and the store's passwords
}

func (c testCluster) study(t *testing.T, n int, duration string) clusterRun {
	t.Helper()
	full := testenv.FreshPostgres(t)
	target, pw := withoutPassword(t, full)
	results, rpw := withoutPassword(t, pgResults(t, "fbk8s_"))
	c.secret(t, "bench-pw", map[string]string{"PGPASSWORD": pw, "FAIRBENCH_RESULTS_PASSWORD": rpw})
	t.Setenv("FAIRBENCH_RESULTS_PASSWORD", rpw)
	dir := t.TempDir()
	return clusterRun{dir: dir, studyFile: generatorsStudy(t, dir, target, 2*n, n, duration), target: full, results: results, pw: pw, rpw: rpw}
}

// args is the k8s run command line of the study on the test cluster with
// image: the node's network, small requests so that every pod fits one node.
func (k clusterRun) args(c testCluster, image string) []string {
	return []string{"k8s", "run", k.studyFile, "--image", image, "--results", k.results,
		"--secret", "bench-pw", "--namespace", c.namespace, "--host-network",
		"--cpu", "100m", "--memory", "1Gi", "--coordinator-cpu", "100m", "--coordinator-memory", "1Gi"}
}

// withoutPassword returns u without its password, and the password.
func withoutPassword(t *testing.T, raw string) (string, string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	u.User = url.User(u.User.Username())
	return u.String(), pw
}

// The acceptance of issue 55: three generator pods with the node's network
// against the loopback PostgreSQL, the results store on it too. The merged
// run is the sum of its parts and of the server's own count (one
// pgbench_history row per transaction); the three shared the one node, and
// the report says so; every object is gone afterwards.
func TestK8sRunOnTheTestCluster(t *testing.T) {
	c := clusterForTest(t)
	k := c.study(t, 3, "4s")
	full, results, dir, pw, rpw := k.target, k.results, k.dir, k.pw, k.rpw
	o := fairbench(t, dir, k.args(c, c.image)...)
	if o.code != 0 {
		t.Fatalf("k8s run: exit %d\nstdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
	}
	run, parts := onlyRun(t, results)
	checkMerged(t, run, parts, 6, 3)
	for _, g := range run.Env.LoadGenerators {
		if g.Node == "" {
			t.Errorf("generator %d: no node recorded (%s from spec.nodeName)", g.Index, k8s.NodeEnv)
		}
		// Each pod measured its clock against the store's before it joined.
		if g.ClockRTTMS <= 0 {
			t.Errorf("generator %d: no clock check recorded (round trip %v ms, offset %v ms)", g.Index, g.ClockRTTMS, g.ClockOffsetMS)
		}
	}
	t.Logf("k8s run's progress:\n%s", o.stderr)
	if !strings.Contains(o.stdout, "shared a node") {
		t.Errorf("three generators on one node, and the report does not say so:\n%s", o.stdout)
	}
	// While the pods measure, k8s run shows the cell's per-second totals,
	// read from the store (not from the pods' logs, which a cluster may not serve).
	if !regexp.MustCompile(`(?m)^k8s run fb-[^:]+: cell 1 \(.*\), [0-9.]+ s: [1-9][0-9.]* ops/s, .*, 3 generators$`).MatchString(o.stderr) {
		t.Errorf("no per-second total of the three generators in k8s run's progress:\n%s", o.stderr)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, full)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var history int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pgbench_history").Scan(&history); err != nil {
		t.Fatal(err)
	}
	if history != run.Summary.Transactions {
		t.Errorf("pgbench_history holds %d rows, the merged run counts %d transactions", history, run.Summary.Transactions)
	}
	if left := c.leftovers(t); left != "" {
		t.Errorf("objects left after k8s run:\n%s", left)
	}
	if strings.Contains(o.stdout+o.stderr, pw) || strings.Contains(o.stdout+o.stderr, rpw) {
		t.Errorf("a password shows in k8s run's output")
	}
}

// An image that does not exist: a clear error naming the pod and the pull
// within --pull-timeout, and nothing left behind.
func TestK8sRunMissingImage(t *testing.T) {
	c := clusterForTest(t)
	k := c.study(t, 2, "2s")
	o := fairbench(t, k.dir, append(k.args(c, "fairbench.local/no-such-image:0"), "--pull-timeout", "20s")...)
	if o.code == 0 {
		t.Fatalf("k8s run with a missing image exited 0\n%s", o.stderr)
	}
	for _, want := range []string{"pod ", "waited 20s", "Err", "no-such-image"} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("error lacks %q:\n%s", want, o.stderr)
		}
	}
	if left := c.leftovers(t); left != "" {
		t.Errorf("objects left after a failed k8s run:\n%s", left)
	}
}

// A pod that fails on its own (its store password wrong in the Secret, the
// local one right): k8s run exits non-zero naming the pod, with its events
// and its last log lines, which hold the pod's own error; the password shows
// nowhere, and nothing is left behind.
func TestK8sRunFailedPodShowsItsLog(t *testing.T) {
	c := clusterForTest(t)
	k := c.study(t, 2, "2s")
	wrong := "wrong-" + k.rpw
	c.kubectl(t, "-n", c.namespace, "delete", "secret", "bench-pw")
	c.secret(t, "bench-pw", map[string]string{"PGPASSWORD": k.pw, "FAIRBENCH_RESULTS_PASSWORD": wrong})
	o := fairbench(t, k.dir, k.args(c, c.image)...)
	if o.code == 0 {
		t.Fatalf("k8s run with a wrong store password in its pods exited 0\n%s", o.stderr)
	}
	t.Logf("k8s run's error:\n%s", o.stderr)
	for _, want := range []string{"pod ", "coordinator", "last log lines:", "password authentication failed"} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("error lacks %q:\n%s", want, o.stderr)
		}
	}
	for _, line := range strings.Split(o.stderr, "\n") {
		if strings.Count(line, "k8s run fb-") > 1 {
			t.Errorf("a line names the run twice: %s", line)
		}
	}
	// The store's right password is in the wrong one too.
	if out := o.stdout + o.stderr; strings.Contains(out, k.rpw) || strings.Contains(out, k.pw) {
		t.Errorf("a password shows in k8s run's output")
	}
	if left := c.leftovers(t); left != "" {
		t.Errorf("objects left after a failed k8s run:\n%s", left)
	}
}

// k8s run's own flags are checked before kubectl is called.
func TestK8sRunFlagDomains(t *testing.T) {
	dir := t.TempDir()
	studyFile := generatorsStudy(t, dir, "postgres://bench@db.example/bench", 2, 2, "2s")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--pull-timeout", "0s"}, "--pull-timeout"},
		{[]string{"--timeout", "-1s"}, "--timeout"},
		{[]string{"--kubectl", filepath.Join(dir, "no-kubectl")}, "kubectl is not installed"},
	} {
		args := append([]string{"k8s", "run", studyFile, "--image", "x/y:1", "--results", "postgres://u@db.example/r"}, c.args...)
		o := fairbench(t, dir, args...)
		if o.code == 0 || !strings.Contains(o.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want a refusal naming %q", c.args, o.code, o.stderr, c.want)
		}
	}
}

// startK8sRun starts `fairbench k8s run` of a study of one tpcb cell on n
// generators in the background; wait returns its outcome.
func startK8sRun(t *testing.T, c testCluster, n int, duration string) (dir string, results string, wait func() outcome) {
	t.Helper()
	k := c.study(t, n, duration)
	done := make(chan outcome, 1)
	go func() { done <- fairbench(t, k.dir, k.args(c, c.image)...) }()
	return k.dir, k.results, func() outcome { return <-done }
}

// waitRunning waits (generously) until the pods of component run, and
// returns their names.
func (c testCluster) waitRunning(t *testing.T, component string, n int) []string {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		out := c.kubectl(t, "-n", c.namespace, "get", "pods", "-l", "app.kubernetes.io/component="+component,
			"--field-selector", "status.phase=Running", "-o", "name")
		if names := strings.Fields(out); len(names) >= n {
			return names
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Fatalf("%d %s pod(s) not running after 3 minutes", n, component)
	return nil
}

// A generator pod killed mid-run: the cell's run is not stored as a clean
// merged run, it names the generator, and k8s run exits non-zero; nothing is
// left behind.
func TestK8sRunGeneratorKilled(t *testing.T) {
	c := clusterForTest(t)
	_, results, wait := startK8sRun(t, c, 2, "20s")
	pods := c.waitRunning(t, "generator", 2)
	time.Sleep(3 * time.Second) // into the measured phase
	c.kubectl(t, "-n", c.namespace, "delete", pods[1], "--grace-period=0", "--force")
	o := wait()
	if o.code == 0 {
		t.Fatalf("k8s run exited 0 after a generator was killed\n%s\n%s", o.stdout, o.stderr)
	}
	runs := runsIn(t, results)
	if len(runs) == 0 {
		t.Fatalf("no run stored: the failed cell must be stored, naming the generator\n%s", o.stderr)
	}
	for _, r := range runs {
		if r.Status == "ok" {
			t.Errorf("run %d stored ok although generator pod %s was killed during it", r.ID, pods[1])
		}
		if !strings.Contains(r.Error, "generator") {
			t.Errorf("run %d: error %q does not name the generator", r.ID, r.Error)
		}
	}
	if left := c.leftovers(t); left != "" {
		t.Errorf("objects left:\n%s", left)
	}
}

// The coordinator's pod killed: k8s run exits non-zero saying so, and
// deletes the generators, which would otherwise wait for their deadline.
func TestK8sRunCoordinatorKilled(t *testing.T) {
	c := clusterForTest(t)
	_, _, wait := startK8sRun(t, c, 2, "20s")
	pods := c.waitRunning(t, "coordinator", 1)
	c.waitRunning(t, "generator", 2)
	c.kubectl(t, "-n", c.namespace, "delete", pods[0], "--grace-period=0", "--force")
	o := wait()
	if o.code == 0 || !strings.Contains(o.stderr, "coordinator") {
		t.Fatalf("k8s run after its coordinator was killed: exit %d, stderr:\n%s", o.code, o.stderr)
	}
	if left := c.leftovers(t); left != "" {
		t.Errorf("objects left:\n%s", left)
	}
}

// Ctrl-C during k8s run: it stops following, deletes every object it
// created, and exits as an interrupted command does.
func TestK8sRunInterrupted(t *testing.T) {
	c := clusterForTest(t)
	k := c.study(t, 2, "60s")
	cmd := exec.Command(binary, k.args(c, c.image)...)
	cmd.Dir = k.dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c.waitRunning(t, "generator", 2)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("k8s run exited 0 after Ctrl-C")
		}
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill() //nolint:errcheck // the test fails anyway
		t.Fatalf("k8s run did not end within 3 minutes of Ctrl-C\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted") || !strings.Contains(stderr.String(), "every object it created is gone") {
		t.Errorf("k8s run after Ctrl-C does not say it was interrupted and cleaned up:\n%s", stderr.String())
	}
	if left := c.leftovers(t); left != "" {
		t.Errorf("objects left after Ctrl-C:\n%s", left)
	}
}
