package result

// Thresholds of the flags (FlagStalled, FlagHostBusy): the runner flags a run
// by them and the analysis describes its checks with them, so both read them
// here.
const (
	// StallFactor: a measured phase that took more than StallFactor times
	// its planned duration (and a second beyond it) stalled.
	StallFactor = 2.0
	// BusyStealShare: the hypervisor took at least this share of the host's
	// CPU time during the measured phase.
	BusyStealShare = 0.10
	// BusyOthersCores and BusyWaitShare: other processes on fairbench's host
	// used at least BusyOthersCores cores while fairbench's threads waited
	// for a CPU at least BusyWaitShare of the time they were ready to run.
	BusyOthersCores = 0.5
	BusyWaitShare   = 0.10
)
