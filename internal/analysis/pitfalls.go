package analysis

import (
	"fmt"
	"strings"
)

// serverIdleBusyPct: the server host counts as busy with something else when
// its CPUs were this busy (% of all) in the idle second before a run, with
// fairbench's clients connected and sending nothing. A database at rest
// uses a few percent for its background work; past this, something else
// ran there, or the database was still busy with the previous cell.
const serverIdleBusyPct = 10.0

// unverifiedWarnings notes, per scenario, the runs after which nothing
// checked what the database answered (result.Summary.Verified): their
// numbers are those of answers no one looked at (Raasveldt et al.'s
// "incorrect code"). Whether a run was verified is the runner's record of
// the workload's own check, not a list of kinds here.
func unverifiedWarnings(groups []*Group, names *Namer) []Warning {
	var order []string
	ids := map[string][]int64{}
	for _, g := range groups {
		for _, r := range g.Runs {
			if r.Summary.Verified {
				continue
			}
			s := names.Scenario(g)
			if _, seen := ids[s]; !seen {
				order = append(order, s)
			}
			ids[s] = append(ids[s], r.ID)
		}
	}
	var ws []Warning
	for _, s := range order {
		ws = append(ws, Warning{Check: checkUnverified, Runs: ids[s], Info: true, Message: fmt.Sprintf(
			"%s: results not verified (runs %s): no check of what the database answered ran after them; `fairbench run --check` runs the workload's own check where it has one",
			s, idRanges(ids[s]))})
	}
	return ws
}

// serverBusyWarnings names the targets whose server host, as its
// node_exporter told, was busy before a run while fairbench sent nothing
// (result.Server.IdleCPU). node_exporter counts the whole host's CPU, not
// the database process's: during a run, the database's work and anything
// else's cannot be told apart, so the idle second before it is the one
// measure that can say something else was running.
func serverBusyWarnings(groups []*Group) []Warning {
	var busy targetRuns
	most := 0.0
	for _, g := range groups {
		for _, r := range g.Runs {
			if idle := r.Env.Server.IdleCPU; idle != nil && *idle >= serverIdleBusyPct {
				busy.add(r)
				most = max(most, *idle)
			}
		}
	}
	if len(busy.names) == 0 {
		return nil
	}
	return []Warning{{Check: checkServerBusy, Runs: busy.ids, Message: fmt.Sprintf(
		"the server host of %s was busy before runs with nothing sent to it (e.g. runs %s, up to %.0f %% of its CPUs in the idle second before the run): something else ran there, or the database was still working off the previous cell; stop other work on it, or add a cool-down",
		strings.Join(busy.names, ", "), idRanges(busy.ids), most)}}
}
