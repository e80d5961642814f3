package runner

// Outages: what a run says about the time its target was not answering, and
// the thresholds past which a run is stored as failed (docs/reliability.md).

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fairbench/fairbench/internal/result"
)

// Default thresholds: a run is failed when more than this share of its
// operations failed, or when the clients completed nothing for more than this
// share of its measured seconds. Set them with the study keys max_error_ratio
// and max_dead_ratio, or run's --max-error-ratio and --max-dead-ratio.
const (
	DefaultMaxErrorRatio = 0.5
	DefaultMaxDeadRatio  = 0.1
)

// limits are the outage thresholds a run is judged by.
type limits struct {
	MaxErrorRatio float64 // failed operations / all operations
	MaxDeadRatio  float64 // dead seconds / measured seconds
}

// limits resolves the thresholds: options, else the study's, else the defaults.
func (r *Runner) limits() limits {
	l := limits{MaxErrorRatio: DefaultMaxErrorRatio, MaxDeadRatio: DefaultMaxDeadRatio}
	if v := r.st.MaxErrorRatio; v != nil {
		l.MaxErrorRatio = *v
	}
	if v := r.st.MaxDeadRatio; v != nil {
		l.MaxDeadRatio = *v
	}
	if v := r.opt.MaxErrorRatio; v != nil {
		l.MaxErrorRatio = *v
	}
	if v := r.opt.MaxDeadRatio; v != nil {
		l.MaxDeadRatio = *v
	}
	return l
}

// judge returns why a measured run must count as failed: every operation
// failed, or its failed-operation or dead-time share passed the limits; ""
// when the run stands.
func (l limits) judge(r *result.Run) string {
	s := r.Summary
	ops := s.Transactions + s.Failed
	if ops > 0 && s.Transactions == 0 {
		return fmt.Sprintf("every operation failed (%d)%s%s", s.Failed, reconnectsText(s), FirstErrorsText(s.FirstErrors))
	}
	what, dead, measured := "operations", "no operation completed", r.MeasuredPoints()
	if len(s.Queries) > 0 {
		// A query set records a failed or timed-out try as null and goes
		// on, as ClickBench does: a few nulls are results, but past the
		// limits the run measured an outage, not the engine. Its dead
		// seconds are seconds of its wall time (stallSeconds), not ticks.
		what, dead = "tries", "no try succeeded"
		measured = max(1, int(math.Round(r.Duration.Seconds())))
	}
	if ops > 0 {
		what, of := what, ops
		if s.Metric != nil && s.Metric.Field == result.FieldItems {
			// A bulk's refused documents are its failures, one each: the
			// share is of documents, as the headline counts them.
			what, of = "items", s.Failed
			for _, op := range r.Ops {
				of += op.Items
			}
		}
		if share := float64(s.Failed) / float64(of); share > l.MaxErrorRatio {
			return fmt.Sprintf("%d of %d %s failed (%.1f %% > max_error_ratio %.1f %%)%s",
				s.Failed, of, what, share*100, l.MaxErrorRatio*100, FirstErrorsText(s.FirstErrors))
		}
	}
	if n := measured; n > 0 && s.DeadSeconds > 0 {
		heldUp := 0
		if len(s.Queries) == 0 {
			heldUp = heldUpSeconds(r)
		}
		if share := float64(s.DeadSeconds-heldUp) / float64(n); share > l.MaxDeadRatio {
			var more string
			if heldUp > 0 {
				more = fmt.Sprintf(", besides %d held up by fairbench's host", heldUp)
			}
			return fmt.Sprintf("%s in %d of %d s (%s%s; %.0f %% > max_dead_ratio %.0f %%)%s%s",
				dead, s.DeadSeconds-heldUp, n, result.SpansText(s.DeadSpans), more, share*100, l.MaxDeadRatio*100,
				reconnectsText(s), FirstErrorsText(s.FirstErrors))
		}
	}
	if ops == 0 && r.SeriesLen() > 0 {
		return "no operation completed or failed during the measured phase" + reconnectsText(s) + FirstErrorsText(s.FirstErrors)
	}
	return ""
}

// heldUpSeconds are the run's dead seconds its host explains
// (result.Summary.HeldUpSeconds).
func heldUpSeconds(r *result.Run) int { return r.Summary.HeldUpSeconds(engineInProcess(r)) }

func engineInProcess(r *result.Run) bool { return r.Env.EngineInProcess() }

// OutageText is the one line a run's summary prints about an outage: its
// reconnects, dead seconds and first errors; "" when there was none.
func OutageText(r *result.Run) string {
	s := r.Summary
	if s.ReconnectAttempts == 0 && s.DeadSeconds == 0 {
		return ""
	}
	var parts []string
	if s.ReconnectAttempts > 0 {
		parts = append(parts, fmt.Sprintf("%d reconnects (%d attempts)", s.Reconnects, s.ReconnectAttempts)+reconnectErrorText(s))
	}
	if s.DeadSeconds > 0 {
		parts = append(parts, fmt.Sprintf("%d dead seconds of %d (%s)", s.DeadSeconds, r.MeasuredPoints(), result.SpansText(s.DeadSpans)))
		if n := heldUpSeconds(r); n > 0 {
			parts[len(parts)-1] += fmt.Sprintf(", %d of them without an error while fairbench itself was held up (flagged, not an outage)", n)
		}
	}
	return strings.Join(parts, ", ") + FirstErrorsText(s.FirstErrors)
}

func reconnectsText(s result.Summary) string {
	if s.ReconnectAttempts == 0 {
		return ""
	}
	return fmt.Sprintf("; %d reconnects in %d attempts", s.Reconnects, s.ReconnectAttempts) + reconnectErrorText(s)
}

func reconnectErrorText(s result.Summary) string {
	if s.ReconnectError == "" {
		return ""
	}
	return "; reconnecting failed with: " + s.ReconnectError
}

// FirstErrorsText names the first error of each class: "; first connection
// error: …".
func FirstErrorsText(m map[result.ErrorClass]string) string {
	classes := make([]string, 0, len(m))
	for c := range m {
		classes = append(classes, string(c))
	}
	sort.Strings(classes)
	var b strings.Builder
	for _, c := range classes {
		fmt.Fprintf(&b, "; first %s error: %s", c, m[result.ErrorClass(c)])
	}
	return b.String()
}
