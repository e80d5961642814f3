package redact_test

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/fairbench/fairbench/internal/redact"
)

// Secrets are process-wide and cannot be unregistered, so every test uses
// strings no other test registers.

func TestScrubReplacesRegisteredSecrets(t *testing.T) {
	redact.AddSecret("hunter2-scrub-test")
	redact.AddSecret("p%40ss-scrub-test") // the URL-escaped form is registered separately
	for _, tc := range []struct{ in, want string }{
		{"password authentication failed: hunter2-scrub-test", "password authentication failed: xxxxx"},
		{"hunter2-scrub-test and again hunter2-scrub-test.", "xxxxx and again xxxxx."},
		{"postgres://u:p%40ss-scrub-test@h/db", "postgres://u:xxxxx@h/db"},
		{"nothing secret here", "nothing secret here"},
		{"hunter2-scrub", "hunter2-scrub"}, // a prefix of a secret is not the secret
		{"", ""},
	} {
		if got := redact.Scrub(tc.in); got != tc.want {
			t.Errorf("Scrub(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestScrubShortSecretsIgnored(t *testing.T) {
	// Shorter than redact.MinLength (4) characters: scrubbing by value would
	// mangle ordinary text, so such secrets are redacted by place only.
	redact.AddSecret("q7")
	redact.AddSecret("")
	if got := redact.Scrub("q7 is in this text: aq7b"); got != "q7 is in this text: aq7b" {
		t.Errorf("a 2-character secret was scrubbed: %q", got)
	}
	if got := redact.Scrub("abc"); got != "abc" {
		t.Errorf("the empty secret changed the text: %q", got)
	}
	// Three characters is not, four is.
	redact.AddSecret("Zq9")
	if got := redact.Scrub("key Zq9!"); got != "key Zq9!" {
		t.Errorf("a 3-character secret was scrubbed: %q", got)
	}
	redact.AddSecret("Zq9x")
	if got := redact.Scrub("key Zq9x!"); got != "key xxxxx!" {
		t.Errorf("4-character secret: Scrub = %q, want %q", got, "key xxxxx!")
	}
}

func TestScrubOverlappingSecrets(t *testing.T) {
	redact.AddSecret("ovl-admin")
	redact.AddSecret("ovl-admin-123")
	if got := redact.Scrub("password=ovl-admin-123"); got != "password=xxxxx" {
		t.Errorf("Scrub = %q, want %q", got, "password=xxxxx")
	}
}

// The registered secrets follow the same rule as a driver's: a
// one-character password is masked in a URL, not in every word.
func TestScrubRegisteredShortPassword(t *testing.T) {
	redact.AddSecret("e")
	redact.AddSecret("correct-horse")
	msg := "redis://:e@127.0.0.1:6380: unexpected error, correct-horse refused"
	want := "redis://:xxxxx@127.0.0.1:6380: unexpected error, xxxxx refused"
	if got := redact.Scrub(msg); got != want {
		t.Errorf("Scrub(%q) = %q, want %q", msg, got, want)
	}
}

// ScrubErr keeps the error chain whether or not it had to replace a secret:
// Classify finds a driver's error type through it.
func TestScrubErrKeepsTheChain(t *testing.T) {
	secrets := redact.List{"s3cr3t-pw"}
	if secrets.ScrubErr(nil) != nil {
		t.Error("ScrubErr(nil) is not nil")
	}
	clean := &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrNotExist}
	if got := secrets.ScrubErr(clean); got != error(clean) {
		t.Errorf("ScrubErr replaced an error without a secret: %v", got)
	}
	leaky := &fs.PathError{Op: "open", Path: "/x/s3cr3t-pw", Err: fs.ErrNotExist}
	got := secrets.ScrubErr(leaky)
	if got.Error() != "open /x/xxxxx: file does not exist" {
		t.Errorf("ScrubErr = %q", got)
	}
	var pe *fs.PathError
	if !errors.As(got, &pe) || pe != leaky || !errors.Is(got, fs.ErrNotExist) {
		t.Errorf("the scrubbed error does not unwrap to the original: %#v", got)
	}
}
