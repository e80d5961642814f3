package report

import (
	"encoding/json"
	"io"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
)

// jsonRun is one run as `fairbench run --json` prints it: what its summary
// says, for scripts. Field names are stable; latencies are µs, times
// seconds. The target URL is the stored one, its password removed.
type jsonRun struct {
	RunID      int64                       `json:"run_id"`  // the run's id in the results store; 0 when it could not be stored there
	Results    string                      `json:"results"` // the results store (file path, or URL without password)
	Status     result.Status               `json:"status"`
	Error      string                      `json:"error,omitempty"` // why the run failed or was interrupted
	Kind       string                      `json:"kind"`
	Workload   string                      `json:"workload"`
	Target     string                      `json:"target"`
	TargetURL  string                      `json:"target_url"`
	Params     map[string]any              `json:"params"`
	Clients    int                         `json:"clients"`
	StartedAt  time.Time                   `json:"started_at"`
	WarmupS    float64                     `json:"warmup_s"`
	DurationS  float64                     `json:"duration_s"` // measured
	Version    string                      `json:"fairbench_version"`
	Headline   result.Metric               `json:"headline"`
	Summary    result.Summary              `json:"summary"`
	Ops        []jsonOp                    `json:"ops"`
	Errors     int64                       `json:"errors"` // failed requests after their tries, over every op type
	ErrorsBy   map[result.ErrorClass]int64 `json:"errors_by_class,omitempty"`
	Deviations []string                    `json:"deviations"`
	Hooks      []result.HookRecord         `json:"hooks,omitempty"` // the commands run around it, secrets removed
	Warnings   []analysis.Warning          `json:"warnings"`
}

// RunJSON writes one run as a JSON document: the figures its summary
// prints, its per-op-type percentiles (from the same histograms the reports
// merge), and the methodology warnings that concern a run alone (a single
// run is always one, so that one is left out). results names the store it
// is in.
func RunJSON(w io.Writer, r *result.Run, results string) error {
	j := jsonRun{RunID: r.ID, Results: results, Status: r.Status, Error: r.Error, Kind: r.Kind, Workload: r.Workload,
		Target: r.Target, TargetURL: r.TargetURL, Params: params.Values(r.Params).JSONable(), Clients: r.Clients,
		StartedAt: r.StartedAt, WarmupS: r.Warmup.Seconds(), DurationS: r.Duration.Seconds(), Version: r.ToolVersion,
		Headline: r.Headline(), Summary: r.Summary, Ops: []jsonOp{}, Errors: r.TotalErrors(),
		Deviations: append([]string{}, r.Deviations...), Hooks: r.Hooks, Warnings: []analysis.Warning{}}
	for _, op := range r.Ops {
		for class, n := range op.Errors {
			if j.ErrorsBy == nil {
				j.ErrorsBy = map[result.ErrorClass]int64{}
			}
			j.ErrorsBy[class] += n
		}
	}
	groups, err := analysis.GroupRuns([]*result.Run{r})
	if err != nil {
		return err
	}
	for _, g := range groups {
		j.Ops = groupJSON(g, nil).Ops
		if j.Ops == nil {
			j.Ops = []jsonOp{}
		}
	}
	for _, wn := range analysis.Warnings(groups, "") {
		if wn.Check != analysis.CheckSingleRun {
			j.Warnings = append(j.Warnings, wn)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(j)
}
