package oltp

import "github.com/fairbench/fairbench/internal/workload"

// Flags implements workload.Flagger: sysbench 1.0's option names and
// meanings (--threads is the number of clients, each on its own connection,
// as sysbench's threads are), with its defaults (10 s).
func (Workload) Flags() []workload.Flag {
	return []workload.Flag{
		{Name: "mode", Param: "mode", Usage: "the test, as sysbench's oltp_*.lua script without oltp_: read_write, read_only, point_select, ..."},
		{Name: "threads", Field: workload.FieldClients, Default: "1", Usage: "number of threads (clients, one connection each)"},
		{Name: "time", Field: workload.FieldDuration, Default: "10", Usage: "measured duration in seconds (or \"30s\", \"2m\")"},
		{Name: "report-interval", Field: workload.FieldProgress, Usage: "report intermediate statistics every N seconds (0 = none)"},
		{Name: "rate", Field: workload.FieldRate, Usage: "average transaction rate over all threads (0 = unlimited)"},
		{Name: "max-tries", Field: workload.FieldMaxTries, Default: "1",
			Usage: "fairbench's: tries per transaction on serialization failure or deadlock (retries are sysbench's ignored errors)"},
		{Name: "client-threads", Field: workload.FieldThreads,
			Usage: "fairbench's: OS threads driving the clients; with more clients, event loops multiplex them as pgbench -j does (default: this machine's CPUs; equal to --threads for sysbench's thread per client)"},
		{Name: "tables", Param: "tables"},
		{Name: "table-size", Param: "table_size"},
		{Name: "range-size", Param: "range_size"},
		{Name: "point-selects", Param: "point_selects"},
		{Name: "simple-ranges", Param: "simple_ranges"},
		{Name: "sum-ranges", Param: "sum_ranges"},
		{Name: "order-ranges", Param: "order_ranges"},
		{Name: "distinct-ranges", Param: "distinct_ranges"},
		{Name: "index-updates", Param: "index_updates"},
		{Name: "non-index-updates", Param: "non_index_updates"},
		{Name: "delete-inserts", Param: "delete_inserts"},
		{Name: "range-selects", Param: "range_selects"},
		{Name: "skip-trx", Param: "skip_trx"},
		{Name: "auto-inc", Param: "auto_inc"},
		{Name: "secondary", Param: "secondary"},
		{Name: "create-secondary", Param: "create_secondary"},
		{Name: "rand-type", Param: "rand_type"},
		{Name: "rand-spec-iter", Param: "rand_spec_iter"},
		{Name: "rand-spec-pct", Param: "rand_spec_pct"},
		{Name: "rand-spec-res", Param: "rand_spec_res"},
		{Name: "rand-pareto-h", Param: "rand_pareto_h"},
		{Name: "mysql-storage-engine", Param: "mysql_storage_engine"},
		{Name: "db-ps-mode", Param: "query_mode", Values: map[string]string{"auto": "prepared", "disable": "simple"}, Default: "auto",
			Usage: "prepared statements: auto (prepared) or disable (simple); fairbench also takes extended"},
	}
}
