package oltp

import (
	"github.com/fairbench/fairbench/internal/params/oltpparams"
	"github.com/fairbench/fairbench/internal/workload"
)

// noTimeLimit is what sysbench's --time=0 (no time limit) runs for: a day,
// so that a run with --events ends at its last event, and one without still
// ends.
const noTimeLimit = "24h"

// Flags implements workload.Flagger: sysbench 1.0's option names and
// meanings (--threads is the number of clients, each on its own connection,
// as sysbench's threads are), with its defaults (10 s).
func (Workload) Flags() []workload.Flag {
	return []workload.Flag{
		{Name: "mode", Param: oltpparams.Mode, Usage: "the test, as sysbench's oltp_*.lua script without oltp_: read_write, read_only, point_select, ..."},
		{Name: "threads", Field: workload.FieldClients, Default: "1", Usage: "number of threads (clients, one connection each)"},
		{Name: "time", Field: workload.FieldDuration, Default: "10", Values: map[string]string{"0": noTimeLimit},
			Usage: "measured duration in seconds (or \"30s\", \"2m\"); 0 is sysbench's no limit, which fairbench caps at 24 h (with --events, the run ends at the last event)"},
		{Name: "warmup-time", Field: workload.FieldWarmup, Usage: "warm-up in seconds before the measured time, excluded from every number (sysbench --warmup-time)"},
		{Name: "events", Param: oltpparams.Events},
		{Name: "percentile", Print: &percentileSpec},
		{Name: "histogram", Print: &histogramSpec},
		{Name: "report-interval", Field: workload.FieldProgress, Usage: "report intermediate statistics every N seconds (0 = none)"},
		{Name: "rate", Field: workload.FieldRate, Usage: "average transaction rate over all threads (0 = unlimited)"},
		{Name: "max-tries", Field: workload.FieldMaxTries, Default: "1",
			Usage: "fairbench's: tries per transaction on serialization failure or deadlock (retries are sysbench's ignored errors)"},
		{Name: "client-threads", Field: workload.FieldThreads,
			Usage: "fairbench's: OS threads driving the clients; with more clients, event loops multiplex them as pgbench -j does (default: this machine's CPUs; equal to --threads for sysbench's thread per client)"},
		{Name: "tables", Param: oltpparams.Tables},
		{Name: "table-size", Param: oltpparams.TableSize},
		{Name: "range-size", Param: oltpparams.RangeSize},
		{Name: "point-selects", Param: oltpparams.PointSelects},
		{Name: "simple-ranges", Param: oltpparams.SimpleRanges},
		{Name: "sum-ranges", Param: oltpparams.SumRanges},
		{Name: "order-ranges", Param: oltpparams.OrderRanges},
		{Name: "distinct-ranges", Param: oltpparams.DistinctRanges},
		{Name: "index-updates", Param: oltpparams.IndexUpdates},
		{Name: "non-index-updates", Param: oltpparams.NonIndexUpdates},
		{Name: "delete-inserts", Param: oltpparams.DeleteInserts},
		{Name: "range-selects", Param: oltpparams.RangeSelects},
		{Name: "skip-trx", Param: oltpparams.SkipTrx},
		{Name: "auto-inc", Param: oltpparams.AutoInc},
		{Name: "secondary", Param: oltpparams.Secondary},
		{Name: "create-secondary", Param: oltpparams.CreateSecondary},
		{Name: "rand-type", Param: oltpparams.RandType},
		{Name: "rand-spec-iter", Param: oltpparams.RandSpecIter},
		{Name: "rand-spec-pct", Param: oltpparams.RandSpecPct},
		{Name: "rand-spec-res", Param: oltpparams.RandSpecRes},
		{Name: "rand-pareto-h", Param: oltpparams.RandParetoH},
		{Name: "mysql-storage-engine", Param: oltpparams.MySQLStorageEngine},
		{Name: "db-ps-mode", Param: oltpparams.QueryMode, Values: map[string]string{"auto": "prepared", "disable": "simple"}, Default: "auto",
			Usage: "prepared statements: auto (prepared) or disable (simple); fairbench also takes extended"},
	}
}
