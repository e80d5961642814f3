package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/store"
)

func init() { addCommand(newStore) }

func newStore() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "store",
		Short: "Work on results stores: SQLite files and PostgreSQL schemas",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "copy FROM TO",
		Short: "Copy every study file, run and imported-file record from one results store to another",
		Long: `Copy every study file, run (with its operations, histograms and series) and
imported-file record from the results store FROM to the results store TO. Either
is a results file or a postgres:// URL (tables in the schema "fairbench", or the
one ?schema=NAME names); TO is created if needed.

Each run is written in a transaction of its own. A run already in TO (same study
hash, cell key, target, repetition, start and end time) is skipped, so a copy can
be repeated or resumed; run ids are not kept.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			from, err := openResults(args[0])
			if err != nil {
				return err
			}
			defer from.Close()
			to, err := store.Open(args[1])
			if err != nil {
				return err
			}
			defer to.Close()
			c, err := store.Copy(from, to)
			fmt.Fprintf(cmd.OutOrStdout(), "%d runs copied, %d skipped (already in %s); %d study files copied, %d skipped; %d imported-file records copied, %d skipped\n",
				c.Runs, c.RunsSkipped, to.Path(), c.Studies, c.StudiesSkipped, c.Files, c.FilesSkipped)
			if err != nil {
				return fmt.Errorf("copying %s to %s: %w", from.Path(), to.Path(), err)
			}
			return to.Close()
		},
	})
	return cmd
}
