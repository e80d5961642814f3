package envinfo

import (
	"encoding/json"
	"runtime"
	"testing"
)

func TestHost(t *testing.T) {
	h := Host()
	if h.Threads != runtime.NumCPU() {
		t.Errorf("threads = %d, want %d", h.Threads, runtime.NumCPU())
	}
	if h.OS != runtime.GOOS || h.Arch != runtime.GOARCH || h.GoVersion != runtime.Version() {
		t.Errorf("os, arch, go = %q, %q, %q; want %q, %q, %q", h.OS, h.Arch, h.GoVersion, runtime.GOOS, runtime.GOARCH, runtime.Version())
	}
	if h.ToolVersion == "" {
		t.Error("no tool_version")
	}
	if h.MemoryGiB < 0 || (h.MemoryGiB > 0) != (h.MemoryBytes > 0) {
		t.Errorf("memory_gib %v, memory_bytes %d: want both positive or both unread", h.MemoryGiB, h.MemoryBytes)
	}
	// Unreadable facts are omitted, never stored empty.
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	var stored map[string]any
	if err := json.Unmarshal(b, &stored); err != nil {
		t.Fatal(err)
	}
	for k, v := range stored {
		if s, ok := v.(string); ok && s == "" {
			t.Errorf("%s is stored empty", k)
		}
	}
	if stored["threads"] != float64(runtime.NumCPU()) || stored["os"] != runtime.GOOS || stored["go"] != runtime.Version() {
		t.Errorf("stored as %s", b)
	}
}
