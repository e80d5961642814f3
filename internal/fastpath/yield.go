package fastpath

import (
	"runtime"
	"time"
)

// YieldEvery is how often a goroutine that waits only in system calls (a
// loop's, or a thread-per-client worker's) yields to the Go scheduler. Such a
// goroutine keeps one scheduling tick forever, and after 10 ms the scheduler's
// monitor preempts it with a signal, takes its P away mid-read and then polls
// every 20 µs for a while (measured worse: 0.87× pgbench's TPS at 8 clients on
// loops against 0.94× with yields; 36–39k against 56–61k MariaDB point selects
// at 2 threads, with 12–16 % of the machine idle against 2–3 %). A yield
// is not free either: runtime.Gosched wakes an idle thread to look for work,
// which mostly takes the goroutine over while the yielding thread goes to
// sleep, two futex calls and a hand-over to another thread per yield (perf on
// sys_enter_futex). So yield as rarely as possible while still never meeting
// the 10 ms preemption.
const YieldEvery = 8 * time.Millisecond

// yieldIfDue yields if more than YieldEvery passed since *last, and then
// records now as the last yield.
func yieldIfDue(last *time.Time, now time.Time) {
	if now.Sub(*last) > YieldEvery {
		*last = now
		runtime.Gosched()
	}
}
