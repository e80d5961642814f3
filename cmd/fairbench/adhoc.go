package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/adhocline"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// Ad-hoc flags belong to the workload (workload.Flagger): `fairbench run
// --target URL --workload KIND` takes that workload's flags, named as its peer
// tool names them. internal/adhocline defines and reads them; cobra parses
// flags before it knows the workload, so the commands that take them parse
// their own arguments: withWorkloadFlags.

// adhoc is what a command binds of an ad-hoc command line: the values of
// its own flags (--target, --workload, --warmup, --set) and the workload's
// flags it defined (adhocline.Flags), read back once the line is parsed.
type adhoc struct {
	target, workload, warmup string
	set                      []string
	flags                    *adhocline.Flags
	resolved                 bool // target holds what the connection flags built
}

// defineWorkloadFlags defines on fs the flags of workload kind
// (adhocline.Define).
func (a *adhoc) defineWorkloadFlags(fs *pflag.FlagSet, kind string, withFields bool) error {
	flags, err := adhocline.Define(fs, kind, withFields)
	a.flags = flags
	return err
}

// resolveTarget makes the peer tool's connection flags given (pgbench's
// -h -p -U dbname) the target URL, when --target is not given
// (adhocline.Flags.Target).
func (a *adhoc) resolveTarget() error {
	if a.flags == nil || a.resolved {
		return nil
	}
	t, err := a.flags.Target(a.target)
	if err != nil {
		return err
	}
	a.target, a.resolved = t, true
	return nil
}

// cell is what an ad-hoc command line says of how its run is shown:
// execution's ad-hoc part (adhocline.Cell without its study).
type cell struct {
	progress, maxTries int
	printing           kinds.Printing
	outputs            map[string]string
}

// adhocStudy builds the one-cell study of an ad-hoc run from the flags in
// fs, the flag set a's flags were defined on and parsed into.
func adhocStudy(a *adhoc, fs *pflag.FlagSet) (*study.Study, cell, error) {
	c, err := a.flags.Cell(adhocline.Line{Target: a.target, Workload: a.workload, Warmup: a.warmup,
		WarmupGiven: fs.Changed("warmup"), Set: a.set})
	if err != nil {
		return nil, cell{}, err
	}
	return c.Study, cell{progress: c.Progress, maxTries: c.MaxTries, printing: c.Printing, outputs: c.Outputs}, nil
}

// The command's names for adhocline's readers of a raw command line, which
// its tests read command lines with too.
var (
	scanWorkload  = adhocline.ScanWorkload
	peerArgs      = adhocline.PeerArgs
	peerLine      = adhocline.PeerLine
	commandLineOf = adhocline.CommandLineOf
)

// withWorkloadFlags makes cmd take the flags of the workload its arguments
// name. define binds a fresh O (the command's options) to a fresh flag set
// with the command's flags for a workload kind; cmd's own flags at
// construction are the default workload's, for `fairbench help CMD`. check
// validates the positional arguments.
//
// The arguments are first read as the workload's peer tool reads its command
// line (adhocline.PeerArgs): YCSB's -threads, sysbench's `oltp_read_write
// run`; the action such a word asks for (prepare, cleanup) is passed to run
// with the options the arguments set.
func withWorkloadFlags[O any](cmd *cobra.Command, check cobra.PositionalArgs,
	define func(fs *pflag.FlagSet, kind string) (*O, error),
	run func(cmd *cobra.Command, opts *O, args []string, action workload.Action) error) {
	cmd.DisableFlagParsing = true
	cmd.Args = cobra.ArbitraryArgs
	defineOnly := func(fs *pflag.FlagSet, kind string) error { _, err := define(fs, kind); return err }
	_ = defineOnly(cmd.Flags(), workload.Default())
	workloadFlagDefiners[cmd] = defineOnly // completion.go
	cmd.ValidArgsFunction = completeWorkloadArgs(nil, cobra.ShellCompDirectiveNoFileComp)
	describeWorkload(cmd, workload.Default())
	examplesLast(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		kind := scanWorkload(args)
		cmd.ResetFlags()
		opts, err := define(cmd.Flags(), kind)
		if err != nil {
			return err
		}
		describeWorkload(cmd, kind)
		cmd.InitDefaultHelpFlag()
		peer, err := peerLine(args, commandLineOf(kind), cmd.Flags())
		if err != nil {
			return fmt.Errorf("%s: %v (see 'fairbench %s --workload %s --help')", cmd.Name(), err, cmd.Name(), kind)
		}
		args, action := peer.Args, peer.Action
		cmd.DisableFlagParsing = false // ParseFlags does nothing while it is set
		defer func() { cmd.DisableFlagParsing = true }()
		if err := cmd.ParseFlags(args); err != nil {
			return workloadFlagError(cmd, kind, err)
		}
		if help, _ := cmd.Flags().GetBool("help"); help {
			return cmd.Help()
		}
		for _, note := range peer.Notes {
			fmt.Fprintf(cmd.ErrOrStderr(), "%s\n", note)
		}
		rest := cmd.Flags().Args()
		if err := check(cmd, rest); err != nil {
			return unexpectedWords(cmd, kind, rest, err)
		}
		return run(cmd, opts, rest, action)
	}
}

// describeWorkload puts what workload kind declares for its --help on cmd:
// the --target help (which targets it runs on, how their URLs are written)
// and its examples.
func describeWorkload(cmd *cobra.Command, kind string) {
	cl := commandLineOf(kind)
	if f := cmd.Flags().Lookup("target"); f != nil && cl.Targets != "" {
		f.Usage += "; workload " + kind + " runs on " + cl.Targets
	}
	if len(cl.Examples) > 0 {
		cmd.Example = "  " + strings.Join(cl.Examples, "\n  ")
	}
}

// examplesLast moves the Examples section of cmd's help to its end, after
// the flags, where a reader of a long list of a workload's flags finds them.
func examplesLast(cmd *cobra.Command) {
	const examples = "{{if .HasExample}}\n\nExamples:\n{{.Example}}{{end}}"
	t := cmd.UsageTemplate()
	if !strings.Contains(t, examples) {
		return // another cobra's template: left as it is
	}
	t = strings.Replace(t, examples, "", 1)
	cmd.SetUsageTemplate(strings.TrimRight(t, "\n") + examples + "\n")
}

// unexpectedWords explains positional arguments the command does not take:
// the words the workload's peer tool's command line has, when it has some.
func unexpectedWords(cmd *cobra.Command, kind string, rest []string, err error) error {
	words := adhocline.PeerWords(kind)
	if len(words) == 0 || len(rest) == 0 {
		return err
	}
	return fmt.Errorf("%s: %v; workload %s takes these words of its peer tool's command line: %s", cmd.Name(), err, kind, strings.Join(words, ", "))
}

// workloadFlagError says which workload's flags were expected and, for a
// flag the workload does not take, what it means elsewhere
// (adhocline.ExplainFlagError).
func workloadFlagError(cmd *cobra.Command, kind string, err error) error {
	msg := adhocline.ExplainFlagError(cmd.Name(), kind, err)
	return fmt.Errorf("%s: %s (see 'fairbench %s --workload %s --help')", cmd.Name(), msg, cmd.Name(), kind)
}
