// Package adhocline reads the ad-hoc command line of `fairbench run
// --target URL --workload KIND …` (and of load and queries, which take the
// same workload flags) into the one cell it describes: Define puts the
// workload's flags (workload.Flagger, named as its peer tool names them) on
// a flag set with the peer tool's connection flags (pgbench's -h -p -U),
// PeerLine first rewrites the peer tool's own spellings (YCSB's -threads,
// sysbench's `oltp_read_write run`, pgbench's dbname), and after parsing
// Flags.Target builds the target URL from the connection flags and
// Flags.Cell returns the one-cell study and how its run is shown, or the
// error that names the flag at fault. Parse does all of it for a line read
// without running it.
//
// It knows no command framework and no workload kind: the commands bind
// their own flags (--target, --workload, --warmup, --set) and pass their
// values in a Line; what a workload's flags mean is the workload's
// declaration. The runner does not import it: it takes the study.
package adhocline

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/workload"
)

// Flags are a workload's ad-hoc flags as Define put them on one flag set;
// after the set is parsed, Cell and Params read them back from it.
type Flags struct {
	fs      *pflag.FlagSet
	defined []definedFlag
	conn    *connection // the peer tool's connection flags, nil for none
}

type definedFlag struct {
	workload.Flag
	value *TextValue
	spec  params.Spec // for a parameter flag
}

// TextValue is a flag value that keeps its text: it is checked against its
// parameter or field after parsing, so that errors name the flag. Its type
// is what help shows ("int", "duration").
type TextValue struct {
	s      string
	typ    string
	repeat bool     // each Set adds to all
	all    []string // the values of a repeated flag, in order
}

// NewTextValue is a TextValue that help shows as a parameter of kind k.
func NewTextValue(k params.Kind) *TextValue { return &TextValue{typ: typeName(k)} }

func (v *TextValue) String() string { return v.s }

// Set keeps s; a repeated flag's value also collects every use.
func (v *TextValue) Set(s string) error {
	v.s = s
	if v.repeat {
		v.all = append(v.all, s)
	}
	return nil
}

// Type is the value's type as help shows it.
func (v *TextValue) Type() string { return v.typ }

// genericFlags are the flags of a workload that declares none: the cell
// fields under fairbench's own names; its parameters go through --set.
var genericFlags = []workload.Flag{
	{Name: "clients", Field: workload.FieldClients, Default: "1", Usage: "number of clients (one connection each)"},
	{Name: "threads", Field: workload.FieldThreads, Usage: "threads that drive the clients (default: the CPUs)"},
	{Name: "duration", Field: workload.FieldDuration, Default: "60s", Usage: "measured duration (\"30s\", \"2m\" or seconds)"},
	{Name: "progress", Field: workload.FieldProgress, Usage: "show progress every N seconds"},
	{Name: "rate", Field: workload.FieldRate, Usage: "target rate in operations per second over all clients"},
	{Name: "latency-limit", Field: workload.FieldLatencyLimit, Usage: "with --rate, skip operations already later than this many ms"},
	{Name: "max-tries", Field: workload.FieldMaxTries, Default: "1", Usage: "tries per operation on serialization failure or deadlock"},
}

// fieldDefaults are the cell fields' values when no flag sets them.
var fieldDefaults = map[workload.Field]string{
	workload.FieldClients: "1", workload.FieldDuration: "60s", workload.FieldMaxTries: "1",
}

func fieldType(f workload.Field) string {
	switch f {
	case workload.FieldRate, workload.FieldLatencyLimit:
		return "float"
	case workload.FieldDuration, workload.FieldWarmup:
		return "duration"
	}
	return "int"
}

// typeName is how help names a value of parameter kind k.
func typeName(k params.Kind) string {
	switch k {
	case params.Int:
		return "int"
	case params.Float:
		return "float"
	case params.Bool:
		return "bool"
	case params.Duration:
		return "duration"
	}
	return "string"
}

// Define defines on fs the flags of workload kind: its declared flags, or
// the generic ones. withFields false leaves out the flags that set cell
// fields (load runs nothing). On an error, the flags defined before it stay
// on fs and in the Flags returned.
func Define(fs *pflag.FlagSet, kind string, withFields bool) (*Flags, error) {
	f := &Flags{fs: fs}
	w, err := workload.Get(kind)
	if err != nil {
		return f, err
	}
	flags, ok := workload.FlagsOf(w)
	if !ok {
		flags = genericFlags
	}
	specs := w.Params()
	for _, fl := range flags {
		if fl.Param == "" && !withFields {
			continue
		}
		d, def, err := defineOne(kind, fl, specs)
		if err != nil {
			return f, err
		}
		pf := fs.VarPF(d.value, fl.Name, fl.Shorthand, d.usage)
		pf.DefValue = def
		if d.value.typ == "bool" {
			pf.NoOptDefVal = "true"
			if pf.DefValue == "" {
				pf.DefValue = "false"
			}
		}
		f.defined = append(f.defined, d.definedFlag)
	}
	f.conn = defineConnection(fs, workload.CommandLineOf(w).Connection)
	return f, nil
}

// flagDefinition is a flag ready for a flag set: its value, help text and
// the default help shows.
type flagDefinition struct {
	definedFlag
	usage string
}

// defineOne works out flag fl of workload kind: its value's type, help and
// shown default, from its parameter (specs), printing option or field.
func defineOne(kind string, fl workload.Flag, specs []params.Spec) (flagDefinition, string, error) {
	d := flagDefinition{definedFlag: definedFlag{Flag: fl}, usage: fl.Usage}
	typ, def := fieldType(fl.Field), fl.Default
	if fl.Param != "" {
		spec, ok := params.Find(specs, fl.Param)
		if !ok {
			return d, "", fmt.Errorf("workload %s: flag --%s sets %q, which is not one of its parameters", kind, fl.Name, fl.Param)
		}
		d.spec = spec
		typ = typeName(spec.Kind)
		if d.usage == "" {
			d.usage = spec.Help
		}
		if def == "" && fl.Switch == "" {
			def = params.Format(spec.Default)
		}
	}
	if fl.Print != nil {
		typ = typeName(fl.Print.Kind)
		if d.usage == "" {
			d.usage = fl.Print.Help
		}
		if def == "" {
			def = params.Format(fl.Print.Default)
		}
	}
	if fl.Output != "" {
		typ = "string"
	}
	if fl.Switch != "" {
		typ, def = "bool", ""
	}
	d.value = &TextValue{typ: typ, repeat: fl.Repeat}
	return d, def, nil
}

// flagName is how errors name a flag: "-c/--client" or "--tables".
func flagName(f workload.Flag) string {
	if f.Shorthand != "" {
		return "-" + f.Shorthand + "/--" + f.Name
	}
	return "--" + f.Name
}

// KindFlags returns the flags workload kind declares, or the generic ones
// when it declares none; ok is false for a kind that is not registered.
func KindFlags(kind string) (flags []workload.Flag, ok bool) {
	w, err := workload.Get(kind)
	if err != nil {
		return nil, false
	}
	if flags, ok := workload.FlagsOf(w); ok {
		return flags, true
	}
	return genericFlags, true
}
