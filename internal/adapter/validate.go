package adapter

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/result"
)

// The domains of what a parsed run holds. The parsers refuse a number out of
// its domain where they read it (FILE:LINE); validRun checks the run they
// built once more, for values computed from several lines or read from JSON.
const (
	maxClients  = 1_000_000            // no tool here runs more connections from one host
	maxDuration = 366 * 24 * time.Hour // a benchmark run, not an uptime
)

// validRun checks every field of a parsed run against its domain.
func validRun(file string, r *result.Run) error {
	bad := func(format string, args ...any) error {
		return &ParseError{File: file, Msg: fmt.Sprintf(format, args...) + ": the output is damaged or was edited"}
	}
	if r.Clients < 0 || r.Clients > maxClients {
		return bad("%d clients is out of range (0 to %d)", r.Clients, maxClients)
	}
	if r.Duration < 0 || r.Duration > maxDuration {
		return bad("duration %v is out of range", r.Duration)
	}
	if r.Warmup < 0 || r.Warmup > maxDuration {
		return bad("warm-up %v is out of range", r.Warmup)
	}
	s := r.Summary
	for _, c := range []struct {
		name string
		v    int64
	}{{"transactions", s.Transactions}, {"failed", s.Failed}, {"retried", s.Retried}, {"retries", s.Retries},
		{"skipped", s.Skipped}, {"late starts", s.LateStarts}} {
		if c.v < 0 || float64(c.v) > maxPlausible {
			return bad("%s %d is out of range", c.name, c.v)
		}
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"throughput", s.Throughput}, {"latency mean", s.LatencyMean}, {"latency stddev", s.LatencyStddev},
		{"latency min", s.LatencyMin}, {"p50", s.P50}, {"p95", s.P95}, {"p99", s.P99}, {"max latency", s.Max},
		{"lag mean", s.LagMean}, {"lag max", s.LagMax}, {"connection time", s.ConnectTimeMean},
		{"target rate", s.TargetRate}} {
		if math.IsNaN(c.v) || c.v < 0 || c.v > maxPlausible {
			return bad("%s %v is out of range (0 to %g)", c.name, c.v, float64(maxPlausible))
		}
	}
	if s.Transactions > 0 && r.Duration == 0 && s.Throughput == 0 {
		return bad("%d transactions but neither a duration nor a throughput", s.Transactions)
	}
	for _, op := range r.Ops {
		if op.Count < 0 || op.Items < 0 || op.Bytes < 0 {
			return bad("operation %s: negative count", op.Name)
		}
		for class, n := range op.Errors {
			if n < 0 {
				return bad("operation %s: %d %s errors", op.Name, n, class)
			}
		}
	}
	for _, pt := range r.Series {
		for _, v := range []float64{pt.Rate, pt.Mean, pt.P50, pt.P95, pt.P99, pt.Max} {
			if math.IsNaN(v) || v < 0 || v > maxPlausible {
				return bad("second %d of the series: value %v is out of range", pt.Second, v)
			}
		}
		if pt.Ops < 0 || pt.Errors < 0 || pt.Second < 0 {
			return bad("second %d of the series: negative count", pt.Second)
		}
	}
	return nil
}

// cutShort refuses a text whose last line has no line break: every tool ends
// its output with one, so a file without it was cut mid-line (a disk full, a
// copy interrupted, a kill during the write).
func cutShort(file, text string) error {
	if text == "" || strings.HasSuffix(text, "\n") {
		return nil
	}
	n := strings.Count(text, "\n") + 1
	last := text[strings.LastIndex(text, "\n")+1:]
	if len(last) > 40 {
		last = last[:40] + "…"
	}
	return &ParseError{File: file, Line: n, Msg: fmt.Sprintf("the last line %q ends without a line break: the output is truncated", last)}
}
