package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/fairbench/fairbench/internal/analysis"
	"os"
	"strconv"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/store"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// A cell its work ends (a query set's tries, operationcount) has only a
// bound before it runs, often far above what it takes: validate estimates
// it by the last completed run of the same cell in the results store (same
// kind, database, parameters and clients), when there is one.

// sameCell identifies a cell across studies and target names, for the
// runs stored of it: the kind, the database, the parameters and clients.
func sameCell(kind, redactedURL string, clients int, p params.Values) string {
	return kind + "\x00" + redactedURL + "\x00" + p.Canonical() + "\x00" + strconv.Itoa(clients)
}

// completedRuns are the completed native runs in the results store at path;
// none when the store does not exist and path was not given (the default
// results file of a study not yet run).
func completedRuns(path string, given bool) ([]*result.Run, error) {
	if !given && !store.IsURL(path) {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
	}
	s, err := store.OpenExisting(path)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.Runs(store.Filter{Status: []result.Status{result.StatusOK}, Sources: []string{"fairbench"}})
}

// lastRuns are the last of runs of each cell.
func lastRuns(runs []*result.Run) map[string]*result.Run {
	last := map[string]*result.Run{}
	for _, r := range runs {
		k := sameCell(r.Kind, r.TargetURL, r.Clients, params.Values(r.Params))
		if prev, ok := last[k]; !ok || r.ID > prev.ID {
			last[k] = r
		}
	}
	return last
}

// plannedPower is each scenario of the plan (a workload and its
// parameters over its clients sweep) with the scatter the stored runs of
// its cells had: what validate says the planned rounds can detect.
func plannedPower(st *study.Study, cells []study.Cell, runs []*result.Run) []analysis.PlannedScenario {
	type scen struct {
		name    string
		kind    string
		params  string
		clients map[string]map[int]bool // per target
	}
	// A scenario is named by its workload and the parameters that vary
	// between the workload's combinations, as reports name it.
	seen := map[string]params.Values{}
	varying := map[string]params.Values{}
	for _, c := range cells {
		w := c.Workload.Name
		if first, ok := seen[w]; !ok {
			seen[w], varying[w] = c.Params, params.Values{}
		} else {
			for k, v := range c.Params {
				if params.Format(first[k]) != params.Format(v) {
					varying[w][k] = v
				}
			}
		}
	}
	var order []*scen
	byKey := map[string]*scen{}
	for _, c := range cells {
		k := c.Workload.Name + "\x00" + c.Params.Canonical()
		sc := byKey[k]
		if sc == nil {
			name := c.Workload.Name
			if p := varying[c.Workload.Name].Canonical(); p != "" {
				name += " " + c.Params.Only(varying[c.Workload.Name]).Canonical()
			}
			sc = &scen{name: name, kind: c.Workload.Kind, params: c.Params.Canonical(), clients: map[string]map[int]bool{}}
			byKey[k] = sc
			order = append(order, sc)
		}
		if sc.clients[c.Target.Name] == nil {
			sc.clients[c.Target.Name] = map[int]bool{}
		}
		sc.clients[c.Target.Name][c.Clients] = true
	}
	out := make([]analysis.PlannedScenario, 0, len(order))
	for _, sc := range order {
		levels := 0
		for _, cs := range sc.clients {
			levels = max(levels, len(cs))
		}
		var mine []*result.Run
		for _, r := range runs {
			if r.Kind == sc.kind && params.Values(r.Params).Canonical() == sc.params {
				mine = append(mine, r)
			}
		}
		out = append(out, analysis.PlannedScenario{Name: sc.name, Cells: levels, Rounds: st.Repetitions,
			Scatter: analysis.RunScatter(mine, func(r *result.Run) string {
				return sameCell(r.Kind, r.TargetURL, r.Clients, params.Values(r.Params))
			})})
	}
	return out
}

// cellTimer says how long each cell runs: by its workload's shape
// (runner.CellTime), and a bounded cell by its last stored run.
func cellTimer(shapes map[string]workload.Shape, shapeKey func(study.Cell) string, last map[string]*result.Run) func(study.Cell) study.CellTime {
	return func(c study.Cell) study.CellTime {
		t := runner.CellTime(c, shapes[shapeKey(c)])
		if !t.AtMost {
			return t
		}
		if r, ok := last[sameCell(c.Workload.Kind, driver.Redacted(c.Target.URL), c.Clients, c.Params)]; ok {
			return study.CellTime{Time: r.Warmup + r.Duration + c.Cooldown, FromRun: r.ID}
		}
		return t
	}
}

// writePower prints what each scenario of the plan can detect, when the
// results store holds runs of its cells.
func writePower(w io.Writer, st *study.Study, cells []study.Cell, stored []*result.Run, results string) {
	if len(stored) == 0 {
		return
	}
	fmt.Fprintf(w, "\nsmallest change each scenario can detect (paired over its rounds, α = %.2f, 80 %% power), from the scatter of the runs of its cells in %s:\n",
		analysis.DefaultAlpha, results)
	for _, p := range plannedPower(st, cells, stored) {
		fmt.Fprintf(w, "  %s\n", p.PowerLine(analysis.DefaultAlpha))
	}
}
