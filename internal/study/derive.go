package study

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/fairbench/fairbench/internal/escape"
	"github.com/fairbench/fairbench/internal/params"
)

// Derivation is how a stored study is run again elsewhere (`fairbench
// reproduce`): the same file with the targets' URLs replaced, and only the
// changes listed here. Everything else — parameters, seed, order, clients,
// durations — stays as published.
type Derivation struct {
	Name string // the derived study's name
	// URLs maps a target's name to the URL it runs against now; a target
	// not in it is left out.
	URLs map[string]string
	// Workloads keeps only the workloads of these names; nil keeps all.
	Workloads []string
	// Repetitions replaces the study's repetitions (a fixed number, also
	// for repetitions = "auto"); 0 keeps them.
	Repetitions int
	// Shorter scales every warm-up and measured duration by this factor,
	// in (0, 1], down to the floors of ShorterTime; 0 and 1 keep them.
	Shorter float64
	// Header is put first in the derived file as comment lines (where it
	// came from); control characters are escaped.
	Header []string
}

// The floors --shorter keeps: a measured phase of a few seconds still has
// a per-second series to check for drift and outages, and a warm-up that
// existed still warms the caches a little.
const (
	shorterMinDuration = 5 * time.Second
	shorterMinWarmup   = time.Second
)

// ShorterTime is d scaled by f, but never below floor, and never longer
// than d itself (a phase already shorter than its floor stays as it is).
func ShorterTime(d time.Duration, f float64, floor time.Duration) time.Duration {
	s := time.Duration(float64(d) * f).Round(time.Millisecond)
	return min(d, max(s, floor))
}

// Derive rewrites the study file src (as stored with its runs) by d and
// parses the result: the derived study, with its own hash and source, and
// what was changed, one sentence each, for the runs' deviations. Only
// changes to how the cells measure are returned; left-out targets and
// workloads are in notes.
func Derive(file string, src []byte, cat Catalog, d Derivation) (st *Study, changes, notes []string, err error) {
	var doc map[string]any
	if err := toml.Unmarshal(src, &doc); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: the stored study does not parse: %v", file, err)
	}
	meta, _ := doc["study"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		doc["study"] = meta
	}
	if d.Name != "" {
		meta["name"] = d.Name
	}
	kept := map[string]bool{}
	var targets []any
	for _, t := range tableList(doc["target"]) {
		name, _ := t["name"].(string)
		url, ok := d.URLs[name]
		if !ok {
			notes = append(notes, fmt.Sprintf("target %s is not mapped (--map %s=URL): left out", name, name))
			continue
		}
		t["url"] = url
		// The published server's node_exporter is not this one's.
		if _, had := t["node_exporter"]; had {
			delete(t, "node_exporter")
			notes = append(notes, fmt.Sprintf("target %s: the published node_exporter is left out (it is the published server's)", name))
		}
		kept[name] = true
		targets = append(targets, t)
	}
	if len(targets) == 0 {
		return nil, nil, notes, errors.New("no target is mapped: give --map NAME=URL for at least one")
	}
	doc["target"] = targets
	var workloads []any
	var left []string
	for i, w := range tableList(doc["workload"]) {
		name := workloadName(w, i)
		if d.Workloads != nil && !slices.Contains(d.Workloads, name) {
			left = append(left, name)
			continue
		}
		if ts, ok := w["targets"].([]any); ok {
			var keep []any
			for _, t := range ts {
				if s, _ := t.(string); kept[s] {
					keep = append(keep, t)
				}
			}
			if len(keep) == 0 {
				notes = append(notes, fmt.Sprintf("workload %s runs only on targets left out: left out", name))
				continue
			}
			w["targets"] = keep
		}
		if d.Shorter > 0 && d.Shorter < 1 {
			changes = append(changes, shorten(w, "workload "+name+"'s ", d.Shorter)...)
		}
		workloads = append(workloads, w)
	}
	if len(left) > 0 {
		changes = append(changes, fmt.Sprintf("only workload %s ran (--only): %s left out", strings.Join(d.Workloads, ", "), strings.Join(left, ", ")))
	}
	if len(workloads) == 0 {
		return nil, nil, notes, errors.New("no workload is left to run")
	}
	doc["workload"] = workloads
	if d.Shorter > 0 && d.Shorter < 1 {
		// The study's own warm-up and duration, defaults included.
		for _, k := range []string{"warmup", "duration"} {
			if _, ok := meta[k]; !ok {
				meta[k] = map[string]time.Duration{"warmup": defaultWarmup, "duration": defaultDuration}[k].String()
			}
		}
		changes = append(slices.Clip(shorten(meta, "", d.Shorter)), changes...)
	}
	if d.Repetitions > 0 {
		was := meta["repetitions"]
		if was == nil {
			was = int64(1)
		}
		if fmt.Sprint(was) != fmt.Sprint(d.Repetitions) {
			changes = append(changes, fmt.Sprintf("%d repetitions instead of the published %v (--repetitions)", d.Repetitions, was))
		}
		meta["repetitions"] = int64(d.Repetitions)
		delete(meta, "max_repetitions")
		delete(meta, "interval")
	}
	body, err := toml.Marshal(doc)
	if err != nil {
		return nil, nil, notes, fmt.Errorf("%s: rewriting the study: %v", file, err)
	}
	var head strings.Builder
	for _, l := range d.Header {
		head.WriteString("# " + escape.Terminal(l) + "\n")
	}
	st, err = Parse(file, append([]byte(head.String()), body...), cat)
	if err != nil {
		return nil, nil, notes, err
	}
	return st, changes, notes, nil
}

// shorten scales the warm-up and duration keys of table t by f (see
// ShorterTime) and says what changed; what of names the table.
func shorten(t map[string]any, of string, f float64) []string {
	var out []string
	for _, k := range []string{"warmup", "duration"} {
		x, ok := t[k]
		if !ok {
			continue
		}
		v, err := params.Coerce(params.Spec{Name: k, Kind: params.Duration}, x)
		if err != nil {
			continue // Parse reports it
		}
		was := v.(time.Duration)
		floor := shorterMinDuration
		what := "measured duration"
		if k == "warmup" {
			floor, what = shorterMinWarmup, "warm-up"
		}
		now := ShorterTime(was, f, floor)
		t[k] = now.String()
		switch {
		case now == was && was > 0:
			out = append(out, fmt.Sprintf("%s%s %s as published (--shorter %g shortens no %s below %s)", of, what, was, f, what, floor))
		case now != was:
			out = append(out, fmt.Sprintf("%s%s %s instead of the published %s (--shorter %g)", of, what, now, was, f))
		}
	}
	return out
}

// tableList is an array of tables as go-toml decodes it.
func tableList(v any) []map[string]any {
	var out []map[string]any
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
	case []map[string]any:
		out = x
	}
	return out
}

// workloadName is a workload table's name as the parser gives it: its
// name key, else its kind (Plan names unnamed workloads so).
func workloadName(w map[string]any, i int) string {
	if n, ok := w["name"].(string); ok && n != "" {
		return n
	}
	if k, ok := w["kind"].(string); ok && k != "" {
		return k
	}
	return fmt.Sprintf("workload #%d", i+1)
}
