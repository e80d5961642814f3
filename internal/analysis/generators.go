package analysis

import (
	"fmt"
	"math"
	"strings"

	"github.com/fairbench/fairbench/internal/numfmt"
	"github.com/fairbench/fairbench/internal/result"
)

// maxGeneratorSpread: the load generators of one run disagree when their
// throughputs per client differ by more than this share of their mean.
const maxGeneratorSpread = 0.10

// maxClockSkewMS: a load generator whose clock is further than this from
// the results store's started (and cut its seconds) that much off the others.
const maxClockSkewMS = 5.0

// GeneratorShare is one load generator's part of a run that several measured
// together (env "load_generators", written by the coordinator).
type GeneratorShare struct {
	Index      int
	Host       string
	Node       string // the machine, when an orchestrator named it (a pod's node)
	Clients    int
	Throughput float64 // its headline rate, in the run's headline unit
	CPUPercent float64 // its CPU use over the measured phase, of the CPUs it could use
	CPUs       int
	// ClockOffsetMS is its clock against the results store's, in ms.
	ClockOffsetMS float64
}

// LoadGenerators returns the generators of a run measured by several, in
// generator order; nil for a run of one process.
func LoadGenerators(r *result.Run) []GeneratorShare {
	list := r.Env.LoadGenerators
	out := make([]GeneratorShare, 0, len(list))
	for _, m := range list {
		g := GeneratorShare{
			Index:         m.Index,
			Host:          m.Host,
			Node:          m.Node,
			Clients:       m.Clients,
			CPUs:          m.CPUs,
			ClockOffsetMS: m.ClockOffsetMS,
		}
		if m.Throughput != nil {
			g.Throughput = *m.Throughput
		}
		if m.CPUPercent != nil {
			g.CPUPercent = *m.CPUPercent
		}
		if m.Headline != nil {
			g.Throughput = *m.Headline
		}
		out = append(out, g)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// generatorWarnings flags a run whose load generators were saturated (CPU ≥
// SaturationShare of what each could use) or disagree (throughput per
// client spread beyond MaxGeneratorSpread): either way the run measured
// its clients as much as the server.
func generatorWarnings(r *result.Run, label string) []Warning {
	gens := LoadGenerators(r)
	if len(gens) < 2 {
		return nil
	}
	var ws []Warning
	var busy []string
	for _, g := range gens {
		if g.CPUPercent >= SaturationShare*100 && !inProcess(r) {
			busy = append(busy, fmt.Sprintf("generator %d (%s) %.0f %% of %d CPUs", g.Index, g.Host, g.CPUPercent, g.CPUs))
		}
	}
	if len(busy) > 0 {
		ws = append(ws, Warning{Check: checkSaturation, Runs: []int64{r.ID}, Message: fmt.Sprintf(
			"run %d (%s): load %s at or above %.0f %% CPU: %s; that generator may be the bottleneck (add generators or CPUs)",
			r.ID, label, numfmt.Plural(len(busy), "generator", "generators"), SaturationShare*100, strings.Join(busy, ", "))})
	}
	if shared := sharedNodes(gens); shared != "" {
		ws = append(ws, Warning{Check: checkGenerators, Runs: []int64{r.ID}, Message: fmt.Sprintf(
			"run %d (%s): load generators shared a node: %s; they shared its CPUs and network, so one may have limited another (spread them: more nodes, or k8s run --spread required)",
			r.ID, label, shared)})
	}
	var skewed []string
	for _, g := range gens {
		if math.Abs(g.ClockOffsetMS) > maxClockSkewMS {
			skewed = append(skewed, fmt.Sprintf("generator %d (%s) %+.1f ms", g.Index, g.Host, g.ClockOffsetMS))
		}
	}
	if len(skewed) > 0 {
		ws = append(ws, Warning{Check: checkGenerators, Runs: []int64{r.ID}, Message: fmt.Sprintf(
			"run %d (%s): load generator clocks off the results store's by more than %.0f ms: %s; fairbench corrects the start for it, but their per-second series align only to the offset's uncertainty: synchronise the clocks (chrony)",
			r.ID, label, maxClockSkewMS, strings.Join(skewed, ", "))})
	}
	lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
	var loG, hiG GeneratorShare
	for _, g := range gens {
		if g.Clients <= 0 {
			return ws
		}
		per := g.Throughput / float64(g.Clients)
		sum += per
		if per < lo {
			lo, loG = per, g
		}
		if per > hi {
			hi, hiG = per, g
		}
	}
	mean := sum / float64(len(gens))
	if mean > 0 && (hi-lo)/mean > maxGeneratorSpread {
		ws = append(ws, Warning{Check: checkGenerators, Runs: []int64{r.ID}, Message: fmt.Sprintf(
			"run %d (%s): the load generators' throughputs per client differ by %.0f %% of their mean (> %.0f %%): generator %d (%s) %.1f, generator %d (%s) %.1f: a saturated or noisy client, or an uneven share of the data",
			r.ID, label, (hi-lo)/mean*100, maxGeneratorSpread*100, loG.Index, loG.Host, lo, hiG.Index, hiG.Host, hi)})
	}
	return ws
}

// sharedNodes names the nodes that ran more than one of gens, with their
// generators ("node-a: generators 0, 2"); "" when each had its own. Only
// nodes an orchestrator named count: pods on one node have hostnames of
// their own.
func sharedNodes(gens []GeneratorShare) string {
	var order []string
	on := map[string][]string{}
	for _, g := range gens {
		if g.Node == "" {
			continue
		}
		if on[g.Node] == nil {
			order = append(order, g.Node)
		}
		on[g.Node] = append(on[g.Node], fmt.Sprint(g.Index))
	}
	var parts []string
	for _, n := range order {
		if len(on[n]) > 1 {
			parts = append(parts, fmt.Sprintf("%s: generators %s", n, strings.Join(on[n], ", ")))
		}
	}
	return strings.Join(parts, "; ")
}
