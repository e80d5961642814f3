package adhocline

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// StudyName is the study name of the runs an ad-hoc command line makes.
const StudyName = "ad hoc"

// Line is what the command's own flags say: the target's URL, the workload
// kind, the generic warm-up (--warmup, and whether it was given: a
// workload's own warm-up flag, tpcc's --rampup, yields to it only then) and
// the parameters given as key=value (--set).
type Line struct {
	Target, Workload string
	Warmup           string
	WarmupGiven      bool
	Set              []string
}

// Cell is the one cell an ad-hoc command line describes: the study the
// runner runs, and what the command line says of how its run is shown.
type Cell struct {
	// Study has one target, one workload at one client level, one repetition.
	Study *study.Study
	// Progress is the seconds between progress lines (pgbench's -P); 0: none.
	Progress int
	// MaxTries is the cell's tries per operation, which its summary reports.
	MaxTries int
	// Printing are the workload's printing flags given (workload.Flag.Print).
	Printing kinds.Printing
	// Outputs are the files the workload's output flags name, by run format.
	Outputs map[string]string
}

// Cell reads the parsed flags and line into the ad-hoc cell: its
// parameters from --set and then the workload's flags, its fields, its
// warm-up, and a target URL some driver takes.
func (f *Flags) Cell(line Line) (Cell, error) {
	w, err := workload.Get(line.Workload)
	if err != nil {
		return Cell{}, err
	}
	g, err := f.read(line.Set, line.Workload, w.Params())
	if err != nil {
		return Cell{}, err
	}
	fields, err := g.cellFields(f.perThreadFlag())
	if err != nil {
		return Cell{}, err
	}
	warmup := line.Warmup
	if fields.warmup != "" && !line.WarmupGiven {
		warmup = fields.warmup
	}
	warm, err := params.ParseDuration(warmup)
	if err != nil {
		return Cell{}, fmt.Errorf("--warmup: %v", err)
	}
	if _, err := driver.ForURL(line.Target); err != nil {
		return Cell{}, err
	}
	return Cell{
		Study:    oneCellStudy(line, g.params, fields, warm),
		Progress: fields.progress,
		MaxTries: fields.maxTries,
		Printing: g.printing,
		Outputs:  g.outputs,
	}, nil
}

// Params reads the workload parameters the parsed flags and set (--set's
// key=value) give, for a command that runs nothing (queries): each a list
// of one value, as a study's workload holds them. kind names the workload
// in errors; specs are its parameters.
func (f *Flags) Params(set []string, kind string, specs []params.Spec) (map[string][]any, error) {
	g, err := f.read(set, kind, specs)
	if err != nil {
		return nil, err
	}
	return g.params, nil
}

// oneCellStudy is the study of an ad-hoc cell.
func oneCellStudy(line Line, values map[string][]any, c fieldValues, warm time.Duration) *study.Study {
	return &study.Study{
		Name:        StudyName,
		Repetitions: 1,
		Warmup:      warm,
		Duration:    c.duration,
		Order:       "interleaved",
		Seed:        uint64(time.Now().UnixNano()),
		Targets:     []*study.Target{{Name: driver.Redacted(line.Target), URL: line.Target}},
		Workloads: []*study.Workload{{
			Name: line.Workload, Kind: line.Workload, Params: values,
			Clients:      []study.ClientLevel{{N: c.clients}},
			Rate:         c.rate,
			MaxTries:     c.maxTries,
			Threads:      c.threads,
			LatencyLimit: time.Duration(c.latencyLimitMS * float64(time.Millisecond)),
		}},
	}
}

// given is what the flags given say, read back from the flag set and not
// yet checked as the cell's fields.
type given struct {
	params   map[string][]any
	fields   map[workload.Field]fieldText
	printing kinds.Printing
	outputs  map[string]string
}

// fieldText is a cell field's text and the flag it came from ("" for a
// default).
type fieldText struct {
	text, flag string
}

