package tpcb

import (
	"github.com/fairbench/fairbench/internal/params/tpcbparams"
	"github.com/fairbench/fairbench/internal/workload"
)

// Flags implements workload.Flagger: pgbench's own flags and meanings.
func (Workload) Flags() []workload.Flag {
	return []workload.Flag{
		{Name: "mode", Param: tpcbparams.Mode, Usage: "pgbench's built-in script: tpcb-like, simple-update or select-only"},
		{Name: "select-only", Shorthand: "S", Param: tpcbparams.Mode, Switch: selectOnly, Usage: "same as --mode select-only"},
		{Name: "skip-some-updates", Shorthand: "N", Param: tpcbparams.Mode, Switch: simpleUpdate, Usage: "same as --mode simple-update"},
		{Name: "scale", Shorthand: "s", Param: tpcbparams.Scale, Usage: "scale factor"},
		{Name: "client", Shorthand: "c", Field: workload.FieldClients, Default: "1", Usage: "number of clients (one connection each)"},
		{Name: "jobs", Shorthand: "j", Field: workload.FieldThreads,
			Usage: "threads that drive the clients when there are more clients than threads, each multiplexing its share like pgbench -j (default: the CPUs)"},
		{Name: "time", Shorthand: "T", Field: workload.FieldDuration, Default: "60s",
			Usage: "measured duration (\"30s\", \"2m\" or seconds); without -t or -T fairbench measures 60 s, not pgbench's -t 10, whose few transactions per client give no stable number"},
		{Name: "transactions", Shorthand: "t", Param: tpcbparams.Transactions, Excludes: "time",
			ExcludesText: "specify either a number of transactions (-t) or a duration (-T), not both",
			Usage:        "transactions each client runs, then the run ends (pgbench -t; warm-up transactions count)"},
		{Name: "file", Shorthand: "f", Param: tpcbparams.Scripts, Repeat: true,
			Usage: "a pgbench script, FILE or FILE@WEIGHT (repeatable), run instead of the built-in script"},
		{Name: "builtin", Shorthand: "b", Param: tpcbparams.Builtins, Repeat: true,
			Usage: "pgbench's built-in script, NAME or NAME@WEIGHT (repeatable): tpcb-like, simple-update, select-only or a prefix; with -f, both run"},
		{Name: "report-per-command", Shorthand: "r", Param: tpcbparams.PerStatement, Switch: "true",
			Usage: "report each statement's average latency and failures (pgbench -r)"},
		{Name: "log", Shorthand: "l", Param: tpcbparams.TransactionLog, Switch: "true",
			Usage: "write each transaction to pgbench_log.<pid> in pgbench's format (pgbench -l)"},
		{Name: "log-prefix", Param: tpcbparams.LogPrefix, Usage: "prefix of the -l log file's name (pgbench --log-prefix)"},
		{Name: "progress", Shorthand: "P", Field: workload.FieldProgress, Usage: "show progress every N seconds"},
		{Name: "protocol", Shorthand: "M", Param: tpcbparams.QueryMode, Usage: "query mode: simple, extended or prepared"},
		{Name: "rate", Shorthand: "R", Field: workload.FieldRate,
			Usage: "target rate in transactions per second over all clients (latency from the scheduled start)"},
		{Name: "latency-limit", Shorthand: "L", Field: workload.FieldLatencyLimit, Usage: "with --rate, skip transactions already later than this many ms"},
		{Name: "max-tries", Field: workload.FieldMaxTries, Default: "1", Usage: "tries per transaction on serialization failure or deadlock"},
		{Name: "no-vacuum", Shorthand: "n", Param: tpcbparams.Vacuum, Switch: "false", Usage: "skip pgbench's pre-run vacuum"},
	}
}

// CommandLine implements workload.CommandLiner: pgbench's command line is
// flags only; its connection options are the --target URL.
func (Workload) CommandLine() workload.CommandLine {
	return workload.CommandLine{
		Targets: "SQL databases: postgres:// (PostgreSQL), mysql:// (MySQL and MariaDB), sqlite:FILE",
		Examples: []string{
			"fairbench run --workload tpcb --target postgres://bench@127.0.0.1/bench --scale 10 -c 8 -j 2 -T 60 -P 5",
			"fairbench run --workload tpcb --target mysql://bench@127.0.0.1/bench -S -c 16 -M prepared -T 30s",
			"fairbench run --workload tpcb --target sqlite:bench.db -c 4 -t 1000 -R 200 -L 50",
		},
	}
}
