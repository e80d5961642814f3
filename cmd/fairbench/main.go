// Command fairbench runs database benchmark studies and turns their results into
// comparisons people can trust. This package holds the sub-commands, their
// flags and what joins them (ad-hoc studies from flags, fallback files, local
// load generators); the work happens in internal/.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/escape"
	_ "github.com/fairbench/fairbench/internal/plugins"
	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/version"
)

// exitInterrupted is the shell's convention for a process stopped by SIGINT.
const exitInterrupted = 130

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if path := os.Getenv("FAIRBENCH_CPUPROFILE"); path != "" {
		// For developers measuring fairbench's own overhead (see bench/README.md).
		if f, err := os.Create(path); err == nil {
			if err := pprof.StartCPUProfile(f); err == nil {
				defer pprof.StopCPUProfile()
			}
		}
	}
	root := newRoot()
	err := root.ExecuteContext(ctx)
	pprof.StopCPUProfile()
	if path := os.Getenv("FAIRBENCH_MEMPROFILE"); path != "" {
		// Every allocation of the command (alloc_space) and what it still held at
		// the end (inuse_space), for developers measuring report's memory.
		if f, err := os.Create(path); err == nil {
			_ = pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
	}
	if err == nil {
		return
	}
	if errors.Is(err, runner.ErrInterrupted) {
		msg := "interrupted; every finished run is stored, the interrupted one is marked (resume with --resume)"
		if err != runner.ErrInterrupted {
			msg = err.Error() // a command's own account of what the interruption left
		}
		fmt.Fprintln(os.Stderr, errorLine(msg))
		os.Exit(exitInterrupted)
	}
	fmt.Fprintln(os.Stderr, errorLine(err.Error()))
	os.Exit(1)
}

// errorLine is how a command's error reaches the terminal: without a
// secret, and with the control characters of any name it quotes escaped.
func errorLine(msg string) string {
	return "fairbench: " + escape.TerminalText(redact.Scrub(msg))
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "fairbench",
		Short:         "Database benchmark studies you can trust",
		Long:          "fairbench runs database benchmark studies from one declarative file and turns the results into comparisons: repetitions, histograms, environment capture and reports.",
		Version:       version.String(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentPreRun = func(cmd *cobra.Command, args []string) { prepareCompletion(cmd, args) }
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%s: %v (see 'fairbench %s --help')", c.Name(), err, c.Name())
	})
	for _, c := range commands {
		root.AddCommand(c())
	}
	stopOnSignal(root)
	return root
}

// commands lists the sub-commands; each command's file adds itself from init, so
// commands can be added without touching this file.
var commands []func() *cobra.Command

func addCommand(c func() *cobra.Command) { commands = append(commands, c) }

func init() {
	addCommand(newDemo)
	addCommand(newRun)
	addCommand(newLoad)
	addCommand(newValidate)
	addCommand(newReport)
	addCommand(newEnv)
	addCommand(newK8s)
}
