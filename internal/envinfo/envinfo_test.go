package envinfo

import (
	"runtime"
	"testing"
)

func TestHost(t *testing.T) {
	h := Host()
	if got, ok := h["threads"].(int); !ok || got != runtime.NumCPU() {
		t.Errorf("threads = %#v, want %d", h["threads"], runtime.NumCPU())
	}
	if h["os"] != runtime.GOOS {
		t.Errorf("os = %#v, want %q", h["os"], runtime.GOOS)
	}
	if h["arch"] != runtime.GOARCH {
		t.Errorf("arch = %#v, want %q", h["arch"], runtime.GOARCH)
	}
	if h["go"] != runtime.Version() {
		t.Errorf("go = %#v, want %q", h["go"], runtime.Version())
	}
	if v, _ := h["tool_version"].(string); v == "" {
		t.Errorf("tool_version = %#v, want a version", h["tool_version"])
	}
	if m, present := h["memory_gib"]; present {
		if g, ok := m.(float64); !ok || g <= 0 {
			t.Errorf("memory_gib = %#v, want a positive number", m)
		}
	}
	// Unreadable facts are omitted, never stored empty.
	for k, v := range h {
		if s, ok := v.(string); ok && s == "" {
			t.Errorf("%s is stored empty", k)
		}
	}
}
