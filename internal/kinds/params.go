package kinds

import (
	"fmt"
	"sync"

	"github.com/fairbench/fairbench/internal/params"
)

// A native workload declares its parameters to the workload registry, which
// passes them on here (workload.Register), so that a report can tell a
// parameter at its default from one a study set without depending on the
// workloads. An imported tool's kind declares none.

var (
	paramsMu sync.RWMutex
	declared = map[string]func() []params.Spec{}
)

// RegisterParams sets what declares kind's parameters. It panics on a second
// declaration for the same kind: a kind has one owner.
func RegisterParams(kind string, specs func() []params.Spec) {
	paramsMu.Lock()
	defer paramsMu.Unlock()
	if _, dup := declared[kind]; dup {
		panic(fmt.Sprintf("kinds: parameters of %q registered twice", kind))
	}
	declared[kind] = specs
}

// Params returns the parameters kind declares, with their defaults; ok is
// false for a kind that declares none.
func Params(kind string) (specs []params.Spec, ok bool) {
	paramsMu.RLock()
	f, ok := declared[kind]
	paramsMu.RUnlock()
	if !ok {
		return nil, false
	}
	return f(), true
}
