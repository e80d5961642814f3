package result

import "time"

// EngineSample is one sample of a target's own statistics, taken through its
// driver while a run is measured (driver.ServerViewer). Names are the
// engine's own ("pg_stat_database.xact_commit", "IO:WALSync",
// "commandstats.cmdstat_get.calls"); the driver chooses them, analysis and
// report only aggregate them.
type EngineSample struct {
	At time.Time
	// Counters are cumulative counters of the server: the run shows their
	// change from the first sample to the last, and the rate per second.
	Counters map[string]float64
	// Gauges are point-in-time values (a buffer hit ratio, memory in use,
	// connected clients): the run shows their mean and maximum.
	Gauges map[string]float64
	// Waits counts the sessions active at the sample by what they were
	// doing ("CPU", "IO:WALSync", "Lock:transactionid"), sampled like
	// HammerDB's active session history: the run shows each state's share
	// of all active-session samples, and their shares over time.
	Waits map[string]int
}

// EngineMetricUnit is an optional hint a driver gives for a counter or gauge
// name, for the report's unit column ("bytes", "ms", "rows"); "" is a count.
type EngineMetricUnit map[string]string

// ServerView is the summary of a run's engine samples (EngineSample), built
// as the samples come so that its size does not grow with the run's length:
// what the server itself was doing while the run was measured.
type ServerView struct {
	// Interval is the time asked between samples; Samples how many were
	// taken and Seconds the time from the first to the last.
	Interval time.Duration `json:"interval_ns"`
	Samples  int           `json:"samples"`
	Seconds  float64       `json:"seconds"`
	Counters []ViewCounter `json:"counters,omitempty"`
	Gauges   []ViewGauge   `json:"gauges,omitempty"`
	// Active is the number of active-session samples over the run (the sum
	// of every sample's Waits); each wait's share is its count over Active.
	Active int64      `json:"active"`
	Waits  []ViewWait `json:"waits,omitempty"`
	// Buckets are the waits over time: at most MaxViewBuckets consecutive
	// spans of the run, adjacent ones merged as the run grows.
	Buckets []ViewBucket `json:"buckets,omitempty"`
	// Unavailable lists the parts of the view the driver could not read,
	// each naming the grant or setting that would enable it.
	Unavailable []string `json:"unavailable,omitempty"`
	// Error is why sampling stopped early (a sample failed), scrubbed.
	Error string `json:"error,omitempty"`
}

// MaxViewBuckets bounds ServerView.Buckets.
const MaxViewBuckets = 120

// ViewCounter is one cumulative counter's growth over the run.
type ViewCounter struct {
	Name      string  `json:"name"`
	Unit      string  `json:"unit,omitempty"`
	Delta     float64 `json:"delta"`
	PerSecond float64 `json:"per_second"`
}

// ViewGauge is one point-in-time value's mean and maximum over the samples.
type ViewGauge struct {
	Name string  `json:"name"`
	Unit string  `json:"unit,omitempty"`
	Mean float64 `json:"mean"`
	Max  float64 `json:"max"`
}

// ViewWait is one wait state's count of active-session samples.
type ViewWait struct {
	Name    string `json:"name"`
	Samples int64  `json:"samples"`
}

// ViewBucket is one span of the run (seconds from the first sample) and the
// active-session samples of each wait state in it.
type ViewBucket struct {
	From  float64          `json:"from"`
	To    float64          `json:"to"`
	Waits map[string]int64 `json:"waits,omitempty"`
}

// Share is the wait's share of the view's active-session samples, 0 to 1.
func (v *ServerView) Share(wait string) float64 {
	if v == nil || v.Active == 0 {
		return 0
	}
	for _, w := range v.Waits {
		if w.Name == wait {
			return float64(w.Samples) / float64(v.Active)
		}
	}
	return 0
}
