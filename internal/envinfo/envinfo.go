// Package envinfo captures the facts about the client host that every run records
// (CPU model, sockets, cores, threads, frequency, governor, memory, kernel, OS,
// virtualisation, the disk under the working directory).
package envinfo

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/version"
)

// Host returns facts about the machine fairbench runs on. Unreadable facts are omitted.
func Host() result.Host {
	h := result.Host{
		OS:             runtime.GOOS,
		Arch:           runtime.GOARCH,
		Threads:        runtime.NumCPU(),
		GoVersion:      runtime.Version(),
		ToolVersion:    version.String(),
		CPUModel:       cpuModel(),
		Distribution:   osRelease(),
		Virtualisation: virtualisation(),
	}
	// What the process may use, which a container's quota or cpuset can
	// set far below the host's threads: a load generator saturates against it.
	b := budget("/", runtime.NumCPU(), runtime.GOMAXPROCS(0))
	h.CPUBudget, h.CPUBudgetSource = b.Cores, b.Source
	if name, err := os.Hostname(); err == nil {
		h.Hostname = name
	}
	if kb := memTotalKB(); kb > 0 {
		h.MemoryGiB = float64(kb) / (1 << 20)
		h.MemoryBytes = kb << 10
	}
	if sockets, cores := topology(); cores > 0 {
		h.Sockets, h.Cores = sockets, cores
	}
	if mhz := maxMHz(); mhz > 0 {
		h.CPUMaxMHz = mhz
	}
	if wd, err := os.Getwd(); err == nil {
		h.Disk = Disk(wd)
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	readOSTuning(&h, "/")
	return h
}

// readOSTuning reads, below root, the kernel settings that change what a
// database client or server measures on this host into h: the CPU frequency
// governor, transparent huge pages, swappiness and the NUMA nodes. A setting
// the kernel does not show is left out.
func readOSTuning(h *result.Host, root string) {
	read := func(path string) (string, bool) {
		b, err := os.ReadFile(filepath.Join(root, path))
		return strings.TrimSpace(string(b)), err == nil
	}
	if v, ok := read("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"); ok && v != "" {
		h.CPUGovernor = v
	}
	// "always [madvise] never": the bracketed word is the one in force.
	if v, ok := read("sys/kernel/mm/transparent_hugepage/enabled"); ok {
		if _, rest, found := strings.Cut(v, "["); found {
			if mode, _, found := strings.Cut(rest, "]"); found {
				h.TransparentHugepages = mode
			}
		}
	}
	if v, ok := read("proc/sys/vm/swappiness"); ok {
		if n, err := strconv.Atoi(v); err == nil {
			h.Swappiness = &n
		}
	}
	if nodes, _ := filepath.Glob(filepath.Join(root, "sys/devices/system/node/node[0-9]*")); len(nodes) > 0 {
		h.NUMANodes = len(nodes)
	}
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "model name", "Model", "CPU part":
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func memTotalKB() int64 { return meminfoKB("MemTotal:") }

func osRelease() string {
	b, err := os.ReadFile("/etc/os-release")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return ""
}

// virtualisation names a container or hypervisor when the usual markers show one.
func virtualisation() string {
	if _, err := os.Stat("/.dockerenv"); err == nil {
		return "container (docker)"
	}
	if b, err := os.ReadFile("/proc/1/cgroup"); err == nil && (strings.Contains(string(b), "kubepods") || strings.Contains(string(b), "docker")) {
		return "container"
	}
	if b, err := os.ReadFile("/sys/class/dmi/id/sys_vendor"); err == nil {
		v := strings.TrimSpace(string(b))
		for _, hv := range []string{"QEMU", "KVM", "VMware", "Microsoft", "Xen", "Amazon EC2", "Google", "innotek"} {
			if strings.Contains(v, hv) {
				return "virtual machine (" + v + ")"
			}
		}
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil && strings.Contains(string(b), " hypervisor") {
		return "virtual machine"
	}
	return ""
}

// AvailableMemory is the memory in bytes this process can still take: the
// kernel's MemAvailable, or less when the process's cgroup caps it (v2
// memory.max less memory.current, v1 memory.limit_in_bytes less
// memory.usage_in_bytes); and where the figure comes from, for messages.
// ok is false when neither can be read (not Linux).
func AvailableMemory() (bytes int64, source string, ok bool) {
	if kb := meminfoKB("MemAvailable:"); kb > 0 {
		bytes, source, ok = kb<<10, "MemAvailable in /proc/meminfo", true
	}
	for _, dir := range cgroupDirs("/", "memory") {
		limit, used := "memory.limit_in_bytes", "memory.usage_in_bytes"
		if dir.v2 {
			limit, used = "memory.max", "memory.current"
		}
		l, err1 := readInt(filepath.Join(dir.path, limit))
		u, err2 := readInt(filepath.Join(dir.path, used))
		if err1 != nil || err2 != nil || l <= 0 || l >= 1<<60 {
			continue // unreadable, or no limit ("max", v1's near 2^63)
		}
		if left := max(l-u, 0); !ok || left < bytes {
			bytes, source, ok = left, "the cgroup's "+limit+" less "+used, true
		}
	}
	return bytes, source, ok
}

func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64) // "max" fails: no limit
}

// meminfoKB reads one field of /proc/meminfo, in kB; 0 when absent.
func meminfoKB(field string) int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
