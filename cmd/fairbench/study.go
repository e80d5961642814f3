package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/boundfile"
	"github.com/fairbench/fairbench/internal/escape"
	"github.com/fairbench/fairbench/internal/fromcommands"
)

// `fairbench study from-commands FILE`: the study file a shell file of peer
// tools' command lines stands for (internal/fromcommands).
func init() { addCommand(newStudy) }

func newStudy() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "study",
		Short: "Write study files: from-commands turns a shell file of benchmark command lines into one",
		Args:  cobra.NoArgs,
	}
	var out string
	from := &cobra.Command{
		Use:   "from-commands FILE",
		Short: "Write the study file a shell file of peer tools' command lines stands for",
		Long: `Read a shell file of benchmark command lines, one command per line (and the simple
for-loop 'for t in 1 2 4 8; do … -c $t …; done', whose values become client levels),
each read as 'fairbench run --workload KIND' reads its peer tool's line (the tools the
workloads' --help names), and write the
equivalent study file: one workload per distinct command shape, the lines' clients
as its levels, durations and scales as given, targets from the connection flags. Lines
it cannot map are listed on standard error and as comments in the study. Variables
other than a loop's ($PGHOST) are left as placeholders to fill in.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return studyFromCommands(cmd, args[0], out)
		},
	}
	from.Flags().StringVarP(&out, "output", "o", "", "write the study to this file (default: standard output)")
	cmd.AddCommand(from)
	return cmd
}

func studyFromCommands(cmd *cobra.Command, file, out string) error {
	data, err := boundfile.Read(file, fromcommands.MaxFileSize, "a shell file of command lines")
	if err != nil {
		return err
	}
	r, err := fromcommands.Convert(file, data)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		return err
	}
	for _, u := range r.Unmapped() {
		fmt.Fprintf(cmd.ErrOrStderr(), "not mapped: %s\n", escape.TerminalText(u))
	}
	if out == "" {
		_, err = cmd.OutOrStdout().Write(b.Bytes())
		return err
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("-o %s: %v", out, err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: check it with 'fairbench validate %s'\n", escape.TerminalText(out), escape.TerminalText(out))
	return nil
}
