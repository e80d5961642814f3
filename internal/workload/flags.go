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
	// parameter's or the field's (sysbench's --db-ps-mode=disable is
	// query_mode = simple, its --time=0 no time limit); values not in it are
	// passed on unchanged.
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
	// DefaultUnless, on a parameter flag with a Default, makes an ad-hoc
	// run that gives neither this flag (nor the parameter through --set)
	// nor the flag named here take Default instead of the parameter's own
	// default (memtier's --requests is 10 000 unless --test-time is given).
	DefaultUnless string
	// Print, when set, makes the flag an option of how the run is printed,
	// not of what runs (sysbench's --percentile, memtier's
	// --print-percentiles): its value, checked against Print as a
	// parameter's is before anything runs, reaches the kind's printers under
	// Print.Name (kinds.Printing). It is not stored with the run.
	Print *params.Spec
	// Output, when not "", makes the flag's value a file the ad-hoc run is
	// written to in the kind's run format of this name (memtier's
	// --json-out-file writes "memtier-json", kinds.Info.RunFormats).
	Output string
}

// Action is what an ad-hoc command line asks for besides its flags: the
// peer tool's command word (sysbench's prepare, run, cleanup; bin/ycsb's
// load and run).
type Action string

const (
	// ActionNone: the command's own action (run runs, load loads).
	ActionNone Action = ""
	// ActionRun runs the workload, loading its data first when missing.
	ActionRun Action = "run"
	// ActionLoad loads the data without running (fairbench load).
	ActionLoad Action = "load"
	// ActionClean drops the data fairbench's marker says it created
	// (fairbench load --clean).
	ActionClean Action = "clean"
)

// Word is a positional word of a peer tool's command line: the flags it
// stands for (sysbench's oltp_read_write is --mode=read_write) and the
// action it asks for.
type Word struct {
	Args   []string
	Action Action
	// Variant marks another spelling of a listed word (the script's file
	// name, oltp_read_write.lua): accepted, left out where the words are
	// listed.
	Variant bool
}

// CommandLine is how a workload's peer tool's command line differs from
// flags, and what its --help shows beyond them. Every field is optional.
type CommandLine struct {
	// Aliases rewrite an argument spelled as the peer tool spells it into
	// fairbench's ("-threads" → "--threads": YCSB's single-dash options;
	// "-s" → "--status=10"). Only an argument in a flag's place is
	// rewritten, never a flag's value.
	Aliases map[string]string
	// Words are the peer tool's positional words, by how they are typed.
	Words map[string]Word
	// Targets says which targets the workload runs on and how their URLs
	// are written: the --target flag's help for this workload.
	Targets string
	// Examples are two or three command lines, shown at the bottom of the
	// workload's --help.
	Examples []string
	// Tools are the program names of the peer tools whose command lines
	// this workload reads (pgbench; memtier_benchmark and redis-benchmark):
	// 'fairbench study from-commands' maps a line of one to this workload.
	Tools []string
	// Connection, when set, declares the peer tool's connection flags,
	// which build the target URL when --target is not given.
	Connection *Connection
	// Ignored are peer flags (switches) accepted with no effect, by their
	// spelling ("--hide-histogram"), each with why: said once per run.
	Ignored map[string]string
	// Settings are a peer tool's setting names taken by --set NAME=VALUE.
	Settings map[string]Setting
	// Rewrite, when set, reads the workload's peer lines before the
	// aliases and words do: the spellings no declaration above can say
	// (redis-benchmark's -t set under kv, YCSB's -P of a missing workload
	// file). It returns the rewritten arguments, or the error that names
	// the flag to type instead.
	Rewrite func(args []string) (PeerRewrite, error)
}

// commandLiner is optional: a workload that declares its CommandLine.
type commandLiner interface {
	CommandLine() CommandLine
}

// CommandLineOf returns what w declares of its command line (the zero
// CommandLine when it declares nothing).
func CommandLineOf(w Workload) CommandLine {
	if c, ok := w.(commandLiner); ok {
		return c.CommandLine()
	}
	return CommandLine{}
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

// URLPart is the part of a target URL a peer tool's connection flag gives.
type URLPart string

// The parts of a target URL a connection flag gives.
const (
	PartHost     URLPart = "host"
	PartPort     URLPart = "port"
	PartUser     URLPart = "user"
	PartPassword URLPart = "password"
	PartDatabase URLPart = "database"
)

// ConnFlag is one of a peer tool's connection flags (pgbench's -h, -p, -U;
// sysbench's --pgsql-host): a string flag whose value is Part of the
// target URL.
type ConnFlag struct {
	// Name is the long name without dashes; Shorthand the one-letter form,
	// "" for none. Shorthand "h" is help's unless a value follows it
	// (pgbench's -h HOST; see adhocline.PeerLine).
	Name, Shorthand string
	Part            URLPart
	// Scheme, when not "", limits the flag to targets of that URL scheme
	// (sysbench's --pgsql-host to postgres://).
	Scheme string
	Usage  string
}

// Connection declares how a peer tool's command line names its server, so
// that the line builds the --target URL: scheme://user[:password]@host:port/database.
type Connection struct {
	// Scheme is the URL scheme when no SchemeFlag is given (pgbench's postgres).
	Scheme string
	// SchemeFlag names a flag whose value chooses the scheme through
	// Schemes (sysbench's --db-driver=pgsql is postgres://); a value not in
	// Schemes is refused naming the ones there are.
	SchemeFlag string
	Schemes    map[string]string
	Flags      []ConnFlag
	// Positional, when not "", takes the line's one positional word that is
	// not a study file (ending in .toml) as that part (pgbench's dbname).
	Positional URLPart
	// Defaults are the parts the peer tool assumes when its flag is not
	// given, by scheme ("" for every scheme): sysbench's sbtest user.
	Defaults map[string]map[URLPart]string
	// PasswordEnv names, by scheme, the environment variable the peer tool
	// and the target's driver both read the password from (PGPASSWORD): it
	// is never written into the URL, and help says so.
	PasswordEnv map[string]string
}

// Setting is a peer tool's named setting given as --set NAME=VALUE
// (HammerDB's diset tpcc count_ware 10): the workload flag it is, or why
// there is none.
type Setting struct {
	// Flag is the workload flag the setting is, without dashes.
	Flag string
	// Unit, when not "", is appended to a bare number (HammerDB's rampup
	// and duration are minutes: "m").
	Unit string
	// Instead, when Flag is "", says what to type instead (HammerDB's
	// pg_host is part of --target).
	Instead string
}

// PeerRewrite is what a workload's own reading of a peer line gives: the
// arguments rewritten, and notes for the user (one line each), said once
// before anything runs.
type PeerRewrite struct {
	Args  []string
	Notes []string
}
