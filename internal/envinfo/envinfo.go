// Package envinfo captures the facts about the client host that every run records
// (CPU model, sockets, cores, threads, frequency, governor, memory, kernel, OS,
// virtualisation, the disk under the working directory), and removes secrets
// from text before it reaches a store, report or log.
package envinfo

import (
	"bufio"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/fairbench/fairbench/internal/version"
)

// Host returns facts about the machine fairbench runs on. Unreadable facts are omitted.
func Host() map[string]any {
	h := map[string]any{
		"os":           runtime.GOOS,
		"arch":         runtime.GOARCH,
		"threads":      runtime.NumCPU(),
		"go":           runtime.Version(),
		"tool_version": version.String(),
	}
	// What the process may use, which a container's quota or cpuset can
	// set far below the host's threads: a load generator saturates against it.
	b := Budget("/", runtime.NumCPU(), runtime.GOMAXPROCS(0))
	h["cpu_budget"] = b.Cores
	h["cpu_budget_source"] = b.Source
	if name, err := os.Hostname(); err == nil {
		h["hostname"] = name
	}
	if model := cpuModel(); model != "" {
		h["cpu_model"] = model
	}
	if kb := memTotalKB(); kb > 0 {
		h["memory_gib"] = float64(kb) / (1 << 20)
		h["memory_bytes"] = kb << 10
	}
	if sockets, cores := topology(); cores > 0 {
		h["sockets"] = sockets
		h["cores"] = cores
	}
	if mhz := maxMHz(); mhz > 0 {
		h["cpu_max_mhz"] = mhz
	}
	if wd, err := os.Getwd(); err == nil {
		if d := Disk(wd); d != nil {
			h["disk"] = d
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h["kernel"] = strings.TrimSpace(string(b))
	}
	if pretty := osRelease(); pretty != "" {
		h["distribution"] = pretty
	}
	if b, err := os.ReadFile("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"); err == nil {
		h["cpu_governor"] = strings.TrimSpace(string(b))
	}
	if v := virtualisation(); v != "" {
		h["virtualisation"] = v
	}
	return h
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

func memTotalKB() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

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

var (
	secretsMu sync.RWMutex
	secrets   []string
)

// AddSecret registers a string (a password) that must never be printed or stored.
func AddSecret(s string) {
	if len(s) < 3 {
		// Too short to scrub without mangling ordinary text; such passwords are still
		// never written on purpose, only this last-line defence skips them.
		return
	}
	secretsMu.Lock()
	defer secretsMu.Unlock()
	for _, have := range secrets {
		if have == s {
			return
		}
	}
	secrets = append(secrets, s)
	// Longest first, so a password that contains another is replaced whole.
	sort.Slice(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
}

// Scrub replaces every registered secret in s.
func Scrub(s string) string {
	secretsMu.RLock()
	defer secretsMu.RUnlock()
	for _, sec := range secrets {
		s = strings.ReplaceAll(s, sec, "xxxxx")
	}
	return s
}