// read reads the parameters from set, then each workload flag given.
func (f *Flags) read(set []string, kind string, specs []params.Spec) (*given, error) {
	g := &given{params: map[string][]any{}, fields: map[workload.Field]fieldText{}}
	if err := g.readSet(set, kind, specs); err != nil {
		return nil, err
	}
	for field, v := range fieldDefaults {
		g.fields[field] = fieldText{text: v}
	}
	if err := f.exclusions(); err != nil {
		return nil, err
	}
	for _, d := range f.defined {
		if d.Param == "" && d.Field != "" && d.Default != "" {
			g.fields[d.Field] = fieldText{text: d.Default}
		}
		if !f.fs.Changed(d.Name) {
			if err := f.defaultUnless(d, g); err != nil {
				return nil, err
			}
			continue
		}
		if err := g.readFlag(d); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// readSet reads --set's key=value pairs as parameters in specs.
func (g *given) readSet(set []string, kind string, specs []params.Spec) error {
	for _, kv := range set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fmt.Errorf("--set %q: use key=value", kv)
		}
		spec, ok := params.Find(specs, k)
		if !ok {
			msg := fmt.Sprintf("--set %s: workload %s has no parameter %q", kv, kind, k)
			if names := settingNames(CommandLineOf(kind).Settings); len(names) > 0 {
				msg += "; its peer tool's settings it takes are " + strings.Join(names, ", ")
			}
			return errors.New(msg)
		}
		cv, err := params.Coerce(spec, v)
		if err != nil {
			return fmt.Errorf("--set %s: %v", kv, err)
		}
		g.params[k] = []any{cv}
	}
	return nil
}

// defaultUnless gives the parameter of d, a flag not given, its flag's
// Default when neither --set nor the flag it names gave anything
// (workload.Flag.DefaultUnless).
func (f *Flags) defaultUnless(d definedFlag, g *given) error {
	if d.DefaultUnless == "" || d.Param == "" || f.fs.Lookup(d.DefaultUnless) == nil || f.fs.Changed(d.DefaultUnless) {
		return nil
	}
	if _, set := g.params[d.Param]; set {
		return nil
	}
	cv, err := params.Coerce(d.spec, d.Default)
	if err != nil {
		return fmt.Errorf("%s: default %q: %v", flagName(d.Flag), d.Default, err)
	}
	g.params[d.Param] = []any{cv}
	return nil
}

// readFlag reads the given flag d as what it sets: a printing option, an
// output file, a cell field or a parameter.
func (g *given) readFlag(d definedFlag) error {
	v := d.value.s
	switch {
	case d.Print != nil:
		return g.readPrinting(d, v)
	case d.Output != "":
		if strings.TrimSpace(v) == "" {
			return fmt.Errorf("%s: give the file to write", flagName(d.Flag))
		}
		if g.outputs == nil {
			g.outputs = map[string]string{}
		}
		g.outputs[d.Output] = v
		return nil
	case d.Param == "":
		if m, ok := d.Values[v]; ok {
			v = m // the peer's spelling of the value (sysbench's --time=0)
		}
		g.fields[d.Field] = fieldText{text: v, flag: flagName(d.Flag)}
		return nil
	}
	return g.readParam(d, v)
}

// readPrinting checks the printing flag d's value v as its Print spec.
func (g *given) readPrinting(d definedFlag, v string) error {
	spec := *d.Print
	spec.Name = flagName(d.Flag)
	if spec.Kind == params.Bool {
		v = peerBool(v)
	}
	x, err := params.Coerce(spec, v)
	if err != nil {
		return err
	}
	if g.printing == nil {
		g.printing = kinds.Printing{}
	}
	g.printing[d.Print.Name] = x
	return nil
}

// readParam checks the parameter flag d's value v (a switch's: whether it
// was given) as its parameter.
func (g *given) readParam(d definedFlag, v string) error {
	if d.Switch != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%s takes no value", flagName(d.Flag))
		}
		if !b {
			return nil
		}
		v = d.Switch
	}
	if m, ok := d.Values[v]; ok {
		v = m
	}
	if d.spec.Kind == params.Bool {
		v = peerBool(v)
	}
	var raw any = v
	if d.Repeat {
		raw = d.value.all // one element per use: a value may hold commas
	}
	cv, err := params.Coerce(d.spec, raw)
	if err != nil {
		return fmt.Errorf("%s: %v", flagName(d.Flag), err)
	}
	g.params[d.Param] = []any{cv}
	return nil
}

