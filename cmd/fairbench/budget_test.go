package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/testenv"
)

// cpuQuotaCgroup makes a cgroup of the test's own limited to quota/period of a
// CPU (cgroup v2 cpu.max, else v1 cpu.cfs_quota_us) and returns its directory;
// it is removed when the test ends. The test is skipped where no cgroup
// hierarchy with the cpu controller is writable (not root, a read-only
// /sys/fs/cgroup, v2 without the cpu controller delegated).
func cpuQuotaCgroup(t *testing.T, quota, period int) string {
	t.Helper()
	name := fmt.Sprintf("fbtest-%d-%d", os.Getpid(), time.Now().UnixNano())
	var dir string
	var files map[string]string
	if c, err := os.ReadFile("/sys/fs/cgroup/cgroup.subtree_control"); err == nil && strings.Contains(" "+string(c)+" ", " cpu ") {
		dir, files = filepath.Join("/sys/fs/cgroup", name), map[string]string{"cpu.max": fmt.Sprintf("%d %d", quota, period)}
	} else if _, err := os.Stat("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"); err == nil {
		dir = filepath.Join("/sys/fs/cgroup/cpu", name)
		files = map[string]string{"cpu.cfs_period_us": fmt.Sprint(period), "cpu.cfs_quota_us": fmt.Sprint(quota)}
	} else {
		t.Skip("no cgroup hierarchy with the cpu controller (v2 with cpu delegated, or v1's cpu)")
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot make a cgroup: %v", err)
	}
	t.Cleanup(func() {
		// The processes in it have ended; a cgroup is removed with rmdir.
		if err := os.Remove(dir); err != nil {
			t.Logf("removing the cgroup %s: %v", dir, err)
		}
	})
	for _, f := range []string{"cpu.cfs_period_us", "cpu.cfs_quota_us", "cpu.max"} {
		if v, ok := files[f]; ok {
			if err := os.WriteFile(filepath.Join(dir, f), []byte(v), 0o644); err != nil {
				t.Skipf("cannot set the cgroup's quota: %v", err)
			}
		}
	}
	return dir
}

// fairbench in a cgroup limited to 0.3 CPU: the run records that budget and
// where it comes from, its per-second CPU stays within it, and the report
// judges load-generator saturation against it (14 % of the host's threads
// would never have been warned of).
func TestCPUQuotaIsTheLoadGeneratorsBudget(t *testing.T) {
	url := testenv.ValkeyURL(t)
	prefix := testenv.RedisKeyPrefix(t)
	cg := cpuQuotaCgroup(t, 30000, 100000)
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", `echo $$ > "$0/cgroup.procs" && exec "$@"`, cg, binary,
		"run", "--target", url, "--workload", "kv", "--ratio", "1:4", "--pipeline", "16", "-c", "2", "-t", "2",
		"--key-maximum", "500", "--key-prefix", prefix, "--test-time", "4s", "--warmup", "0s", "--results", "r.db")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	runs := runsIn(t, filepath.Join(dir, "r.db"))
	if len(runs) != 1 {
		t.Fatalf("%d runs stored, want 1", len(runs))
	}
	r := runs[0]
	host := r.Env.Host
	if host.CPUBudget != 0.3 || !strings.Contains(host.CPUBudgetSource, "30000") {
		t.Fatalf("budget %v from %q, want 0.3 from the cgroup's quota", host.CPUBudget, host.CPUBudgetSource)
	}
	var cpu []float64
	for _, p := range r.Series {
		cpu = append(cpu, p.CPU)
	}
	med := hist.Median(cpu)
	if med > 0.3*1.2 {
		t.Fatalf("median CPU %.2f cores in a cgroup of 0.3: the quota was not applied", med)
	}
	o := fairbench(t, dir, "report", "--results", "r.db", "--format", "md")
	text := strings.Join(strings.Fields(o.stdout), " ") // the report wraps its lines
	saturated := strings.Contains(text, "**load-generator**: run 1") && strings.Contains(text, "of its CPU budget of 0.30 cores (cgroup cpu")
	// A busy host may give fairbench less than its quota: the warning
	// follows the median, whichever way it went.
	if want := med >= analysis.SaturationShare*0.3; saturated != want {
		t.Fatalf("median CPU %.3f of 0.3: saturation warned %v, want %v\n%s", med, saturated, want, o.stdout)
	}
	t.Logf("median CPU %.3f cores of a 0.3 budget, saturation warned: %v", med, saturated)
}
