package envinfo

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeTree writes files (path → content) under a fresh root.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const (
	mountsV2 = "30 1 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n"
	mountsV1 = "31 25 0:27 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n" +
		"32 25 0:28 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n"
)

// The budget is the smallest of the host's threads, GOMAXPROCS, the quota
// and the cpuset, over the process's cgroup and its ancestors, in cgroup v2
// and v1 alike.
func TestBudgetReadsTheCgroupQuotaCpusetAndGOMAXPROCS(t *testing.T) {
	for _, tc := range []struct {
		name       string
		files      map[string]string
		gomaxprocs int
		cores      float64
		source     string
	}{
		{"v2 quota", map[string]string{
			"proc/self/cgroup": "0::/bench\n", "proc/self/mountinfo": mountsV2,
			"sys/fs/cgroup/bench/cpu.max": "30000 100000\n", "sys/fs/cgroup/cpu.max": "max 100000\n",
		}, 8, 0.3, "cgroup cpu.max 30000 100000"},
		{"v2 parent's quota", map[string]string{
			"proc/self/cgroup": "0::/a/b\n", "proc/self/mountinfo": mountsV2,
			"sys/fs/cgroup/a/b/cpu.max": "max 100000\n", "sys/fs/cgroup/a/cpu.max": "150000 100000\n",
		}, 8, 1.5, "cgroup cpu.max 150000 100000"},
		{"v2 cpuset", map[string]string{
			"proc/self/cgroup": "0::/c\n", "proc/self/mountinfo": mountsV2,
			"sys/fs/cgroup/c/cpu.max": "max 100000\n", "sys/fs/cgroup/c/cpuset.cpus.effective": "0-1,3\n",
		}, 8, 3, "cpuset 0-1,3"},
		{"v1 quota", map[string]string{
			"proc/self/cgroup": "4:cpu,cpuacct:/bench\n3:cpuset:/\n", "proc/self/mountinfo": mountsV1,
			"sys/fs/cgroup/cpu,cpuacct/bench/cpu.cfs_quota_us": "30000\n", "sys/fs/cgroup/cpu,cpuacct/bench/cpu.cfs_period_us": "100000\n",
			"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "-1\n", "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n",
			"sys/fs/cgroup/cpuset/cpuset.cpus": "0-7\n",
		}, 8, 0.3, "cgroup cpu.cfs_quota_us 30000 / cpu.cfs_period_us 100000"},
		{"v1 in a container's cgroup namespace", map[string]string{
			// The mount shows the container's own cgroup as its root.
			"proc/self/cgroup":                           "4:cpu,cpuacct:/docker/abc\n",
			"proc/self/mountinfo":                        "31 25 0:27 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro - cgroup cgroup rw,cpu,cpuacct\n",
			"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "50000\n", "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n",
		}, 8, 0.5, "cgroup cpu.cfs_quota_us 50000 / cpu.cfs_period_us 100000"},
		{"GOMAXPROCS", map[string]string{
			"proc/self/cgroup": "0::/\n", "proc/self/mountinfo": mountsV2, "sys/fs/cgroup/cpu.max": "max 100000\n",
		}, 1, 1, "GOMAXPROCS 1"},
		{"no cgroup files", nil, 8, 4, "host threads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := budget(writeTree(t, tc.files), 4, tc.gomaxprocs)
			if b.Cores != tc.cores || b.Source != tc.source {
				t.Fatalf("got %.2f cores from %q, want %.2f from %q", b.Cores, b.Source, tc.cores, tc.source)
			}
		})
	}
}

// The run delay is summed over the process's threads; steal and used time
// are shares of the host's CPU time between two readings.
func TestLoadSumsRunDelayAndReadsSteal(t *testing.T) {
	before := readLoad(writeTree(t, map[string]string{
		"proc/self/task/1/schedstat": "5000 100000000 7\n", "proc/self/task/2/schedstat": "5000 50000000 3\n",
		"proc/stat": "cpu  100 0 50 800 10 0 0 40 0 0\ncpu0 50 0 25 400 5 0 0 20 0 0\n",
	}))
	after := readLoad(writeTree(t, map[string]string{
		"proc/self/task/1/schedstat": "9000 400000000 9\n", "proc/self/task/2/schedstat": "9000 150000000 5\n",
		"proc/stat": "cpu  200 0 100 900 10 0 0 90 0 0\n",
	}))
	if w, ok := after.WaitSince(before); !ok || w != 400*time.Millisecond {
		t.Fatalf("wait %v (%v), want 400ms", w, ok)
	}
	if s, ok := after.StealSince(before); !ok || s != 50.0/300 {
		t.Fatalf("steal share %v (%v), want 1/6", s, ok)
	}
	if u, ok := after.UsedSince(before); !ok || u != 1.5 {
		t.Fatalf("used %v CPU s (%v), want 1.5", u, ok)
	}
	if _, ok := readLoad(t.TempDir()).WaitSince(before); ok {
		t.Fatal("a wait without schedstat")
	}
}
