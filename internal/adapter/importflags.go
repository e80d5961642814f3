package adapter

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fairbench/fairbench/internal/params"
)

// ImportFlag is a flag of `fairbench import` that a tool declares: it fills
// in a parameter of the tool's kind that the tool's output does not print
// (sysbench's test, the pipeline depth of memtier's text), named as the tool
// names its option, so that the import command names no tool and no kind.
type ImportFlag struct {
	// Name is the long name without dashes; Shorthand the one-letter form,
	// "" for none. Two tools declaring one name declare the same shorthand.
	Name, Shorthand string
	// Param is the parameter the flag sets, with its domain (kind, bounds,
	// choices) and help: the kind's own spec, from params/<kind>params.
	Param params.Spec
	// Usage is the help text; "" takes the parameter's.
	Usage string
}

// paramFlag declares an import flag setting the parameter named param of
// specs. A name that is not in specs is a programming error, caught when the
// package loads.
func paramFlag(name, shorthand string, specs []params.Spec, param, usage string) ImportFlag {
	s, ok := params.Find(specs, param)
	if !ok {
		panic(fmt.Sprintf("import flag --%s: no parameter %q", name, param))
	}
	return ImportFlag{Name: name, Shorthand: shorthand, Param: s, Usage: usage}
}

func (f ImportFlag) usage() string {
	if f.Usage != "" {
		return f.Usage
	}
	return f.Param.Help
}

// flagName is how messages name a flag: "-P/--pipeline" or "--mode".
func (f ImportFlag) flagName() string {
	if f.Shorthand != "" {
		return "-" + f.Shorthand + "/--" + f.Name
	}
	return "--" + f.Name
}

// ImportFlags are the flags the tools declare for import, one per name in
// the order the tools are detected; Usage says which tools take the flag and
// what it means for each ("redis-benchmark, memtier_benchmark: ...").
func ImportFlags() []ImportFlag {
	type use struct {
		usage string
		tools []string
	}
	var out []ImportFlag
	uses := map[string][]use{}
	for _, t := range tools {
		for _, f := range t.ImportFlags {
			us, ok := uses[f.Name]
			if !ok {
				out = append(out, f)
			}
			i := slices.IndexFunc(us, func(u use) bool { return u.usage == f.usage() })
			if i < 0 {
				us = append(us, use{usage: f.usage()})
				i = len(us) - 1
			}
			us[i].tools = append(us[i].tools, t.Name)
			uses[f.Name] = us
		}
	}
	for i := range out {
		var parts []string
		for _, u := range uses[out[i].Name] {
			parts = append(parts, strings.Join(u.tools, ", ")+": "+u.usage)
		}
		out[i].Usage = strings.Join(parts, "; ")
	}
	return out
}

// ImportParams turns the import flags given (flag name → value as typed) into
// parameters of a run of tool t, each checked against its domain; a flag t
// does not declare is refused, naming the tools that take it and the flags t
// takes.
func ImportParams(t *Tool, given map[string]string) (map[string]any, error) {
	names := make([]string, 0, len(given))
	for n := range given {
		names = append(names, n)
	}
	sort.Strings(names)
	out := map[string]any{}
	for _, n := range names {
		f, ok := t.importFlag(n)
		if !ok {
			return nil, fmt.Errorf("--%s is not a flag of %s outputs (%s); %s", n, t.Name, flagOwners(n), t.importFlagList())
		}
		v, err := params.Coerce(f.Param, given[n])
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f.flagName(), err)
		}
		out[f.Param.Name] = v
	}
	return out, nil
}

func (t *Tool) importFlag(name string) (ImportFlag, bool) {
	for _, f := range t.ImportFlags {
		if f.Name == name {
			return f, true
		}
	}
	return ImportFlag{}, false
}

// flagOwners names the tools whose outputs take the import flag name.
func flagOwners(name string) string {
	var owners []string
	for _, t := range tools {
		if _, ok := t.importFlag(name); ok {
			owners = append(owners, t.Name)
		}
	}
	if len(owners) == 0 {
		return "no tool's"
	}
	return "it is for " + strings.Join(owners, " and ") + " outputs"
}

// importFlagList says which import flags t takes, for messages.
func (t *Tool) importFlagList() string {
	if len(t.ImportFlags) == 0 {
		return t.Name + " outputs take no import flag of their own (give other parameters with --set key=value)"
	}
	var names []string
	for _, f := range t.ImportFlags {
		names = append(names, f.flagName())
	}
	return t.Name + " outputs take " + strings.Join(names, ", ")
}
