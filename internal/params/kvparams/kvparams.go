// Package kvparams declares the parameters of the kv kind — memtier_benchmark's
// options in snake case — once, for the native kv workload and for the
// memtier_benchmark and redis-benchmark tool cells (internal/adapter), so that
// a native cell and a tool cell with the same parameters are the same
// measurement. It imports nothing but params and the standard library.
package kvparams

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/params"
)

// Names of the kv kind's parameters, spelled here only: the workload, the
// tool cells and the importers of memtier's and redis-benchmark's outputs
// use these.
const (
	Profile            = "profile"
	Ratio              = "ratio"
	Pipeline           = "pipeline"
	PipelineMode       = "pipeline_mode"
	DataSize           = "data_size"
	DataSizeRange      = "data_size_range"
	KeyPattern         = "key_pattern"
	KeyMinimum         = "key_minimum"
	KeyMaximum         = "key_maximum"
	KeyPrefix          = "key_prefix"
	KeyStddev          = "key_stddev"
	KeyMedian          = "key_median"
	KeyZipfExp         = "key_zipf_exp"
	Command            = "command"
	CommandRatio       = "command_ratio"
	CommandKeyPattern  = "command_key_pattern"
	DistinctClientSeed = "distinct_client_seed"
	Requests           = "requests"
	Prefill            = "prefill"
	RandomData         = "random_data"
)

// The pipeline modes: memtier_benchmark's window (up to pipeline requests
// outstanding on a connection, refilled after every read of replies) and
// redis-benchmark's batch (-P: pipeline requests sent together, all their
// replies awaited before the next batch).
const (
	Window = "window"
	Batch  = "batch"
)

// Profiles are the seed studies' named mixes; "" takes ratio (or command).
var Profiles = []string{"", "get-heavy", "set-only", "get-only", "incr-only", "rmw"}

// maxValueSize is the largest data_size: Redis's proto-max-bulk-len, 512 MB,
// the largest value a server of the kind accepts.
const maxValueSize = 512 << 20

// maxKey bounds key indices (key_minimum, key_maximum, and the Gaussian
// pattern's median and deviation): keys are drawn as unsigned 64-bit
// numbers, and this leaves room to add and scale them without overflow.
const maxKey = 1 << 62

// valueMemory is what the value size makes the load generator hold: the
// value, once, and for every client a pipeline of values on the way out
// (SETs) and one on the way back (GET replies). data_size counts when no
// data_size_range is given, the range's maximum otherwise.
func valueMemory(fromRange bool) func(v params.Values) (shared, perClient float64) {
	return func(v params.Values) (shared, perClient float64) {
		r := v.String(DataSizeRange)
		if (r != "") != fromRange {
			return 0, 0
		}
		size := float64(v.Int(DataSize))
		if fromRange {
			_, hi, _ := strings.Cut(r, "-")
			n, err := strconv.ParseFloat(strings.TrimSpace(hi), 64)
			if err != nil || n != n {
				return 0, 0 // New refuses it
			}
			size = n
		}
		shared = size
		if v.Bool(RandomData) {
			shared = 2 * size // the random values' buffer is twice the largest
		}
		return shared, 2 * size * float64(v.Int(Pipeline))
	}
}

