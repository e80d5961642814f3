package runner

// Flags: what a noisy host does to a run that stands. A busy or frozen host
// slows or stops fairbench itself without an error, where an outage of the
// target shows as errors and lost connections: such a run is stored as it is,
// flagged with the numbers behind the doubt (docs/reliability.md).

import (
	"fmt"
	"time"

	"github.com/fairbench/fairbench/internal/result"
)

// stallSlack: a measured phase stalled only when it also took stallSlack
// beyond its planned duration (stopping the clients may take a second of its
// own); the other thresholds are result's (result.StallFactor …).
const stallSlack = time.Second

// flags are the reasons to doubt run, a run that stands, whose measured phase
// was planned to last planned.
func flags(r *result.Run, planned time.Duration) []result.Flag {
	s := r.Summary
	var flags []result.Flag
	add := func(kind, format string, args ...any) {
		flags = append(flags, result.Flag{Kind: kind, Reason: fmt.Sprintf(format, args...)})
	}
	if planned > 0 && r.Duration > time.Duration(result.StallFactor*float64(planned)) && r.Duration-planned > stallSlack {
		add(result.FlagStalled, "the measured phase took %.1f s of a planned %s (%.0f×): fairbench, its host or an operation froze",
			r.Duration.Seconds(), planned, r.Duration.Seconds()/planned.Seconds())
	}
	if maxLat := time.Duration(s.Max * float64(time.Microsecond)); planned > 0 && maxLat > planned {
		add(result.FlagStalled, "an operation took %.1f s, longer than the %s measured phase", maxLat.Seconds(), planned)
	}
	n := r.MeasuredPoints()
	missed := r.Spilled.Missed // the spilled points are all measured ones
	for _, p := range r.Series[:max(n-r.Spilled.Points, 0)] {
		if p.Missed {
			missed++
		}
	}
	heldUp := heldUpSeconds(r)
	switch {
	case s.StarvedSeconds > 0 && heldUp > 0:
		add(result.FlagHostBusy, "no operation completed and none failed in %d of %d s (%s) while fairbench itself was held up (a second it did not read, or its threads waiting ≥ %.2f s for a CPU)",
			s.StarvedSeconds, n, result.SpansText(s.DeadSpans), result.StarvedCPUWait)
	case heldUp > 0:
		add(result.FlagStalled, "no operation completed and none failed in %d of %d s (%s): the engine runs inside fairbench's process, so fairbench and its engine stalled together",
			heldUp, n, result.SpansText(s.DeadSpans))
	}
	if missed > 0 && s.StarvedSeconds == 0 {
		add(result.FlagHostBusy, "fairbench did not read %d of its %d seconds in time: it was not running", missed, n)
	}
	host := r.Env.Host
	if host.StealPct != nil && *host.StealPct >= result.BusyStealShare*100 {
		add(result.FlagHostBusy, "the hypervisor took %.0f %% of the host's CPU time (steal)", *host.StealPct)
	}
	// Beside a server on the same host, the other processes include the
	// server, which competes with its clients by design (the same-host
	// warning says so): only an engine in fairbench's process or a server
	// elsewhere leaves the other processes to be a load of their own.
	if host.OthersCPU != nil && host.ClientCPUWait != nil && (engineInProcess(r) || !r.Env.ClientServerSameHost()) && r.Duration > 0 {
		others, wait := *host.OthersCPU, *host.ClientCPUWait
		used := s.ClientCPU / r.Duration.Seconds()
		if share := wait / (wait + used); others >= result.BusyOthersCores && share >= result.BusyWaitShare {
			add(result.FlagHostBusy, "other processes used %.1f cores of the host while fairbench's threads waited for a CPU %.0f %% of the time they were ready to run",
				others, share*100)
		}
	}
	return flags
}
