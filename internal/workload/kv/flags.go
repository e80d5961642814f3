package kv

import (
	"github.com/fairbench/fairbench/internal/params/kvparams"
	"github.com/fairbench/fairbench/internal/workload"
)

// Flags implements workload.Flagger: memtier_benchmark 2.3's option names and
// meanings. memtier's -c is connections per thread and -t the threads, so a
// run has c × t clients (ClientsPerThread), driven by t event loops, as
// memtier's threads drive theirs.
func (Workload) Flags() []workload.Flag {
	return []workload.Flag{
		{Name: "clients", Shorthand: "c", Field: workload.FieldClients, Default: "50", ClientsPerThread: true,
			Usage: "connections per thread (memtier -c); the run has clients × threads connections"},
		{Name: "threads", Shorthand: "t", Field: workload.FieldThreads, Default: "4", Usage: "threads, each driving its clients' connections (memtier -t)"},
		{Name: "test-time", Field: workload.FieldDuration, Default: "60", Usage: "measured duration in seconds (or \"30s\", \"2m\")"},
		{Name: "rate-limiting", Field: workload.FieldRate,
			Usage: "fairbench's: total requests per second over all connections, scheduled without coordinated omission (memtier's --rate-limiting is per connection)"},
		{Name: "ratio", Param: kvparams.Ratio},
		{Name: "pipeline", Param: kvparams.Pipeline},
		{Name: "pipeline-mode", Param: kvparams.PipelineMode},
		{Name: "data-size", Shorthand: "d", Param: kvparams.DataSize},
		{Name: "data-size-range", Param: kvparams.DataSizeRange},
		{Name: "random-data", Shorthand: "R", Param: kvparams.RandomData, Switch: "true",
			Usage: "values of random bytes instead of 'x' bytes (memtier -R)"},
		{Name: "key-pattern", Param: kvparams.KeyPattern},
		{Name: "key-minimum", Param: kvparams.KeyMinimum},
		{Name: "key-maximum", Param: kvparams.KeyMaximum},
		{Name: "key-prefix", Param: kvparams.KeyPrefix},
		{Name: "key-stddev", Param: kvparams.KeyStddev},
		{Name: "key-median", Param: kvparams.KeyMedian},
		{Name: "key-zipf-exp", Param: kvparams.KeyZipfExp},
		{Name: "command", Param: kvparams.Command},
		{Name: "command-ratio", Param: kvparams.CommandRatio},
		{Name: "command-key-pattern", Param: kvparams.CommandKeyPattern},
		{Name: "distinct-client-seed", Param: kvparams.DistinctClientSeed,
			Usage: "each connection its own random seed (fairbench's default; --distinct-client-seed=false gives memtier's shared seed)"},
		{Name: "requests", Shorthand: "n", Param: kvparams.Requests, Default: "10000", DefaultUnless: "test-time",
			Usage: "requests each connection sends, then stops (memtier -n; 10000 unless --test-time is given, as memtier's; the run still ends at --test-time, 60 s by default)"},
		{Name: "json-out-file", Output: memtierJSON, Usage: "write the run to FILE as memtier's JSON (configuration, run information, ALL STATS)"},
		{Name: "print-percentiles", Print: &percentilesSpec},
		{Name: "profile", Param: kvparams.Profile},
		{Name: "prefill", Param: kvparams.Prefill},
	}
}
