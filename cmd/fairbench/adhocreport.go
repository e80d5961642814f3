package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/fairbench/fairbench/internal/adhocline"
	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/numfmt"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
)

// adHocStudyName is the study name of the runs `fairbench run --target URL
// --workload KIND` makes without a study file.
const adHocStudyName = adhocline.StudyName

// defaultAdHocRuns is how many ad-hoc runs the text report shows by default.
const defaultAdHocRuns = 10

// allAdHoc reports whether every run is an ad-hoc one: the text report then
// shows each as the summary run printed, not a study's tables, which over
// unrelated runs would be one wide table and empty comparisons.
func allAdHoc(runs []*result.Run) bool {
	return len(runs) > 0 && !slices.ContainsFunc(runs, func(r *result.Run) bool {
		return r.StudyName != adHocStudyName || r.StudyHash != "" || r.Source != "fairbench"
	})
}

// writeAdHocReport prints the last ad-hoc runs (all when last is 0), most
// recent last, each under a line naming it by what differs between them
// (analysis.Namer) and then as `fairbench run` summarised it (printSummary).
// Each shown run is read again with its series (fullRun), one at a time.
func writeAdHocReport(w io.Writer, s *store.Store, runs []*result.Run, groups []*analysis.Group, last int) error {
	results := s.Path()
	runs = slices.Clone(runs)
	slices.SortFunc(runs, func(a, b *result.Run) int { return int(a.ID - b.ID) })
	fmt.Fprintf(w, "%s in %s, each as 'fairbench run' summarised it, the most recent last\n", numfmt.Count(len(runs), "ad-hoc run", "ad-hoc runs"), results)
	fmt.Fprintln(w, "studies: 'fairbench studies'; a study's report: 'fairbench report --study NAME'")
	if last > 0 && len(runs) > last {
		hidden := len(runs) - last
		fmt.Fprintf(w, "%s not shown: --last %d shows more, --last 0 all of them\n",
			numfmt.Count(hidden, "earlier run", "earlier runs"), min(len(runs), 2*last))
		runs = runs[hidden:]
	}
	names := analysis.NewNamer(groups)
	groupOf := map[int64]*analysis.Group{}
	for _, g := range groups {
		for _, r := range slices.Concat(g.Runs, g.IncompleteRuns) {
			groupOf[r.ID] = g
		}
	}
	for _, r := range runs {
		label := r.Target
		if g, ok := groupOf[r.ID]; ok {
			label = names.Label(g)
		}
		fmt.Fprintf(w, "\n== run %s · %s · %s\n", strconv.FormatInt(r.ID, 10), r.StartedAt.Local().Format("2006-01-02 15:04:05"), label)
		if len(r.Ops) == 0 && r.Status != result.StatusOK {
			fmt.Fprintf(w, "%s: %s\n", r.Status, r.Error)
			continue
		}
		full, err := fullRun(s, r)
		if err != nil {
			return err
		}
		printSummary(w, full, 0, nil)
	}
	return nil
}
