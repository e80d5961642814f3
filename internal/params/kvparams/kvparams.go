// Package kvparams declares the parameters of the kv kind — memtier_benchmark's
// options in snake case — once, for the native kv workload and for the
// memtier_benchmark and redis-benchmark tool cells (internal/adapter), so that
// a native cell and a tool cell with the same parameters are the same
// measurement. It imports nothing but params and the standard library.
package kvparams

import (
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/params"
)

// Profiles are the seed studies' named mixes; "" takes ratio (or command).
var Profiles = []string{"", "get-heavy", "set-only", "get-only", "incr-only", "rmw"}

// MaxValueSize is the largest data_size: Redis's proto-max-bulk-len, 512 MB,
// the largest value a server of the kind accepts.
const MaxValueSize = 512 << 20

// MaxKey bounds key indices (key_minimum, key_maximum, and the Gaussian
// pattern's median and deviation): keys are drawn as unsigned 64-bit
// numbers, and this leaves room to add and scale them without overflow.
const MaxKey = 1 << 62

// valueMemory is what the value size makes the load generator hold: the
// value, once, and for every client a pipeline of values on the way out
// (SETs) and one on the way back (GET replies). data_size counts when no
// data_size_range is given, the range's maximum otherwise.
func valueMemory(fromRange bool) func(v params.Values) (shared, perClient float64) {
	return func(v params.Values) (shared, perClient float64) {
		r := v.String("data_size_range")
		if (r != "") != fromRange {
			return 0, 0
		}
		size := float64(v.Int("data_size"))
		if fromRange {
			_, hi, _ := strings.Cut(r, "-")
			n, err := strconv.ParseFloat(strings.TrimSpace(hi), 64)
			if err != nil || n != n {
				return 0, 0 // New refuses it
			}
			size = n
		}
		return size, 2 * size * float64(max(v.Int("pipeline"), 1))
	}
}

// Specs are the kv kind's parameters with memtier's defaults.
func Specs() []params.Spec {
	return []params.Spec{
		{Name: "profile", Kind: params.String, Default: "", Choices: Profiles,
			Help: "a named mix instead of ratio/command: get-heavy (1:10), set-only (1:0), get-only (0:1), incr-only (INCR __key__), rmw (GET then SET of one key, one request)"},
		{Name: "ratio", Kind: params.String, Default: "1:10", Help: "SET:GET ratio (memtier --ratio): SETs and GETs in turn, in these numbers"},
		{Name: "pipeline", Kind: params.Int, Default: int64(1), Min: params.MinOf(1), Max: params.MaxOf(100_000), Help: "requests sent together on a connection (memtier --pipeline, redis-benchmark -P)"},
		{Name: "data_size", Kind: params.Int, Default: int64(32), Min: params.MinOf(1), Max: params.MaxOf(MaxValueSize), Memory: valueMemory(false), Help: "value size in bytes (memtier --data-size, redis-benchmark -d)"},
		{Name: "data_size_range", Kind: params.String, Default: "", Memory: valueMemory(true), Help: "MIN-MAX: value sizes drawn uniformly in this range instead of data_size (memtier --data-size-range)"},
		{Name: "key_pattern", Kind: params.String, Default: "R:R", Help: "SET:GET key patterns: R random, S sequential, G Gaussian, Z Zipf, P parallel (memtier --key-pattern)"},
		{Name: "key_minimum", Kind: params.Int, Default: int64(0), Min: params.MinOf(0), Max: params.MaxOf(MaxKey), Help: "lowest key index (memtier --key-minimum)"},
		{Name: "key_maximum", Kind: params.Int, Default: int64(10000000), Min: params.MinOf(1), Max: params.MaxOf(MaxKey), Help: "highest key index (memtier --key-maximum; redis-benchmark -r)"},
		{Name: "key_prefix", Kind: params.String, Default: "memtier-", Help: "prefix of every key (memtier --key-prefix); cleanup deletes only keys under it"},
		{Name: "key_stddev", Kind: params.Float, Default: 0.0, Min: params.MinOf(0), Max: params.MaxOf(MaxKey), Help: "G pattern's standard deviation (0: (max − min) / 6, memtier's default)"},
		{Name: "key_median", Kind: params.Float, Default: 0.0, Min: params.MinOf(0), Max: params.MaxOf(MaxKey), Help: "G pattern's median (0: middle of the range)"},
		{Name: "key_zipf_exp", Kind: params.Float, Default: 1.0, Min: params.MinOf(0), Max: params.MaxOf(5), Help: "Z pattern's exponent, in (0, 5) (memtier --key-zipf-exp)"},
		{Name: "command", Kind: params.StringList, Help: "commands run instead of SET/GET, with __key__ and __data__ placeholders (memtier --command, repeatable), e.g. \"INCR __key__\""},
		{Name: "command_ratio", Kind: params.StringList, Help: "one whole number per command: how many of it in turn (memtier --command-ratio; default 1 each)"},
		{Name: "command_key_pattern", Kind: params.StringList, Help: "one key pattern (R, S, G, Z or P) per command (memtier --command-key-pattern; default R)"},
		{Name: "distinct_client_seed", Kind: params.Bool, Default: true, Help: "each connection its own random seed (false: memtier's default, one key sequence for every connection)"},
		{Name: "requests", Kind: params.Int, Default: int64(0), Min: params.MinOf(0), Max: params.MaxOf(1e15),
			Help: "requests each connection sends, then stops (memtier --requests); the run ends when every connection has, or at its duration; 0: run for the duration"},
		{Name: "prefill", Kind: params.Bool, Default: false, Help: "before running, SET every key of the range once (fairbench load always does); reused while the marker key says the range is complete"},
	}
}