// Specs are the kv kind's parameters with memtier's defaults.
func Specs() []params.Spec {
	return []params.Spec{
		{Name: Profile, Kind: params.String, Default: "", Choices: Profiles,
			Help: "a named mix instead of ratio/command: get-heavy (1:10), set-only (1:0), get-only (0:1), incr-only (INCR __key__), rmw (GET then SET of one key, one request)"},
		{Name: Ratio, Kind: params.String, Default: "1:10", Help: "SET:GET ratio (memtier --ratio): SETs and GETs in turn, in these numbers"},
		{Name: Pipeline, Kind: params.Int, Default: int64(1), Min: params.MinOf(1), Max: params.MaxOf(100_000), Help: "requests outstanding on a connection (memtier --pipeline; in batch mode, redis-benchmark -P)"},
		{Name: PipelineMode, Kind: params.String, Default: Window, Choices: []string{Window, Batch},
			Help: "window: up to pipeline requests outstanding, refilled after every read of replies (memtier_benchmark's); batch: pipeline requests sent together, then all their replies awaited (redis-benchmark -P)"},
		{Name: DataSize, Kind: params.Int, Default: int64(32), Min: params.MinOf(1), Max: params.MaxOf(maxValueSize), Memory: valueMemory(false), Help: "value size in bytes (memtier --data-size, redis-benchmark -d)"},
		{Name: DataSizeRange, Kind: params.String, Default: "", Memory: valueMemory(true), Help: "MIN-MAX: value sizes drawn uniformly in this range instead of data_size (memtier --data-size-range)"},
		{Name: KeyPattern, Kind: params.String, Default: "R:R", Help: "SET:GET key patterns: R random, S sequential, G Gaussian, Z Zipf, P parallel (memtier --key-pattern)"},
		{Name: KeyMinimum, Kind: params.Int, Default: int64(0), Min: params.MinOf(0), Max: params.MaxOf(maxKey), Help: "lowest key index (memtier --key-minimum)"},
		{Name: KeyMaximum, Kind: params.Int, Default: int64(10000000), Min: params.MinOf(1), Max: params.MaxOf(maxKey), Help: "highest key index (memtier --key-maximum; redis-benchmark -r)"},
		{Name: KeyPrefix, Kind: params.String, Default: "memtier-", Help: "prefix of every key (memtier --key-prefix); cleanup deletes only keys under it"},
		{Name: KeyStddev, Kind: params.Float, Default: 0.0, Min: params.MinOf(0), Max: params.MaxOf(maxKey), Help: "G pattern's standard deviation (0: (max − min) / 6, memtier's default)"},
		{Name: KeyMedian, Kind: params.Float, Default: 0.0, Min: params.MinOf(0), Max: params.MaxOf(maxKey), Help: "G pattern's median (0: middle of the range)"},
		{Name: KeyZipfExp, Kind: params.Float, Default: 1.0, Min: params.MinOf(0), Max: params.MaxOf(5), Help: "Z pattern's exponent, in (0, 5) (memtier --key-zipf-exp)"},
		{Name: Command, Kind: params.StringList, Help: "commands run instead of SET/GET, with __key__ and __data__ placeholders (memtier --command, repeatable), e.g. \"INCR __key__\""},
		{Name: CommandRatio, Kind: params.StringList, Help: "one whole number per command: how many of it in turn (memtier --command-ratio; default 1 each)"},
		{Name: CommandKeyPattern, Kind: params.StringList, Help: "one key pattern (R, S, G, Z or P) per command (memtier --command-key-pattern; default R)"},
		{Name: DistinctClientSeed, Kind: params.Bool, Default: true, Help: "each connection its own random seed (false: memtier's default, one key sequence for every connection)"},
		{Name: Requests, Kind: params.Int, Default: int64(0), Min: params.MinOf(0), Max: params.MaxOf(1e15),
			Help: "requests each connection sends, then stops (memtier --requests); the run ends when every connection has, or at its duration; 0: run for the duration"},
		{Name: Prefill, Kind: params.Bool, Default: false, Help: "before running, SET every key of the range once (fairbench load always does); reused while the marker key says the range is complete"},
		{Name: RandomData, Kind: params.Bool, Default: false, Help: "values of random bytes instead of memtier's default 'x' bytes (memtier --random-data, -R): a compressing or deduplicating store then cannot shrink them"},
	}
}

