package adhocline

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/workload"
)

// Parsed is a whole ad-hoc command line read without running it: its cell,
// the action its peer words ask for, the notes to say, and the target URL
// the line gave (--target or the peer tool's connection flags).
type Parsed struct {
	Kind   string
	Target string
	Cell   Cell
	Action workload.Action
	Notes  []string
	// Quiet is -q/--quiet (redis-benchmark's -q, fairbench's too).
	Quiet bool
}

// Parse reads args, the arguments of `fairbench run` after "run", as run
// reads an ad-hoc line — the command's own ad-hoc flags (--target,
// --workload, --warmup, --set, -q), the workload's flags, the peer tool's
// spellings (PeerLine), the connection flags (Flags.Target) — into the
// cell it describes; 'fairbench study from-commands' reads each line of a
// shell file with it. A positional argument left over is an error: a
// study file is not an ad-hoc line.
func Parse(args []string) (Parsed, error) {
	var line Line
	var p Parsed
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&line.Target, "target", "", "")
	fs.StringVar(&line.Workload, "workload", workload.Default(), "")
	fs.StringVar(&line.Warmup, "warmup", "0s", "")
	fs.StringArrayVar(&line.Set, "set", nil, "")
	fs.BoolVarP(&p.Quiet, "quiet", "q", false, "")
	p.Kind = ScanWorkload(args)
	flags, err := Define(fs, p.Kind, true)
	if err != nil {
		return p, err
	}
	peer, err := PeerLine(args, CommandLineOf(p.Kind), fs)
	if err != nil {
		return p, err
	}
	p.Action, p.Notes = peer.Action, peer.Notes
	if err := fs.Parse(peer.Args); err != nil {
		return p, fmt.Errorf("%s", ExplainFlagError("run", p.Kind, err))
	}
	if rest := fs.Args(); len(rest) > 0 {
		return p, fmt.Errorf("%q: not a flag or word of workload %s's line", rest[0], p.Kind)
	}
	if line.Target, err = flags.Target(line.Target); err != nil {
		return p, err
	}
	if line.Target == "" {
		return p, fmt.Errorf("the line names no server: give --target URL or the peer tool's connection flags")
	}
	p.Target = line.Target
	line.WarmupGiven = fs.Changed("warmup")
	p.Cell, err = flags.Cell(line)
	return p, err
}
