package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/escape"
	"github.com/fairbench/fairbench/internal/store"
)

// `fairbench studies`: the studies of a results file, so that a user who ran
// an ad-hoc command after a study can find the study's name for
// `report --study` (report takes the most recent by default).
func init() {
	addCommand(func() *cobra.Command {
		var results string
		cmd := &cobra.Command{
			Use:   "studies",
			Short: "List the studies in the results file: name, first and last run, runs, targets, workloads",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				s, err := openResults(results)
				if err != nil {
					return err
				}
				defer s.Close()
				sts, err := s.Studies()
				if err != nil {
					return err
				}
				return writeStudies(cmd.OutOrStdout(), s.Path(), sts)
			},
		}
		cmd.Flags().StringVar(&results, "results", defaultResults, "results file, or a postgres:// URL of a shared results store")
		return cmd
	})
}

func writeStudies(w io.Writer, path string, sts []store.StudySummary) error {
	if len(sts) == 0 {
		_, err := fmt.Fprintf(w, "no runs in %s\n", path)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "study\tfirst run\tlast run\truns\tnot completed\ttargets\tworkloads\t")
	day := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.Local().Format("2006-01-02 15:04")
	}
	for _, st := range sts {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t\n", escape.Terminal(st.Name), day(st.First), day(st.Last), st.Runs, st.NotCounted, st.Targets, st.Workloads)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "(report and compare take the last by default; --study NAME picks another)\n")
	return err
}

// hasStudy reports whether the results store has runs of the study name;
// true when it cannot tell, so that the caller's own error stands.
func hasStudy(s *store.Store, name string) bool {
	sts, err := s.Studies()
	return err != nil || slices.ContainsFunc(sts, func(st store.StudySummary) bool { return st.Name == name })
}

// unknownStudy is the error of a --study that names no study of the
// results file: the names there are, the closest first.
func unknownStudy(s *store.Store, name string) error {
	sts, err := s.Studies()
	if err != nil || len(sts) == 0 {
		return fmt.Errorf("--study %q: no such study in %s", name, s.Path())
	}
	slices.SortStableFunc(sts, func(a, b store.StudySummary) int {
		return editDistance(a.Name, name) - editDistance(b.Name, name)
	})
	var names []string
	for i, st := range sts {
		if i == 8 {
			names = append(names, "…")
			break
		}
		names = append(names, strconv.Quote(st.Name))
	}
	return fmt.Errorf("--study %q: no such study in %s; its studies: %s (fairbench studies lists them)", name, s.Path(), strings.Join(names, ", "))
}

// editDistance is Levenshtein's distance, to put a typo's intended name first.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
