package kv

import "github.com/fairbench/fairbench/internal/workload"

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
		{Name: "ratio", Param: "ratio"},
		{Name: "pipeline", Param: "pipeline"},
		{Name: "data-size", Shorthand: "d", Param: "data_size"},
		{Name: "data-size-range", Shorthand: "R", Param: "data_size_range"},
		{Name: "key-pattern", Param: "key_pattern"},
		{Name: "key-minimum", Param: "key_minimum"},
		{Name: "key-maximum", Param: "key_maximum"},
		{Name: "key-prefix", Param: "key_prefix"},
		{Name: "key-stddev", Param: "key_stddev"},
		{Name: "key-median", Param: "key_median"},
		{Name: "key-zipf-exp", Param: "key_zipf_exp"},
		{Name: "command", Param: "command"},
		{Name: "command-ratio", Param: "command_ratio"},
		{Name: "command-key-pattern", Param: "command_key_pattern"},
		{Name: "distinct-client-seed", Param: "distinct_client_seed",
			Usage: "each connection its own random seed (fairbench's default; --distinct-client-seed=false gives memtier's shared seed)"},
		{Name: "requests", Shorthand: "n", Param: "requests"},
		{Name: "profile", Param: "profile"},
		{Name: "prefill", Param: "prefill"},
	}
}
