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
