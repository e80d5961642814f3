package workload

import (
	"github.com/fairbench/fairbench/internal/params"
)

// Ad-hoc flags: a workload declares the command-line flags of `fairbench run
// --target URL --workload KIND` and `fairbench load` with its peer tool's own
// names and meanings (pgbench's -c, -T, -S for tpcb; sysbench's --threads,
// --time, --table-size for oltp), so that the commands name no workload and
// no tool and a user of the peer tool types what they know.

// Field is a field of the ad-hoc study cell a flag sets, instead of a
// workload parameter.
type Field string

const (
	// FieldClients is the number of clients, one connection each (integer ≥ 1).
	FieldClients Field = "clients"
	// FieldThreads is the number of threads that drive the clients (integer;
	// 0 = one per CPU).
	FieldThreads Field = "threads"
	// FieldDuration is the measured duration ("30s", "2m" or seconds).
	FieldDuration Field = "duration"
	// FieldWarmup is the warm-up (HammerDB's ramp-up) before the measured
	// phase ("30s", "2m" or seconds); it replaces the generic --warmup.
	FieldWarmup Field = "warmup"
	// FieldProgress is the interval of progress lines in seconds (integer; 0 = none).
	FieldProgress Field = "progress"
	// FieldRate is the target rate in operations per second over all clients
	// (number; 0 = as fast as possible).
	FieldRate Field = "rate"
	// FieldLatencyLimit is, with a rate, the lateness in milliseconds past
	// which a scheduled operation is skipped (number).
	FieldLatencyLimit Field = "latency_limit"
	// FieldMaxTries is the tries per operation on a serialization failure or
	// deadlock (integer ≥ 1).
	FieldMaxTries Field = "max_tries"
)

// FieldSpec is the domain of a field's value, checked as a parameter's is
// (params.Coerce): its kind, finite, and its bounds.
func FieldSpec(f Field) params.Spec {
	s := params.Spec{Name: string(f), Kind: params.Int, Min: params.MinOf(0)}
	switch f {
	case FieldClients:
		s.Min, s.Max = params.MinOf(1), params.MaxOf(params.MaxClients)
	case FieldThreads:
		s.Max = params.MaxOf(10_000)
	case FieldDuration, FieldWarmup:
		s.Kind, s.Min = params.Duration, nil
	case FieldProgress:
		s.Max = params.MaxOf(86_400) // a day, in seconds
	case FieldRate:
		s.Kind, s.Max = params.Float, params.MaxOf(1e9) // operations per second
	case FieldLatencyLimit:
		s.Kind, s.Max = params.Float, params.MaxOf(3.6e6) // an hour, in milliseconds
	case FieldMaxTries:
		s.Min, s.Max = params.MinOf(1), params.MaxOf(1000)
	}
	return s
}

// Fields lists every Field, in the order help texts show them.
func Fields() []Field {
	return []Field{FieldClients, FieldThreads, FieldDuration, FieldWarmup, FieldProgress, FieldRate, FieldLatencyLimit, FieldMaxTries}
}

// Flag is one ad-hoc command-line flag of a workload. It sets either the
// parameter Param or, when Param is "", the cell field Field.
type Flag struct {
	// Name is the long name without dashes, spelled as the peer tool spells it.
	Name string
	// Shorthand is the one-letter form, "" for none.
	Shorthand string
	// Param is the workload parameter the flag sets.
	Param string
	// Field is the cell field the flag sets when Param is "".
	Field Field
	// Switch, when not "", makes the flag take no value: giving it sets Param
	// to Switch (pgbench's -S sets mode = select-only, -n sets vacuum = false).
	Switch string
	// Values translates the peer tool's spelling of a value into the
	// parameter's (sysbench's --db-ps-mode=disable is query_mode = simple);
	// values not in it are passed on unchanged.
	Values map[string]string
	// Usage is the help text; "" takes the parameter's own help.
	Usage string
	// Repeat makes each use of the flag add one element to the list
	// parameter Param (YCSB's -p name=value, given once per property).
	Repeat bool
	// ClientsPerThread, on a FieldClients flag, makes its value the clients
	// of each thread (memtier's -c): the run has that many times the threads.
	ClientsPerThread bool
	// Excludes names another flag of the workload that may not be given
	// with this one, and ExcludesText says why in the peer tool's words
	// (pgbench's -t and -T).
	Excludes, ExcludesText string
	// Default is the default shown in help; "" shows the parameter's default.
	// For a Field it is also the value used when the flag is not given
	// ("" leaves the command's: 1 client, 60 s, 1 try, the rest 0).
	Default string
}

// Flagger is optional: a workload that declares its ad-hoc flags. A workload
// without it gets fairbench's generic flags (--clients, --duration, ...) and
// --set key=value for its parameters.
type Flagger interface {
	Flags() []Flag
}

// FlagsOf returns the flags w declares; ok is false when it declares none.
func FlagsOf(w Workload) (flags []Flag, ok bool) {
	f, ok := w.(Flagger)
	if !ok {
		return nil, false
	}
	return f.Flags(), true
}
