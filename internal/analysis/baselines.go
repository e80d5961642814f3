package analysis

import (
	"fmt"
	"strings"

	"github.com/fairbench/fairbench/internal/result"
)

// A study that compares two engines on two platforms each (PostgreSQL and
// MySQL on an x86 and an ARM server) has a baseline per engine: --baseline
// pg-x86,my-x86 compares every target against the baseline of its own
// engine, which is the baseline with the same URL scheme (the same driver).

// baselines resolves a --baseline spec, one target or several separated by
// commas, against the groups.
type baselines struct {
	names  []string
	scheme map[string]string // target → URL scheme of its runs
}

func newBaselines(groups []*Group, spec string) *baselines {
	b := &baselines{names: SplitBaselines(spec), scheme: map[string]string{}}
	for _, g := range groups {
		if _, ok := b.scheme[g.Target]; ok {
			continue
		}
		for _, r := range append(append([]*result.Run(nil), g.Runs...), g.IncompleteRuns...) {
			if s, _, ok := strings.Cut(r.TargetURL, ":"); ok && s != "" {
				b.scheme[g.Target] = s
				break
			}
		}
	}
	return b
}

// For names the baseline target is compared against: itself for a baseline,
// the only one where there is one, else the one of the same URL scheme ("" if
// none is).
func (b *baselines) For(target string) string {
	switch {
	case len(b.names) == 0:
		return ""
	case IsBaseline(strings.Join(b.names, ","), target):
		return target
	case len(b.names) == 1:
		return b.names[0]
	}
	for _, n := range b.names {
		if s := b.scheme[n]; s != "" && s == b.scheme[target] {
			return n
		}
	}
	return ""
}

// SplitBaselines splits a --baseline spec into target names.
func SplitBaselines(spec string) []string {
	var out []string
	for _, n := range strings.Split(spec, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// IsBaseline says whether target is one of the spec's baselines.
func IsBaseline(spec, target string) bool {
	for _, n := range SplitBaselines(spec) {
		if n == target {
			return true
		}
	}
	return false
}

// checkBaselines refuses a spec naming a target without runs, or two
// baselines of one engine, which would leave that engine's targets without
// one baseline to be compared against.
func checkBaselines(groups []*Group, spec string) error {
	b := newBaselines(groups, spec)
	if len(b.names) == 0 {
		return fmt.Errorf("baseline %q names no target; targets: %v", spec, sortedTargets(groups))
	}
	seen := map[string]string{}
	for _, n := range b.names {
		if _, ok := b.scheme[n]; !ok && !hasTarget(groups, n) {
			return fmt.Errorf("baseline %q has no runs; targets: %v", n, sortedTargets(groups))
		}
		if len(b.names) == 1 {
			continue
		}
		s := b.scheme[n]
		if other, ok := seen[s]; ok {
			return fmt.Errorf("--baseline %s: %s and %s are both %s:// targets; name one baseline per engine", spec, other, n, s)
		}
		seen[s] = n
	}
	return nil
}

func hasTarget(groups []*Group, t string) bool {
	for _, g := range groups {
		if g.Target == t {
			return true
		}
	}
	return false
}
