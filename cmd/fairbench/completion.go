package main

// Shell completion: cobra's `fairbench completion bash|zsh|fish|powershell`
// writes the script, and the script asks `fairbench __complete ARGS…` for
// the words that fit. The commands that take a workload's flags define them
// for the workload their arguments name only when they run
// (withWorkloadFlags), so completion does the same first
// (prepareCompletion): `fairbench run --workload ycsb --<TAB>` offers ycsb's
// flags. Their values complete through completeWorkloadArgs: --workload's
// kinds, a parameter flag's choices, and study files for run.

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/adhocline"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/workload"
)

// workloadFlagDefiners are the commands that take a workload's flags, with
// the function that defines them for a kind (withWorkloadFlags).
var workloadFlagDefiners = map[*cobra.Command]func(fs *pflag.FlagSet, kind string) error{}

// prepareCompletion, before cobra completes the arguments of a command that
// takes a workload's flags, defines that command's flags for the workload
// the arguments name. cmd is the command being run: cobra's __complete.
func prepareCompletion(cmd *cobra.Command, args []string) {
	if cmd.Name() != cobra.ShellCompRequestCmd && cmd.Name() != cobra.ShellCompNoDescRequestCmd || len(args) == 0 {
		return
	}
	target, rest, err := cmd.Root().Find(args[:len(args)-1])
	define, ok := workloadFlagDefiners[target]
	if err != nil || !ok {
		return
	}
	kind := scanWorkload(rest)
	if _, err := workload.Get(kind); err != nil {
		return // the default workload's flags stay
	}
	target.ResetFlags()
	_ = define(target.Flags(), kind)
}

// completeWorkloadArgs completes an argument of a command that takes a
// workload's flags. cobra lists the flag names itself (prepareCompletion
// defined the right ones); flag parsing is the command's, so the values of
// flags come here, with the arguments as typed.
func completeWorkloadArgs(positional []string, positionalDirective cobra.ShellCompDirective) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if strings.HasPrefix(toComplete, "-") && !strings.Contains(toComplete, "=") {
			return nil, cobra.ShellCompDirectiveNoFileComp // flag names: cobra's
		}
		name, prefix := "", ""
		if n, v, ok := strings.Cut(toComplete, "="); ok && strings.HasPrefix(n, "-") {
			name, prefix, toComplete = strings.TrimLeft(n, "-"), n+"=", v
		} else if len(args) > 0 && strings.HasPrefix(args[len(args)-1], "-") && !strings.Contains(args[len(args)-1], "=") {
			name = strings.TrimLeft(args[len(args)-1], "-")
			if f := lookupFlag(cmd.Flags(), name); f == nil || f.NoOptDefVal != "" {
				name = "" // a switch: this is a positional argument
			}
		}
		if name == "" {
			return positional, positionalDirective
		}
		values := flagValues(cmd.Flags(), scanWorkload(args), name)
		if values == nil {
			return nil, cobra.ShellCompDirectiveDefault // free text, or a file
		}
		var out []cobra.Completion
		for _, v := range values {
			if strings.HasPrefix(v, toComplete) {
				out = append(out, prefix+v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// lookupFlag finds a flag by its name or shorthand.
func lookupFlag(fs *pflag.FlagSet, name string) *pflag.Flag {
	if len(name) == 1 {
		if f := fs.ShorthandLookup(name); f != nil {
			return f
		}
	}
	return fs.Lookup(name)
}

// flagValues are the values flag name of workload kind can take, each with
// what it means after a tab (cobra's description); nil when they are not a
// fixed list.
func flagValues(fs *pflag.FlagSet, kind, name string) []string {
	f := lookupFlag(fs, name)
	if f == nil {
		return nil
	}
	if f.Name == "workload" {
		var out []string
		for _, k := range workload.Kinds() {
			w, _ := workload.Get(k)
			out = append(out, k+"\t"+w.Description())
		}
		return out
	}
	flags, ok := adhocline.KindFlags(kind)
	if !ok {
		return nil
	}
	i := slices.IndexFunc(flags, func(fl workload.Flag) bool { return fl.Name == f.Name })
	if i < 0 || flags[i].Param == "" {
		return nil
	}
	w, _ := workload.Get(kind) // registered: KindFlags found it
	spec, _ := params.Find(w.Params(), flags[i].Param)
	values := slices.Clone(spec.Choices)
	for peer := range flags[i].Values {
		values = append(values, peer)
	}
	if spec.Kind == params.Bool {
		values = append(values, "true", "false")
	}
	if len(values) == 0 {
		return nil
	}
	slices.Sort(values)
	return slices.Compact(values)
}
