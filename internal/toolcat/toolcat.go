// Package toolcat is the small registry through which the external benchmark
// tools (internal/adapter) tell the study parser which tools a study cell can
// run and the parameters of the kinds only tools run, so that the study
// package validates tool = "..." cells without importing the adapters.
package toolcat

import (
	"sync"

	"github.com/fairbench/fairbench/internal/params"
)

// Catalog is what the study parser needs to know about external tools.
type Catalog interface {
	// Runnable returns the kind of the runs a study cell of tool name makes;
	// ok is false when fairbench cannot run that tool.
	Runnable(name string) (kind string, ok bool)
	// RunnableTools lists the tools a study cell can run, for messages.
	RunnableTools() []string
	// KindParams returns the parameters of a kind only tools run (fio, kv).
	KindParams(kind string) ([]params.Spec, bool)
}

var (
	mu  sync.RWMutex
	cat Catalog
)

// Register sets the catalog; the adapter package calls it from init. It
// panics when called twice: the tools have one owner.
func Register(c Catalog) {
	mu.Lock()
	defer mu.Unlock()
	if cat != nil {
		panic("toolcat: catalog registered twice")
	}
	cat = c
}

// Get returns the registered catalog, or one that knows no tool when none is
// (a program that links no adapters).
func Get() Catalog {
	mu.RLock()
	defer mu.RUnlock()
	if cat == nil {
		return none{}
	}
	return cat
}

type none struct{}

func (none) Runnable(string) (string, bool)          { return "", false }
func (none) RunnableTools() []string                 { return nil }
func (none) KindParams(string) ([]params.Spec, bool) { return nil, false }
