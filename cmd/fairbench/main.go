// Command fairbench runs database benchmark studies and turns their results into
// comparisons people can trust. This package holds flags and sub-commands only;
// the work happens in internal/.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/envinfo"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/version"
	_ "github.com/fairbench/fairbench/internal/workload/all"
)

// exitInterrupted is the shell's convention for a process stopped by SIGINT.
const exitInterrupted = 130

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRoot()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return
	}
	if errors.Is(err, runner.ErrInterrupted) {
		fmt.Fprintln(os.Stderr, "fairbench: interrupted; every finished run is stored, the interrupted one is marked (resume with --resume)")
		os.Exit(exitInterrupted)
	}
	fmt.Fprintln(os.Stderr, "fairbench: "+envinfo.Scrub(err.Error()))
	os.Exit(1)
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
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%s: %v (see 'fairbench %s --help')", c.Name(), err, c.Name())
	})
	root.AddCommand(newDemo(), newRun(), newLoad(), newValidate(), newReport(), newEnv())
	return root
}
