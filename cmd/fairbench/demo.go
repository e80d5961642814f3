package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/examples"
	"github.com/fairbench/fairbench/internal/store"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

const (
	demoStudyFile = "fairbench-demo.toml"
	demoDataDir   = "fairbench-demo-data"
	demoReport    = "fairbench-demo.md"
	demoHTML      = "fairbench-demo.html"
)

func newDemo() *cobra.Command {
	var results string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run a quick study on the embedded SQLite default (no server needed) and write a report",
		Long: `Compares two SQLite configurations (WAL + synchronous=NORMAL against DELETE + synchronous=FULL)
on pgbench's select-only and TPC-B-like scripts at 1, 2 and 4 clients, 2 repetitions each.
Leaves in the current directory: the study file (` + demoStudyFile + `), the databases (` + demoDataDir + `/),
the results (` + defaultResults + `), a Markdown report (` + demoReport + `) and an HTML one with charts (` + demoHTML + `).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := examples.Files.ReadFile("demo.toml")
			if err != nil {
				return err
			}
			if err := writeDemoStudy(src); err != nil {
				return err
			}
			if err := os.MkdirAll(demoDataDir, 0o755); err != nil {
				return err
			}
			st, err := study.Parse(demoStudyFile, src, workload.Catalog{})
			if err != nil {
				return err
			}
			x := execution{results: results}
			if _, err := x.run(cmd.Context(), st); err != nil {
				return err
			}
			s, err := store.Open(results)
			if err != nil {
				return err
			}
			defer s.Close()
			if err := writeReport(s, store.Filter{StudyHash: st.Hash}, "md", demoReport); err != nil {
				return err
			}
			// The HTML report compares the second configuration against the first.
			html := reportExtras{baseline: st.Targets[0].Name}
			if err := writeReportWith(s, store.Filter{StudyHash: st.Hash}, "html", demoHTML, html); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "report written to %s and %s; study file %s; results in %s (try: fairbench report --format md)\n", demoReport, demoHTML, demoStudyFile, results)
			return nil
		},
	}
	cmd.Flags().StringVar(&results, "results", defaultResults, "results file")
	return cmd
}

// writeDemoStudy leaves the demo's study file next to its results so the user can
// edit and rerun it; a different file of that name is left alone.
func writeDemoStudy(src []byte) error {
	old, err := os.ReadFile(demoStudyFile)
	if err == nil {
		if !bytes.Equal(old, src) {
			fmt.Fprintf(os.Stderr, "note: %s exists and differs from the demo study; leaving it as it is and running the built-in demo\n", demoStudyFile)
		}
		return nil
	}
	return os.WriteFile(demoStudyFile, src, 0o644)
}
