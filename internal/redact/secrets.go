package redact

import (
	"slices"
	"sync"
)

// List is what must never appear in a message about a target: its password,
// in each spelling a library may print it (raw, query- or path-escaped).
// Drivers keep one beside the parsed URL and pass every error of their
// library through ScrubErr; the process keeps one of every target's (see
// AddSecret) for the messages that name no target.
type List []string

// Scrub returns s without the secrets of the list, by the package's one rule
// (Text: URL passwords and password= values by place, secrets of MinLength
// characters or more by value, so that a one-letter password does not mask
// that letter in every word).
func (l List) Scrub(s string) string { return Text(s, l) }

// ScrubErr is Scrub for errors. It keeps the error chain (for errors.As,
// which driver.Classify needs) when nothing had to be replaced, and otherwise
// returns an error with the cleaned message that still unwraps to the
// original: nothing in fairbench prints an unwrapped error.
func (l List) ScrubErr(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if clean := l.Scrub(msg); clean != msg {
		return &scrubbedError{msg: clean, err: err}
	}
	return err
}

type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

// process is the list of every secret the process was given (the study's
// targets' passwords): an error or a progress line can quote any of them
// whichever target it is about.
var process struct {
	mu   sync.RWMutex
	list List
}

// AddSecret adds a string (a password) that must never be printed or stored
// to the process's list. Secrets are never removed: a message about a target
// may be printed after its cell ended.
func AddSecret(s string) {
	process.mu.Lock()
	defer process.mu.Unlock()
	if s == "" || slices.Contains(process.list, s) {
		return
	}
	process.list = append(process.list, s)
}

// Scrub returns s without any secret of the process's list, by the same rule
// as List.Scrub.
func Scrub(s string) string {
	process.mu.RLock()
	defer process.mu.RUnlock()
	return process.list.Scrub(s)
}
