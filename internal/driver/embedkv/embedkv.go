// Package embedkv is the engine-independent half of fairbench's embedded
// key-value targets (bbolt, pebble): what they do the same way, kept here
// once so that the two cannot drift apart, while each driver keeps only what
// its engine does differently (its transactions or batches, its locks, its
// options, how it recognises its own database on disk).
//
// It holds the Redis command semantics the engines answer with (GET, SET,
// INCR, DEL, their arity errors and error replies, INCR's integers); the
// parsing of their URLs' options; the session, which splits a pipeline into
// runs of consecutive writes and of consecutive reads, hands each run to the
// engine's Store, and fills the replies (latency, bytes, a failed run's
// error); error classes; the registry that lets the clients of one database
// in this process share its handle, and the client that releases it after
// its last session; and what their environments and version lookups share.
package embedkv

import (
	"context"
	"errors"
	"runtime/debug"
	"strings"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

// Engine describes an embedded engine to the shared half.
type Engine struct {
	// Name is the driver's name and URL scheme, and the engine's name in
	// errors and in the environment: "bbolt".
	Name string
	// Module is the engine's Go module, whose version the binary records:
	// "go.etcd.io/bbolt".
	Module string
	// Design is what the engine is, for the environment: "B+tree".
	Design string
	// Lost are the engine's errors for a database closed under a session:
	// like a closed session, a lost connection, so that the runner takes a
	// new session.
	Lost []error
	// Timeouts are the engine's errors for a wait it gave up, beside the
	// context's.
	Timeouts []error
}

// version is the engine's module version in this binary ("1.5.0"), or
// "unknown" when the binary carries no module information (test binaries).
func (e *Engine) version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, m := range bi.Deps {
		if m.Path == e.Module {
			if m.Replace != nil {
				m = m.Replace
			}
			return strings.TrimPrefix(m.Version, "v")
		}
	}
	return "unknown"
}

// errSessionClosed is Pipeline's answer on a closed session, as
// "<engine>: the session is closed".
var errSessionClosed = errors.New("the session is closed")

// classify is driver.Conn's Classify for the engine. An error reply is the
// command's own failure; a closed session or database is a lost connection.
func (e *Engine) classify(err error) result.ErrorClass {
	var re replyError
	switch {
	case errors.As(err, &re):
		return result.ErrOther
	case errors.Is(err, errSessionClosed), errors.Is(err, driver.ErrClientClosed), isAny(err, e.Lost):
		return result.ErrConnection
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled), isAny(err, e.Timeouts):
		return result.ErrTimeout
	}
	return result.ErrOther
}

func isAny(err error, targets []error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}
