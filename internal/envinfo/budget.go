package envinfo

// The CPU fairbench may use: a container's quota or cpuset, or GOMAXPROCS,
// can be far below the host's threads, and a load generator saturates
// against what it may use, not against what the host has.

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// cpuBudget is the CPU fairbench's process may use, in cores, and what sets it.
type cpuBudget struct {
	Cores  float64
	Source string // "host threads", "cgroup cpu.max 30000 100000", "cpuset 0-1", "GOMAXPROCS 1"
}

// budget is the smallest of the host's threads (the process's CPU affinity),
// GOMAXPROCS, and the cgroup's CPU quota and cpuset (cgroup v2 cpu.max and
// cpuset.cpus.effective; v1 cpu.cfs_quota_us / cpu.cfs_period_us and
// cpuset.cpus), over the process's cgroup and its ancestors. root is the file
// system root the /proc and /sys files are read under ("/" on a live system).
func budget(root string, threads, gomaxprocs int) cpuBudget {
	b := cpuBudget{Cores: float64(threads), Source: "host threads"}
	lower := func(cores float64, source string) {
		if cores > 0 && cores < b.Cores {
			b = cpuBudget{Cores: cores, Source: source}
		}
	}
	lower(float64(gomaxprocs), fmt.Sprintf("GOMAXPROCS %d", gomaxprocs))
	for _, dir := range cgroupDirs(root, "cpu", "cpuset") {
		// Every ancestor's limit applies too: walk up to the mount point.
		for d := dir.path; ; d = filepath.Dir(d) {
			if dir.v2 {
				lower(quotaV2(d))
				lower(cpusetOf(d, "cpuset.cpus.effective"))
			} else {
				lower(quotaV1(d))
				lower(cpusetOf(d, "cpuset.effective_cpus"))
				lower(cpusetOf(d, "cpuset.cpus"))
			}
			if d == dir.mount || len(d) <= len(dir.mount) {
				break
			}
		}
	}
	return b
}

// quotaV2 reads cgroup v2's cpu.max, "$MAX $PERIOD" or "max $PERIOD".
func quotaV2(dir string) (float64, string) {
	text := readTrim(filepath.Join(dir, "cpu.max"))
	f := strings.Fields(text)
	if len(f) != 2 || f[0] == "max" {
		return 0, ""
	}
	q, err1 := strconv.ParseFloat(f[0], 64)
	p, err2 := strconv.ParseFloat(f[1], 64)
	if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
		return 0, ""
	}
	return q / p, "cgroup cpu.max " + text
}

// quotaV1 reads cgroup v1's cpu.cfs_quota_us (-1: none) and cpu.cfs_period_us.
func quotaV1(dir string) (float64, string) {
	q, err1 := strconv.ParseFloat(readTrim(filepath.Join(dir, "cpu.cfs_quota_us")), 64)
	p, err2 := strconv.ParseFloat(readTrim(filepath.Join(dir, "cpu.cfs_period_us")), 64)
	if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
		return 0, ""
	}
	return q / p, fmt.Sprintf("cgroup cpu.cfs_quota_us %.0f / cpu.cfs_period_us %.0f", q, p)
}

// cpusetOf counts the CPUs of a cpuset list file ("0-3,6").
func cpusetOf(dir, file string) (float64, string) {
	list := readTrim(filepath.Join(dir, file))
	n := 0
	for part := range strings.SplitSeq(list, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return 0, ""
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return 0, ""
			}
		}
		n += b - a + 1
	}
	if n == 0 {
		return 0, ""
	}
	return float64(n), "cpuset " + list
}

// cgroupDir is the directory of the process's cgroup in one hierarchy:
// cgroup v2's, or that of one of the v1 controllers asked for.
type cgroupDir struct {
	path, mount string
	v2          bool
}

// cgroupDirs finds the process's cgroup directories from /proc/self/cgroup
// and /proc/self/mountinfo: a mount shows the hierarchy from its root (a
// container's own cgroup, under a cgroup namespace), so the directory is the
// mount point joined with the cgroup path below that root.
func cgroupDirs(root string, v1Controllers ...string) []cgroupDir {
	paths := map[string]string{} // "v2", "cpu", "cpuset" → the process's cgroup path
	forLines(filepath.Join(root, "proc/self/cgroup"), func(line string) {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			return
		}
		if f[0] == "0" && f[1] == "" {
			paths["v2"] = f[2]
			return
		}
		for c := range strings.SplitSeq(f[1], ",") {
			if slices.Contains(v1Controllers, c) {
				paths[c] = f[2]
			}
		}
	})
	var dirs []cgroupDir
	forLines(filepath.Join(root, "proc/self/mountinfo"), func(line string) {
		pre, post, ok := strings.Cut(line, " - ")
		fields, rest := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(rest) < 3 {
			return
		}
		var keys []string
		switch rest[0] {
		case "cgroup2":
			keys = []string{"v2"}
		case "cgroup":
			for o := range strings.SplitSeq(rest[2], ",") {
				if slices.Contains(v1Controllers, o) {
					keys = append(keys, o)
				}
			}
		}
		mountRoot, mount := unescapeMount(fields[3]), filepath.Join(root, unescapeMount(fields[4]))
		for _, k := range keys {
			p, ok := paths[k]
			if !ok {
				continue
			}
			rel, err := filepath.Rel(mountRoot, p)
			if err != nil || strings.HasPrefix(rel, "..") {
				rel = "." // the mount shows another part of the hierarchy: its root is ours
			}
			dirs = append(dirs, cgroupDir{path: filepath.Join(mount, rel), mount: mount, v2: k == "v2"})
		}
	})
	return dirs
}

func forLines(path string, f func(string)) {
	file, err := os.Open(path)
	if err != nil {
		return
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		f(sc.Text())
	}
}
