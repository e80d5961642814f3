package adapter

import (
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/toolcat"
)

// The study parser learns the runnable tools through toolcat, so that it
// needs no import of this package.
func init() { toolcat.Register(catalog{}) }

type catalog struct{}

func (catalog) Runnable(name string) (string, bool) {
	t, ok := Lookup(name)
	if !ok || t.Build == nil {
		return "", false
	}
	return t.Kind, true
}

func (catalog) RunnableTools() []string {
	var out []string
	for _, t := range tools {
		if t.Build != nil {
			out = append(out, t.Name)
		}
	}
	return out
}

func (catalog) KindParams(kind string) ([]params.Spec, bool) { return KindParams(kind) }
