package envinfo

// CPU contention as the kernel counts it: how long fairbench's threads waited
// for a CPU (schedstat's run delay) and how much of the host's CPU time the
// hypervisor took (steal). A busy host shows in both; a server that does not
// answer in neither.

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// maxTasks bounds the threads whose run delay a reading sums: a client with a
// thread per connection may have thousands, and a reading is taken every second.
const maxTasks = 4096

// Load is one reading of the contention counters.
type Load struct {
	Wait time.Duration // run delay summed over the process's threads, so far
	// Host CPU time in clock ticks: stolen, used (user, nice, system, irq,
	// softirq) and in every mode (idle included).
	Steal, Used, Total uint64
	// WaitKnown and HostKnown: the kernel gave the process's run delay,
	// and the host's CPU times.
	WaitKnown, HostKnown bool
}

// ReadLoad reads the counters of this process and its host.
func ReadLoad() Load { return readLoad("/") }

// readLoad reads the counters under the file system root.
func readLoad(root string) Load {
	var l Load
	tasks, err := os.ReadDir(filepath.Join(root, "proc/self/task"))
	if err == nil {
		for i, t := range tasks {
			if i == maxTasks {
				break
			}
			// schedstat: time on a CPU, time waiting on a run queue (ns), time slices
			f := strings.Fields(readTrim(filepath.Join(root, "proc/self/task", t.Name(), "schedstat")))
			if len(f) < 2 {
				continue // the thread ended, or the kernel keeps no schedstat
			}
			if ns, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				l.Wait += time.Duration(ns)
				l.WaitKnown = true
			}
		}
	}
	forLines(filepath.Join(root, "proc/stat"), func(line string) {
		f := strings.Fields(line)
		if len(f) < 9 || f[0] != "cpu" {
			return
		}
		// cpu user nice system idle iowait irq softirq steal [guest guest_nice]:
		// guest time is counted in user time already.
		for i, v := range f[1:9] {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return
			}
			l.Total += n
			switch i {
			case 0, 1, 2, 5, 6:
				l.Used += n
			case 7:
				l.Steal = n
			}
		}
		l.HostKnown = true
	})
	return l
}

// WaitSince is how long the process's threads waited for a CPU since prev;
// ok is false when the kernel does not say. Threads that ended in between
// take their waits with them, so a negative difference reads as 0.
func (l Load) WaitSince(prev Load) (time.Duration, bool) {
	if !l.WaitKnown || !prev.WaitKnown {
		return 0, false
	}
	return max(l.Wait-prev.Wait, 0), true
}

// StealSince is the share of the host's CPU time the hypervisor took since prev.
func (l Load) StealSince(prev Load) (float64, bool) {
	if !l.HostKnown || !prev.HostKnown || l.Total <= prev.Total {
		return 0, false
	}
	return float64(l.Steal-prev.Steal) / float64(l.Total-prev.Total), true
}

// userHZ is the clock tick /proc/stat counts in: 100 on every Linux
// architecture Go supports (the kernel's USER_HZ, fixed by its ABI).
const userHZ = 100

// UsedSince is the host's CPU time, in CPU seconds, used since prev by every
// process (fairbench included).
func (l Load) UsedSince(prev Load) (float64, bool) {
	if !l.HostKnown || !prev.HostKnown || l.Used < prev.Used {
		return 0, false
	}
	return float64(l.Used-prev.Used) / userHZ, true
}
