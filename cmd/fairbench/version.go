package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/version"
)

// `fairbench version`, as `fairbench -v` and `--version` print it: users of
// go, kubectl and docker type the word.
func init() {
	addCommand(func() *cobra.Command {
		return &cobra.Command{
			Use:   "version",
			Short: "Print fairbench's version (as -v and --version do)",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				_, err := fmt.Fprintf(cmd.OutOrStdout(), "fairbench version %s\n", version.String())
				return err
			},
		}
	})
}
