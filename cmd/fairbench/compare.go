package main

import (
	"bytes"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/report"
	"github.com/fairbench/fairbench/internal/store"
)

func init() { addCommand(newCompare) }

func newCompare() *cobra.Command {
	var (
		results, format, out, studyName, baseline string
		all, peak                                 bool
		alpha                                     float64
		gate                                      gateOptions
	)
	cmd := &cobra.Command{
		Use:   "compare [--baseline NAME] | --against FILE | --baseline-study NAME [--fail-on 'tps:-2.5%,p99:+10%']",
		Short: "Compare every target against a baseline: deltas with confidence intervals, verdicts, methodology warnings",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := openResults(results)
			if err != nil {
				return err
			}
			defer s.Close()
			if gate.active() {
				if peak || all || baseline != "" {
					return fmt.Errorf("compare: --against and --baseline-study compare each target with itself in the baseline study: --peak, --all and --baseline do not apply")
				}
				return runGate(s, studyName, gate, alpha, format, out)
			}
			if gate.failOn != "" || len(gate.maps) > 0 {
				return fmt.Errorf("compare: --fail-on and --map compare with a baseline study: give --against FILE or --baseline-study NAME")
			}
			runs, groups, title, err := selectRuns(s, store.Filter{StudyName: studyName, LatestStudy: studyName == "" && !all}, "compare")
			if err != nil {
				return err
			}
			if baseline, err = baselineOf(s, runs, groups, baseline); err != nil {
				return err
			}
			if baseline == "" {
				return fmt.Errorf("compare: --baseline NAME is required (the target the others are compared against), unless the study marks it with baseline = true")
			}
			cmp, err := analysis.Compare(groups, baseline, alpha)
			if err != nil {
				return err
			}
			opt := report.Options{Title: title, Results: s.Path()}
			var buf bytes.Buffer
			var peaks []*analysis.Peak
			if peak {
				peaks = analysis.Peaks(groups, baseline)
			}
			switch format {
			case "text", "":
				if peak {
					err = report.PeakTerminal(&buf, peaks, baseline, cmp.Warnings, opt)
				} else {
					err = report.CompareTerminal(&buf, cmp, opt)
				}
			case "md", "markdown":
				buf.WriteString(mdMarker)
				if peak {
					err = report.PeakMarkdown(&buf, peaks, baseline, cmp.Warnings, opt)
				} else {
					err = report.CompareMarkdown(&buf, cmp, opt)
				}
			case "json":
				err = report.CompareJSON(&buf, cmp, peaks)
			case "csv":
				if peak {
					return fmt.Errorf("--format csv with --peak: use json for peaks")
				}
				err = report.CompareCSV(&buf, cmp)
			case "benchstat":
				err = report.Benchstat(&buf, runs)
			default:
				return fmt.Errorf("--format %q: use text, md, json, csv or benchstat", format)
			}
			if err != nil {
				return err
			}
			return emit(&buf, out)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&baseline, "baseline", "", "target the others are compared against (default: the study's targets marked baseline = true; required without them); several, comma-separated (pg-x86,my-x86), compare each target with the one of its URL scheme")
	fl.BoolVar(&peak, "peak", false, "compare the best throughput over the clients sweep per target and scenario, and the degradation against the baseline")
	fl.Float64Var(&alpha, "alpha", analysis.DefaultAlpha, "significance level of the verdicts; intervals are at 1 − alpha")
	fl.StringVar(&results, "results", defaultResults, "results file, or a postgres:// URL of a shared results store")
	fl.StringVar(&format, "format", "text", "output format: text, md, json, csv or benchstat; with --fail-on: text, github (a Markdown summary for a CI job's page) or json")
	fl.StringVarP(&out, "output", "o", "", "write to this file instead of standard output")
	fl.StringVar(&studyName, "study", "", "compare within this study (by name); default: the most recent study")
	fl.BoolVar(&all, "all", false, "compare over every run in the results file")
	fl.StringVar(&gate.against, "against", "", "compare the study's targets with the same targets of a baseline study in this results file (its latest study, or --baseline-study)")
	fl.StringVar(&gate.baselineStudy, "baseline-study", "", "compare the study's targets with the same targets of this study (in --against FILE, else in --results)")
	fl.StringArrayVar(&gate.maps, "map", nil, "with --against or --baseline-study: compare the baseline study's target BASELINE with this study's MINE (BASELINE=MINE, repeatable)")
	fl.StringVar(&gate.failOn, "fail-on", "", "with --against or --baseline-study: exit 1 when a change is significant and beyond its threshold, e.g. 'tps:-2.5%,p99:+10%' (the headline by its name or unit, p95, p99)")
	return cmd
}
