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

// CommandLine implements workload.CommandLiner: pgbench's command line.
// Its connection options (-h HOST -p PORT -U USER and the database name as
// the last word) build the target URL instead of --target, the password
// read from PGPASSWORD (or ~/.pgpass) as pgbench reads it: never a flag.
// pgbench's -h is its host and fairbench's -h is help: -h followed by a
// value is the host, -h alone (or before another flag) help. -i is
// pgbench's initialize: the load step (fairbench load).
func (Workload) CommandLine() workload.CommandLine {
	return workload.CommandLine{
		Tools:   []string{"pgbench"},
		Aliases: map[string]string{"-i": "initialize", "--initialize": "initialize"},
		Words:   map[string]workload.Word{"initialize": {Action: workload.ActionLoad, Variant: true}},
		Connection: &workload.Connection{
			Scheme: "postgres",
			Flags: []workload.ConnFlag{
				{Name: "host", Shorthand: "h", Part: workload.PartHost, Usage: "database server's host (pgbench -h; -h followed by a value is the host, -h alone is help)"},
				{Name: "port", Shorthand: "p", Part: workload.PartPort, Usage: "database server's port (pgbench -p)"},
				{Name: "username", Shorthand: "U", Part: workload.PartUser, Usage: "user name to connect as (pgbench -U); the password comes from PGPASSWORD or ~/.pgpass"},
				{Name: "dbname", Part: workload.PartDatabase, Usage: "database name (pgbench's last word, dbname)"},
			},
			Positional:  workload.PartDatabase,
			PasswordEnv: map[string]string{"postgres": "PGPASSWORD"},
		},
		Targets: "SQL databases: postgres:// (PostgreSQL), mysql:// (MySQL and MariaDB), sqlite:FILE",
		Examples: []string{
			"fairbench run --workload tpcb --target postgres://bench@127.0.0.1/bench --scale 10 -c 8 -j 2 -T 60 -P 5",
			"fairbench run --workload tpcb --target mysql://bench@127.0.0.1/bench -S -c 16 -M prepared -T 30s",
			"fairbench run --workload tpcb -c 10 -j 2 -T 60 -S -h 127.0.0.1 -p 5432 -U postgres bench",
		},
	}
}
