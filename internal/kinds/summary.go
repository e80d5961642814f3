package kinds

import (
	"fmt"
	"io"
	"sync"

	"github.com/fairbench/fairbench/internal/result"
)

// A kind's summary printer may come with its Info or on its own: the packages
// that own a kind register the printer from the file that holds it, next to
// whatever registers the rest of the kind's Info.

var (
	summaryMu sync.RWMutex
	summaries = map[string]func(io.Writer, *result.Run){}
)

// RegisterSummary sets the printer of kind's run summary in the peer tool's
// shape. It panics on a second printer for the same kind: a kind has one owner.
func RegisterSummary(kind string, f func(w io.Writer, r *result.Run)) {
	summaryMu.Lock()
	defer summaryMu.Unlock()
	if _, dup := summaries[kind]; dup {
		panic(fmt.Sprintf("kinds: summary of %q registered twice", kind))
	}
	summaries[kind] = f
}

// Summary returns kind's summary printer: Info.Summary when its Info has one,
// else the one given to RegisterSummary; ok is false when there is none and
// the caller prints its generic summary.
func Summary(kind string) (f func(w io.Writer, r *result.Run), ok bool) {
	if i, found := Lookup(kind); found && i.Summary != nil {
		return i.Summary, true
	}
	summaryMu.RLock()
	defer summaryMu.RUnlock()
	f, ok = summaries[kind]
	return f, ok
}

// MaxTriesKey is the Env key of the tries per transaction a run was allowed
// (pgbench's --max-tries), for printers that report it; absent means 1.
const MaxTriesKey = "max_tries"