// fieldValues are the cell's fields, checked.
type fieldValues struct {
	clients, threads, progress, maxTries int
	duration                             time.Duration
	warmup                               string // a workload's own warm-up flag (tpcc's --rampup); "" = --warmup
	rate, latencyLimitMS                 float64
}

// cellFields checks each field's text against its domain
// (workload.FieldSpec), in the order of workload.Fields, naming the flag
// that gave it. perThread names the flag whose clients are per thread
// (memtier's -c), "" for none.
func (g *given) cellFields(perThread string) (fieldValues, error) {
	checked := params.Values{}
	for _, f := range workload.Fields() {
		t, ok := g.fields[f]
		if !ok || t.text == "" {
			continue
		}
		spec := workload.FieldSpec(f)
		spec.Name = t.flag
		if spec.Name == "" {
			spec.Name = "the default " + string(f)
		}
		x, err := params.Coerce(spec, t.text)
		if err != nil {
			return fieldValues{}, err
		}
		checked[string(f)] = x
	}
	c := fieldValues{
		clients:        int(checked.Int(string(workload.FieldClients))),
		threads:        int(checked.Int(string(workload.FieldThreads))),
		progress:       int(checked.Int(string(workload.FieldProgress))),
		maxTries:       int(checked.Int(string(workload.FieldMaxTries))),
		duration:       checked.Duration(string(workload.FieldDuration)),
		rate:           checked.Float(string(workload.FieldRate)),
		latencyLimitMS: checked.Float(string(workload.FieldLatencyLimit)),
	}
	if _, ok := checked[string(workload.FieldWarmup)]; ok {
		c.warmup = g.fields[workload.FieldWarmup].text
	}
	return c, c.clientsPerThread(perThread)
}

// clientsPerThread makes the clients of a flag that counts them per thread
// (perThread, memtier's -c) the cell's: that many for each thread.
func (c *fieldValues) clientsPerThread(perThread string) error {
	if perThread == "" || c.clients <= 0 {
		return nil
	}
	threads := c.threads
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	c.clients *= threads
	if c.clients > params.MaxClients {
		return fmt.Errorf("%s: %d connections over %d threads exceed %d clients, the most a cell runs: lower it", perThread, c.clients, threads, params.MaxClients)
	}
	return nil
}

// perThreadFlag names the clients flag whose value counts clients per
// thread (workload.Flag.ClientsPerThread); "" when there is none.
func (f *Flags) perThreadFlag() string {
	perThread := ""
	for _, d := range f.defined {
		if d.Field == workload.FieldClients && d.ClientsPerThread {
			perThread = flagName(d.Flag)
		}
	}
	return perThread
}

// exclusions refuses two flags given together that exclude each other.
func (f *Flags) exclusions() error {
	for _, d := range f.defined {
		if d.Excludes == "" || !f.fs.Changed(d.Name) || !f.fs.Changed(d.Excludes) {
			continue
		}
		other := "--" + d.Excludes
		for _, o := range f.defined {
			if o.Name == d.Excludes {
				other = flagName(o.Flag)
			}
		}
		why := d.ExcludesText
		if why == "" {
			why = "give one or the other"
		}
		return fmt.Errorf("%s and %s: %s", flagName(d.Flag), other, why)
	}
	return nil
}

// peerBool reads a peer tool's spelling of a boolean (sysbench's on and
// off) as fairbench's.
func peerBool(v string) string {
	switch strings.ToLower(v) {
	case "on", "yes":
		return "true"
	case "off", "no":
		return "false"
	}
	return v
}

// settingNames are a peer tool's settings that set a flag, each flag's
// under its shortest name (count_ware, not pg_count_ware), sorted.
func settingNames(settings map[string]workload.Setting) []string {
	shortest := map[string]string{}
	for name, s := range settings {
		if s.Flag == "" {
			continue
		}
		if n, ok := shortest[s.Flag]; !ok || len(name) < len(n) || (len(name) == len(n) && name < n) {
			shortest[s.Flag] = name
		}
	}
	out := make([]string, 0, len(shortest))
	for _, n := range shortest {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
