package main

import (
	"errors"
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

// lastRuns are the last completed native runs of each cell in the results
// store at path; none when the store does not exist and path was not given
// (the default results file of a study not yet run).
func lastRuns(path string, given bool) (map[string]*result.Run, error) {
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
	runs, err := s.Runs(store.Filter{Status: []result.Status{result.StatusOK}, Sources: []string{"fairbench"}})
	if err != nil {
		return nil, err
	}
	last := map[string]*result.Run{}
	for _, r := range runs {
		k := sameCell(r.Kind, r.TargetURL, r.Clients, params.Values(r.Params))
		if prev, ok := last[k]; !ok || r.ID > prev.ID {
			last[k] = r
		}
	}
	return last, nil
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
