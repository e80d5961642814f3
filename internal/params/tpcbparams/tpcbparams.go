// Package tpcbparams declares the parameters of the tpcb kind — pgbench's
// options — once, for the native tpcb workload and for the pgbench tool cell
// and importer (internal/adapter), so that a native cell and a pgbench cell
// with the same parameters are the same measurement. It imports nothing but
// params.
package tpcbparams

import "github.com/fairbench/fairbench/internal/params"

// Names of the tpcb kind's parameters, spelled here only.
const (
	Mode        = "mode"
	Scale       = "scale"
	QueryMode   = "query_mode"
	fillfactor  = "fillfactor"
	unlogged    = "unlogged"
	loadWorkers = "load_workers"
	Vacuum      = "vacuum"
	// Transactions per client (-t); 0 runs for the cell's duration (-T).
	Transactions = "transactions"
	// Scripts are custom script files (-f FILE[@WEIGHT]) run instead of the
	// built-in one.
	Scripts = "scripts"
	// Builtins are pgbench's built-in scripts by name (-b NAME[@WEIGHT]),
	// run with the custom scripts.
	Builtins = "builtins"
	// PerStatement reports each statement's average latency (-r).
	PerStatement = "per_statement"
	// TransactionLog writes pgbench's per-transaction log (-l) to files
	// named LogPrefix.<pid>.
	TransactionLog = "transaction_log"
	LogPrefix      = "log_prefix"
)

// maxTransactions bounds -t: 10^12 transactions per client is years at any rate.
const maxTransactions = 1_000_000_000_000

// Modes, pgbench's built-in scripts.
const (
	TPCBLike     = "tpcb-like"
	SimpleUpdate = "simple-update"
	SelectOnly   = "select-only"
)

// Specs are the tpcb kind's parameters with pgbench's defaults. The maxima
// keep a typo from sizing a load past any target: scale 1 000 000 is 100
// billion accounts, some 15 TB.
func Specs() []params.Spec {
	return []params.Spec{
		{Name: Mode, Kind: params.String, Default: TPCBLike, Choices: []string{TPCBLike, SimpleUpdate, SelectOnly},
			Help: "pgbench's built-in script (-b): tpcb-like, simple-update (-N) or select-only (-S)"},
		{Name: Scale, Kind: params.Int, Default: int64(1), Min: params.MinOf(1), Max: params.MaxOf(1_000_000),
			Help: "scaling factor (-s): 100 000 accounts, 10 tellers and 1 branch per unit", Data: true},
		{Name: QueryMode, Kind: params.String, Default: "simple", Choices: []string{"simple", "extended", "prepared"},
			Help: "pgbench's -M: how statements are sent"},
		{Name: fillfactor, Kind: params.Int, Default: int64(100), Min: params.MinOf(10), Max: params.MaxOf(100),
			Help: "fill factor of the accounts, tellers and branches tables (-F), PostgreSQL only", Engines: []string{"postgresql"}, Data: true},
		{Name: unlogged, Kind: params.Bool, Default: false,
			Help: "create unlogged tables (--unlogged-tables), PostgreSQL only", Engines: []string{"postgresql"}},
		{Name: loadWorkers, Kind: params.Int, Default: int64(1), Min: params.MinOf(1), Max: params.MaxOf(1024),
			Help: "connections loading pgbench_accounts in parallel; 1 loads it in one COPY … FREEZE like pgbench -i"},
		{Name: Vacuum, Kind: params.Bool, Default: true,
			Help: "before each run, vacuum branches and tellers and truncate history like pgbench (false = pgbench -n)"},
		{Name: Transactions, Kind: params.Int, Default: int64(0), Min: params.MinOf(0), Max: params.MaxOf(maxTransactions),
			Help: "transactions each client runs, then the run ends (-t); 0 runs for the duration (-T)"},
		{Name: Scripts, Kind: params.StringList,
			Help: "pgbench script files, each FILE or FILE@WEIGHT (-f), run instead of the built-in script"},
		{Name: Builtins, Kind: params.StringList,
			Help: "pgbench's built-in scripts, each NAME or NAME@WEIGHT (-b): tpcb-like, simple-update, select-only or a prefix; run with the scripts, instead of mode"},
		{Name: PerStatement, Kind: params.Bool, Default: false,
			Help: "time each statement and report their average latencies (-r)"},
		{Name: TransactionLog, Kind: params.Bool, Default: false,
			Help: "write a line per transaction to LOG_PREFIX.<pid> in pgbench's format (-l)"},
		{Name: LogPrefix, Kind: params.String, Default: "pgbench_log",
			Help: "path prefix of the per-transaction log (--log-prefix)"},
	}
}

// Options are a tpcb cell's parameters, decoded once: the native workload
// and the pgbench command builder read these fields.
type Options struct {
	Mode        string
	Scale       int64
	QueryMode   string
	Fillfactor  int64
	Unlogged    bool
	LoadWorkers int64
	Vacuum      bool

	Transactions   int64
	Scripts        []string
	Builtins       []string
	PerStatement   bool
	TransactionLog bool
	LogPrefix      string
}

// Decode reads a tpcb cell's values, validated against Specs (which bound
// each number); a missing one takes its default.
func Decode(v params.Values) Options {
	v = params.WithDefaults(Specs(), v)
	return Options{Mode: v.String(Mode), Scale: v.Int(Scale), QueryMode: v.String(QueryMode), Fillfactor: v.Int(fillfactor),
		Unlogged: v.Bool(unlogged), LoadWorkers: v.Int(loadWorkers), Vacuum: v.Bool(Vacuum),
		Transactions: v.Int(Transactions), Scripts: v.Strings(Scripts), Builtins: v.Strings(Builtins), PerStatement: v.Bool(PerStatement),
		TransactionLog: v.Bool(TransactionLog), LogPrefix: v.String(LogPrefix)}
}
