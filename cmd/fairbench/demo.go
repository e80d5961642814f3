package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/examples"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/store"
	"github.com/fairbench/fairbench/internal/study"
)

const demoDataDir = "fairbench-demo-data"

// demoFiles are what one demo writes: its study file, Markdown and HTML reports.
type demoFiles struct{ example, study, report, html string }

var (
	sqlDemo = demoFiles{"demo.toml", "fairbench-demo.toml", "fairbench-demo.md", "fairbench-demo.html"}
	kvDemo  = demoFiles{"demo-kv.toml", "fairbench-demo-kv.toml", "fairbench-demo-kv.md", "fairbench-demo-kv.html"}
	// The analytics demo: SSB on SQLite, two page-cache configurations.
	analyticsDemo = demoFiles{"demo-analytics.toml", "fairbench-demo-analytics.toml", "fairbench-demo-analytics.md", "fairbench-demo-analytics.html"}
)

func newDemo() *cobra.Command {
	var (
		results       string
		kv, analytics bool
	)
	cmd := &cobra.Command{
		Use:   "demo [--key-value | --analytics]",
		Short: "Run a quick study on embedded engines (no server needed) and write a report",
		Long: `Compares two SQLite configurations (WAL + synchronous=NORMAL against DELETE + synchronous=FULL)
on pgbench's select-only and TPC-B-like scripts at 1, 2 and 4 clients, 2 repetitions each.
Leaves in the current directory: the study file (` + sqlDemo.study + `), the databases (` + demoDataDir + `/),
the results (` + defaultResults + `), a Markdown report (` + sqlDemo.report + `) and an HTML one with charts (` + sqlDemo.html + `).

With --key-value, compares two embedded key-value engines of different designs — bbolt (a B+tree in
the LMDB tradition) and Pebble (an LSM tree) — on memtier-style GET-heavy and SET-only
profiles at pipelines 1 and 16 (` + kvDemo.study + `, ` + kvDemo.report + `, ` + kvDemo.html + `).

With --analytics, runs the Star Schema Benchmark's 13 queries on SQLite at scale 0.05, three tries
each (cold, then hot), with SQLite's default page cache against a 256 MiB one with mmap
(` + analyticsDemo.study + `, ` + analyticsDemo.report + `, ` + analyticsDemo.html + `).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if kv && analytics {
				return fmt.Errorf("demo: --key-value and --analytics are two demos; run one at a time")
			}
			d := sqlDemo
			if kv {
				d = kvDemo
			}
			if analytics {
				d = analyticsDemo
			}
			src, err := examples.Files.ReadFile(d.example)
			if err != nil {
				return err
			}
			if err := writeDemoStudy(d.study, src); err != nil {
				return err
			}
			if err := os.MkdirAll(demoDataDir, 0o755); err != nil {
				return err
			}
			st, err := study.Parse(d.study, src, runner.Catalog{})
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
			if err := writeReport(s, store.Filter{StudyHash: st.Hash}, "md", d.report); err != nil {
				return err
			}
			// The HTML report compares the second configuration against the first.
			html := reportExtras{baseline: st.Targets[0].Name}
			if err := writeReportWith(s, store.Filter{StudyHash: st.Hash}, "html", d.html, html); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "report written to %s and %s; study file %s; results in %s (try: fairbench report --format md)\n", d.report, d.html, d.study, results)
			return nil
		},
	}
	cmd.Flags().StringVar(&results, "results", defaultResults, "results file")
	cmd.Flags().BoolVar(&kv, "key-value", false, "the key-value demo: bbolt against Pebble, embedded")
	cmd.Flags().BoolVar(&analytics, "analytics", false, "the analytics demo: SSB's queries on SQLite, two page-cache configurations")
	return cmd
}

// writeDemoStudy leaves the demo's study file next to its results so the user can
// edit and rerun it; a different file of that name is left alone.
func writeDemoStudy(name string, src []byte) error {
	old, err := os.ReadFile(name)
	if err == nil {
		if !bytes.Equal(old, src) {
			fmt.Fprintf(os.Stderr, "note: %s exists and differs from the demo study; leaving it as it is and running the built-in demo\n", name)
		}
		return nil
	}
	return os.WriteFile(name, src, 0o644)
}
