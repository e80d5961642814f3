package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/result"
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
		Args:        cobra.ExactArgs(2),
		Annotations: map[string]string{interruptedNote: "the runs copied before the signal are kept (each in its own transaction); repeat the copy to finish it"},
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
	cmd.AddCommand(newStoreParts())
	return cmd
}

// newStoreParts is `fairbench store parts RUN`: what each load generator of
// a merged run measured, from the partial runs kept beside it.
func newStoreParts() *cobra.Command {
	var results string
	var asJSON bool
	c := &cobra.Command{
		Use:   "parts RUN",
		Short: "Show what each load generator measured of a run several generators measured together",
		Long: `Show the partial runs the load generators of run RUN wrote (generators = N): per
generator its status, host, clients, throughput, latency percentiles, CPU and clock
offset, or with --json the partial runs themselves (histograms included, base64).
The merged run is the exact merge of these; they never count as runs of their own.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id <= 0 {
				return fmt.Errorf("store parts: %q is not a run id (fairbench report --results … lists them)", args[0])
			}
			s, err := openResults(results)
			if err != nil {
				return err
			}
			defer s.Close()
			parts, ok, err := s.PartsOfRun(cmd.Context(), id)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("run %d in %s was not measured by several load generators (or does not exist): it has no partial runs", id, s.Path())
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(parts)
			}
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "generator\tstatus\thost\tclients\tthroughput/s\tp50 ms\tp99 ms\tCPU %\tclock offset ms\t")
			for _, p := range parts {
				if p.Run == nil {
					fmt.Fprintf(tw, "%d\t%s\t-\t-\t-\t-\t-\t-\t-\t\n", p.Generator, p.Status)
					continue
				}
				var g result.LoadGenerator
				if p.Run.Env.LoadGenerator != nil {
					g = *p.Run.Env.LoadGenerator
				}
				var cpu float64
				if g.CPUPercent != nil {
					cpu = *g.CPUPercent
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%.1f\t%.3f\t%.3f\t%.0f\t%+.3f\t\n", p.Generator, p.Status, g.Host, p.Run.Clients,
					p.Run.Summary.Throughput, p.Run.Summary.P50/1000, p.Run.Summary.P99/1000,
					cpu, g.ClockOffsetMS)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, p := range parts {
				if p.Error != "" {
					fmt.Fprintf(out, "generator %d: %s\n", p.Generator, p.Error)
				}
			}
			return nil
		},
	}
	c.Flags().StringVar(&results, "results", defaultResults, "results file, or a postgres:// URL of a shared results store")
	c.Flags().BoolVar(&asJSON, "json", false, "print the partial runs as JSON")
	return c
}
