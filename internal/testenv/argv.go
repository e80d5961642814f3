package testenv

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// WatchArgv reads, until the returned stop is called, the command line
// (/proc/PID/cmdline, what ps shows every user of the machine) of every
// process descending from the test's, and fails the test when one holds
// secret. stop returns the base names of the programs it saw (each
// argv[0], the executable the kernel names in /proc/PID/comm, and the full
// name of a #! script run by its interpreter), so that
// the test can check the tool did run while it watched. A process that
// lives for less than the polling interval (a few ms) can be missed: the
// tool runs for seconds.
func WatchArgv(t testing.TB, secret string) (stop func() map[string]bool) {
	t.Helper()
	if secret == "" {
		t.Fatal("WatchArgv: an empty secret matches every command line")
	}
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Fatalf("WatchArgv needs /proc: %v", err)
	}
	var (
		mu   sync.Mutex
		seen = map[string]bool{}
		leak = map[string]bool{}
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	self := os.Getpid()
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(3 * time.Millisecond)
		defer tick.Stop()
		for {
			for _, p := range descendants(self) {
				cmd, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "cmdline"))
				if err != nil || len(cmd) == 0 {
					continue
				}
				comm, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "comm"))
				argv := strings.Split(strings.TrimRight(string(cmd), "\x00"), "\x00")
				mu.Lock()
				name := strings.TrimSpace(string(comm))
				seen[filepath.Base(argv[0])] = true
				seen[name] = true
				// comm is the executed file's name cut to 15 bytes; a script
				// run by its #! interpreter (OSB's opensearch-benchmark) has
				// the interpreter as argv[0] and itself as argv[1]: the
				// argument whose base name begins with comm is its full name.
				for _, a := range argv[1:min(len(argv), 2)] {
					if b := filepath.Base(a); name != "" && strings.HasPrefix(b, name) {
						seen[b] = true
					}
				}
				if bytes.Contains(cmd, []byte(secret)) {
					leak[strings.ReplaceAll(strings.Join(argv, " "), secret, "<THE PASSWORD>")] = true
				}
				mu.Unlock()
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() map[string]bool {
		t.Helper()
		close(done)
		wg.Wait()
		for l := range leak {
			t.Errorf("a child process's command line (ps, /proc/PID/cmdline) holds the password: %s", l)
		}
		return seen
	}
}

// descendants lists the processes whose parent chain reaches root.
func descendants(root int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces and parentheses.
		rest := stat[bytes.LastIndexByte(stat, ')')+1:]
		f := strings.Fields(string(rest))
		if len(f) < 2 {
			continue
		}
		if ppid, err := strconv.Atoi(f[1]); err == nil {
			parent[pid] = ppid
		}
	}
	var out []int
	for pid := range parent {
		for p, n := parent[pid], 0; p > 1 && n < 64; p, n = parent[p], n+1 {
			if p == root {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}