// Options are a kv cell's parameters, decoded once from its values by
// Decode: the native workload and the tool cells' command builders read
// these fields, not the values by name.
type Options struct {
	Profile  string
	Ratio    string
	Pipeline int64
	// PipelineMode is Window or Batch.
	PipelineMode string
	DataSize     int64
	// DataSizeMin and DataSizeMax are data_size_range's bounds, both
	// DataSize without a range.
	DataSizeMin, DataSizeMax int64
	// DataSizeRange is the range as given ("32-1024"), "" without one.
	DataSizeRange          string
	KeyPattern             string
	KeyMinimum, KeyMaximum int64
	KeyPrefix              string
	KeyStddev, KeyMedian   float64
	KeyZipfExp             float64
	// Commands replace the SET/GET mix (memtier --command); CommandRatios
	// and CommandKeyPatterns are empty or one per command.
	Commands, CommandRatios, CommandKeyPatterns []string
	DistinctClientSeed                          bool
	Requests                                    int64
	Prefill                                     bool
	RandomData                                  bool
}

// Decode reads a kv cell's values (validated against Specs, which bound each
// number; a missing one takes its default) and checks what no single
// parameter's spec can: the parameters that go together.
func Decode(v params.Values) (Options, error) {
	v = params.WithDefaults(Specs(), v)
	o := Options{
		Profile: v.String(Profile), Ratio: v.String(Ratio), Pipeline: v.Int(Pipeline),
		PipelineMode: v.String(PipelineMode), DataSize: v.Int(DataSize), DataSizeRange: v.String(DataSizeRange),
		KeyPattern: v.String(KeyPattern), KeyMinimum: v.Int(KeyMinimum), KeyMaximum: v.Int(KeyMaximum),
		KeyPrefix: v.String(KeyPrefix), KeyStddev: v.Float(KeyStddev), KeyMedian: v.Float(KeyMedian),
		KeyZipfExp: v.Float(KeyZipfExp), Commands: v.Strings(Command), CommandRatios: v.Strings(CommandRatio),
		CommandKeyPatterns: v.Strings(CommandKeyPattern), DistinctClientSeed: v.Bool(DistinctClientSeed),
		Requests: v.Int(Requests), Prefill: v.Bool(Prefill), RandomData: v.Bool(RandomData),
	}
	o.DataSizeMin, o.DataSizeMax = o.DataSize, o.DataSize
	if r := o.DataSizeRange; r != "" {
		a, b, ok := strings.Cut(r, "-")
		x, err1 := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
		y, err2 := strconv.ParseInt(strings.TrimSpace(b), 10, 64)
		if !ok || err1 != nil || err2 != nil || x < 1 || y < x || y > maxValueSize {
			return o, fmt.Errorf("%s %q: write MIN-MAX in bytes, 1 ≤ MIN ≤ MAX ≤ %d (memtier --data-size-range)", DataSizeRange, r, maxValueSize)
		}
		o.DataSizeMin, o.DataSizeMax = x, y
	}
	if o.KeyMaximum < o.KeyMinimum {
		return o, fmt.Errorf("%s %d is below %s %d", KeyMaximum, o.KeyMaximum, KeyMinimum, o.KeyMinimum)
	}
	if len(o.Commands) > 0 && o.Profile != "" {
		return o, fmt.Errorf("%s %q and %s both set: give one of them", Profile, o.Profile, Command)
	}
	if len(o.Commands) == 0 && len(o.CommandRatios)+len(o.CommandKeyPatterns) > 0 {
		return o, fmt.Errorf("%s and %s apply to %s, which is not set", CommandRatio, CommandKeyPattern, Command)
	}
	for _, l := range []struct {
		name string
		v    []string
	}{{CommandRatio, o.CommandRatios}, {CommandKeyPattern, o.CommandKeyPatterns}} {
		if len(l.v) > 0 && len(l.v) != len(o.Commands) {
			return o, fmt.Errorf("%s has %d entries for %d commands: give one per command, in the same order", l.name, len(l.v), len(o.Commands))
		}
	}
	return o, nil
}
