package envinfo

import (
	"encoding/json"
	"runtime"
	"testing"
)

// Secrets are process-wide and cannot be unregistered, so every test uses
// strings no other test registers.

func TestScrubReplacesRegisteredSecrets(t *testing.T) {
	AddSecret("hunter2-scrub-test")
	AddSecret("p%40ss-scrub-test") // the URL-escaped form is registered separately
	for _, tc := range []struct{ in, want string }{
		{"password authentication failed: hunter2-scrub-test", "password authentication failed: xxxxx"},
		{"hunter2-scrub-test and again hunter2-scrub-test.", "xxxxx and again xxxxx."},
		{"postgres://u:p%40ss-scrub-test@h/db", "postgres://u:xxxxx@h/db"},
		{"nothing secret here", "nothing secret here"},
		{"hunter2-scrub", "hunter2-scrub"}, // a prefix of a secret is not the secret
		{"", ""},
	} {
		if got := Scrub(tc.in); got != tc.want {
			t.Errorf("Scrub(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestScrubShortSecretsIgnored(t *testing.T) {
	// Shorter than redact.MinLength (4) characters: scrubbing by value would
	// mangle ordinary text, so such secrets are redacted by place only.
	AddSecret("q7")
	AddSecret("")
	if got := Scrub("q7 is in this text: aq7b"); got != "q7 is in this text: aq7b" {
		t.Errorf("a 2-character secret was scrubbed: %q", got)
	}
	if got := Scrub("abc"); got != "abc" {
		t.Errorf("the empty secret changed the text: %q", got)
	}
	// Three characters is not, four is.
	AddSecret("Zq9")
	if got := Scrub("key Zq9!"); got != "key Zq9!" {
		t.Errorf("a 3-character secret was scrubbed: %q", got)
	}
	AddSecret("Zq9x")
	if got := Scrub("key Zq9x!"); got != "key xxxxx!" {
		t.Errorf("4-character secret: Scrub = %q, want %q", got, "key xxxxx!")
	}
}

func TestScrubOverlappingSecrets(t *testing.T) {
	AddSecret("ovl-admin")
	AddSecret("ovl-admin-123")
	if got := Scrub("password=ovl-admin-123"); got != "password=xxxxx" {
		t.Errorf("Scrub = %q, want %q", got, "password=xxxxx")
	}
}

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

// The registered secrets follow the same rule as a driver's: a
// one-character password is masked in a URL, not in every word.
func TestScrubRegisteredShortPassword(t *testing.T) {
	AddSecret("e")
	AddSecret("correct-horse")
	msg := "redis://:e@127.0.0.1:6380: unexpected error, correct-horse refused"
	want := "redis://:xxxxx@127.0.0.1:6380: unexpected error, xxxxx refused"
	if got := Scrub(msg); got != want {
		t.Errorf("Scrub(%q) = %q, want %q", msg, got, want)
	}
}
