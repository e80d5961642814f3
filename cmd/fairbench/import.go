package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/adapter"
	"github.com/fairbench/fairbench/internal/adhocline"
	"github.com/fairbench/fairbench/internal/escape"
	"github.com/fairbench/fairbench/internal/numfmt"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
	"github.com/fairbench/fairbench/internal/workload"
)

func init() { addCommand(newImport) }

// importFlags fill in what a tool's output does not say.
type importFlags struct {
	target, study, results string
	clients, threads       int
	set                    []string
	again                  bool
	// toolFlags are the flags the tools declare (adapter.ImportFlags), by
	// name; each output's tool reads those given (adapter.ImportParams).
	toolFlags map[string]*adhocline.TextValue
	given     map[string]string // the tool flags given, by name
}

func newImport() *cobra.Command {
	var f importFlags
	cmd := &cobra.Command{
		Use:   "import --target NAME FILE|DIR...",
		Short: "Store outputs of " + strings.Join(adapter.Readable(), ", ") + " as runs",
		Long: `Read outputs of the standard tools and store each as a run of target NAME, so that
report and compare treat them like fairbench's own runs. The tool is detected from
the text. A directory is read recursively (files named *.cmd or *.md, and hidden
files, are taken for notes and skipped); side logs a tool writes (per-transaction, bandwidth or latency logs)
are attached to the one output of their tool in the same directory.

Every file is parsed before anything is stored: one unreadable file stores nothing.
A file is judged from its first 256 KiB: one that is no tool's output is refused having
read no more, and an output above 128 MiB is refused unread, unless its tool's parser
reads it line by line (pgbench's, sysbench's, redis-benchmark's, mysqlslap's and
HammerDB's: such an output is streamed at any size); side logs are read whole.
Each file's runs are stored in one transaction, with the SHA-256 of its content
(and of its side logs): a file already imported into the results file is skipped,
unless --again is given. So is a run given as two of its output files (memtier's
text and JSON, OSB's results file and test_run.json): the tool's run identity (start
time, counts, measured values) finds it stored or imported earlier.

A bundle (fairbench export, or an HTML report written with --embed-data) is
stored as store copy would: its own studies and targets, runs already there skipped.

Flags fill in what an output does not say (the test a tool ran, its pipeline depth);
a flag that contradicts the output is an error.

Formats read: ` + adapter.Supported(),
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return untilInterrupted(cmd.Context(), "import interrupted: no run is stored partially; runs stored before the signal are kept", func() error {
				if done, err := importBundles(cmd, f.results, args); done {
					return err // bundles (export.go)
				}
				if done, err := importFallbacks(cmd, f.results, args); done {
					return err // fallback files of unsaved runs (fallback.go)
				}
				f.given = map[string]string{}
				for name, v := range f.toolFlags {
					if cmd.Flags().Changed(name) {
						f.given[name] = v.String()
					}
				}
				return runImport(cmd, f, args)
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.target, "target", "", "target name the runs belong to (required, except for fairbench's own fallback files), e.g. the environment they ran on")
	fl.StringVar(&f.study, "study", "import", "study name to store the runs under")
	fl.StringVar(&f.results, "results", defaultResults, "results file (SQLite), or a postgres:// URL of a shared results store")
	fl.IntVarP(&f.clients, "clients", "c", 0, "number of clients, where the output does not say")
	fl.IntVarP(&f.threads, "threads", "j", 0, "client threads, recorded with the run")
	f.toolFlags = map[string]*adhocline.TextValue{}
	for _, tf := range adapter.ImportFlags() {
		v := adhocline.NewTextValue(tf.Param.Kind)
		fl.VarP(v, tf.Name, tf.Shorthand, tf.Usage)
		f.toolFlags[tf.Name] = v
	}
	fl.StringArrayVar(&f.set, "set", nil, "any other parameter as key=value (repeatable)")
	fl.BoolVar(&f.again, "again", false, "import files whose content this results file already holds (as new repetitions)")
	return cmd
}

func runImport(cmd *cobra.Command, f importFlags, args []string) error {
	if strings.TrimSpace(f.target) == "" {
		return errors.New("--target must name the target the outputs were measured on")
	}
	given, err := f.params()
	if err != nil {
		return err
	}
	files, errs, err := importFiles(args)
	if err != nil {
		return err
	}
	inputs, err := adapter.Group(files)
	if err != nil {
		return err
	}
	// Parse everything first: a bad file must not leave the others half-imported.
	var all []parsed
	for _, in := range inputs {
		p, err := f.parse(in, given)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		all = append(all, p)
	}
	if len(errs) > 0 {
		return fmt.Errorf("nothing imported:\n  %w", errors.Join(errs...))
	}

	s, err := store.Open(f.results)
	if err != nil {
		return err
	}
	defer s.Close()
	// Repetitions continue the numbering of runs already in this study.
	existing, err := s.Runs(store.Filter{StudyName: f.study, Targets: []string{f.target}})
	if err != nil {
		return err
	}
	reps := map[string]int{}
	for _, r := range existing {
		reps[cellKey(r)]++
	}
	var tools []*adapter.Tool
	for _, p := range all {
		tools = append(tools, p.tool)
	}
	known, err := runsKnown(s, tools, f.again)
	if err != nil {
		return err
	}
	// File names and the names they carry are the user's: escaped for the terminal.
	out := tabwriter.NewWriter(escape.NewWriter(cmd.OutOrStdout(), escape.TerminalText), 0, 0, 2, ' ', 0)
	fmt.Fprintln(out, "file\ttool\tworkload\tparams\tclients\trep\tthroughput")
	n, stored, skipped := 0, 0, 0
	seen := map[string]string{} // hash → file, within this import
	for i, p := range all {
		if better, ok := supersededBy(p, all[i+1:]); ok {
			fmt.Fprintf(cmd.ErrOrStderr(), "skipped %s: the same run as %s, given in this import and stored instead: it has the run's start time, and more of it\n", p.file, better)
			skipped++
			continue
		}
		if first, ok := seen[p.hash]; ok {
			fmt.Fprintf(cmd.ErrOrStderr(), "%s: skipped: the same content as %s\n", p.file, first)
			skipped++
			continue
		}
		seen[p.hash] = p.file
		if !f.again {
			prev, ok, err := s.Imported(p.hash)
			if err != nil {
				return err
			}
			if ok {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: skipped: already imported (as %s, study %q, target %q, %d runs, %s); --again imports it again\n",
					p.file, prev.Name, prev.StudyName, prev.Target, prev.Runs, prev.ImportedAt.Local().Format("2006-01-02 15:04"))
				skipped++
				continue
			}
		}
		runs := known.drop(cmd.ErrOrStderr(), p.file, p.tool, p.runs)
		if len(runs) == 0 {
			skipped++
			continue
		}
		// Repetitions are numbered on a copy, kept only once the file's
		// transaction commits.
		next := maps.Clone(reps)
		for _, r := range runs {
			k := cellKey(r)
			next[k]++
			r.Repetition = next[k]
			r.CellKey = k + "|r=" + strconv.Itoa(r.Repetition)
		}
		rec := &store.ImportedFile{Hash: p.hash, Name: p.file, StudyName: f.study, Target: f.target, Runs: len(runs)}
		if err := s.AppendRuns(runs, rec); err != nil {
			return fmt.Errorf("%s: storing: %w (nothing of it stored; %d runs of %d files before it are)", p.file, err, n, stored)
		}
		known.add(p.file, p.tool, runs)
		reps = next
		n += len(runs)
		stored++
		for _, r := range runs {
			fmt.Fprintf(out, "%s\t%s\t%s\t%s\t%d\t%d\t%.1f\n", p.file, p.tool.Name, r.Workload,
				params.Values(r.Params).Canonical(), r.Clients, r.Repetition, r.Summary.Throughput)
		}
	}
	out.Flush()
	msg := fmt.Sprintf("%s imported into %s (study %q, target %q)", numfmt.Count(n, "run", "runs"), s.Path(), f.study, f.target)
	if skipped > 0 {
		msg += fmt.Sprintf("; %d files skipped as already imported (their content or their runs)", skipped)
	}
	fmt.Fprintln(cmd.ErrOrStderr(), msg)
	return nil
}

// parse reads one input's runs and completes them with the parameters given
// (--set) and the import flags its tool declares.
func (f importFlags) parse(in adapter.Input, given map[string]any) (parsed, error) {
	tool, runs, err := adapter.ParseInput(in)
	if err != nil {
		return parsed{}, err
	}
	fromFlags, err := adapter.ImportParams(tool, f.given)
	if err != nil {
		return parsed{}, fmt.Errorf("%s: %w", in.Main.Name, err)
	}
	p := maps.Clone(given)
	maps.Copy(p, fromFlags)
	for _, r := range runs {
		if err := f.complete(r, tool, in.Main.Name, p); err != nil {
			return parsed{}, err
		}
	}
	hash, err := in.Hash()
	if err != nil {
		return parsed{}, err
	}
	return parsed{in.Main.Name, hash, tool, runs}, nil
}

// parsed is one input file's runs, ready to store.
type parsed struct {
	file string
	hash string
	tool *adapter.Tool
	runs []*result.Run
}

// supersededBy returns the file among later whose runs are p's runs, read
// from a format that prints their start time where p's does not (memtier's
// JSON beside its text, OSB's test_run.json beside its results file): of
// two files of one run given together, that one is stored, whatever their
// order.
func supersededBy(p parsed, later []parsed) (string, bool) {
	if p.tool.Identity == nil {
		return "", false
	}
	for _, q := range later {
		if q.tool != p.tool || len(q.runs) != len(p.runs) {
			continue
		}
		covered := true
		for i, r := range p.runs {
			a, b := p.tool.Identity(r), q.tool.Identity(q.runs[i])
			if same, _ := adapter.SameRun(a, b); !same || !a.Start.IsZero() || b.Start.IsZero() {
				covered = false
				break
			}
		}
		if covered {
			return q.file, true
		}
	}
	return "", false
}

// knownRuns are the runs an import must not store again: those of the
// results file (unless --again) and those it stored so far, each with its
// identity (adapter.RunIdentity) and where it came from.
type knownRuns []knownRun

type knownRun struct {
	id  *adapter.RunIdentity
	was string // where it came from: "FILE imported at TIME"
}

// runsKnown reads the identities of the runs already stored from the tools
// in tools. With again, none: --again imports the same runs again.
func runsKnown(s *store.Store, tools []*adapter.Tool, again bool) (knownRuns, error) {
	var sources []string
	for _, t := range tools {
		if t.Identity != nil {
			sources = append(sources, t.Name)
		}
	}
	if again || len(sources) == 0 {
		return nil, nil
	}
	stored, err := s.Runs(store.Filter{Sources: sources})
	if err != nil {
		return nil, err
	}
	var k knownRuns
	for _, r := range stored {
		t, ok := adapter.Lookup(r.Source)
		if !ok || t.Identity == nil {
			continue
		}
		// A run a study cell made with the tool was not imported from a file.
		file, _ := r.Env.Extra["imported_from"].(string)
		was := fmt.Sprintf("run %d of study %q, target %q, stored at its end", r.ID, r.StudyName, r.Target)
		if file != "" {
			was = fmt.Sprintf("%s imported as run %d", file, r.ID)
			if rec, ok, err := s.ImportedAs(file); err != nil {
				return nil, err
			} else if ok {
				was = fmt.Sprintf("%s imported at %s (run %d)", file, rec.ImportedAt.Local().Format("2006-01-02 15:04"), r.ID)
			}
		}
		k = append(k, knownRun{t.Identity(r), was})
	}
	return k, nil
}

// add records the runs of file, stored by this import, as known.
func (k *knownRuns) add(file string, tool *adapter.Tool, runs []*result.Run) {
	if tool.Identity == nil {
		return
	}
	for _, r := range runs {
		*k = append(*k, knownRun{tool.Identity(r), file + " imported in this import"})
	}
}

// drop returns the runs of file that are not known runs, saying on w which
// it leaves out and why.
func (k knownRuns) drop(w io.Writer, file string, tool *adapter.Tool, runs []*result.Run) []*result.Run {
	if tool.Identity == nil {
		return runs
	}
	var keep []*result.Run
	for i, r := range runs {
		id := tool.Identity(r)
		var same *knownRun
		for j := range k {
			if ok, _ := adapter.SameRun(id, k[j].id); ok {
				same = &k[j]
				break
			}
		}
		if same == nil {
			keep = append(keep, r)
			continue
		}
		what := "skipped " + file
		if len(runs) > 1 {
			what = fmt.Sprintf("skipped run %d of %d of %s", i+1, len(runs), file)
		}
		agree := "counts and measured values"
		if !id.Start.IsZero() && !same.id.Start.IsZero() {
			agree = "start time, " + agree
		}
		fmt.Fprintf(w, "%s: the same run as %s (their %s agree); --again imports it again\n", what, same.was, agree)
	}
	return keep
}

func cellKey(r *result.Run) string {
	return r.Target + "|" + r.Workload + "|" + r.Kind + "|" + params.Values(r.Params).Canonical() + "|c=" + strconv.Itoa(r.Clients)
}

// importFiles reads the files and directories given, directories recursively
// in name order. A file that is no tool's output, or too large to be one, is
// refused (in refused) having read at most its first part (adapter.Read);
// the others are read on, so that every refusal is reported at once.
func importFiles(args []string) (files []adapter.File, refused []error, err error) {
	read := func(p string) error {
		f, err := adapter.ReadFile(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
				return err
			}
			refused = append(refused, err)
			return nil
		}
		files = append(files, f)
		return nil
	}
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, nil, err
		}
		if !st.IsDir() {
			if err := read(a); err != nil {
				return nil, nil, err
			}
			continue
		}
		var paths []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			base := d.Name()
			if p != a && strings.HasPrefix(base, ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() || strings.HasSuffix(base, ".cmd") || strings.HasSuffix(base, ".md") {
				return nil
			}
			paths = append(paths, p)
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
		if len(paths) == 0 {
			return nil, nil, fmt.Errorf("%s: no files to import", a)
		}
		sort.Strings(paths)
		for _, p := range paths {
			if err := read(p); err != nil {
				return nil, nil, err
			}
		}
	}
	return files, refused, nil
}

// params are the parameter values given as flags.
func (f importFlags) params() (map[string]any, error) {
	p := map[string]any{}
	for _, kv := range f.set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--set %q: use key=value", kv)
		}
		p[k] = v
	}
	return p, nil
}

// complete fills a parsed run with what import knows: the target and study,
// the flags for what the output lacks, and the kind's defaults, so that the
// run's parameters line up with native runs of the same kind.
func (f importFlags) complete(r *result.Run, tool *adapter.Tool, file string, given map[string]any) error {
	r.Target = f.target
	r.StudyName = f.study
	r.Env.Set("imported_from", file)
	switch {
	case r.Clients == 0 && f.clients > 0:
		r.Clients = f.clients
	case r.Clients == 0:
		return fmt.Errorf("%s: the %s output does not say how many clients ran: give --clients", file, tool.Name)
	case f.clients > 0 && f.clients != r.Clients:
		return fmt.Errorf("%s: the output says %d clients, --clients says %d", file, r.Clients, f.clients)
	}
	if f.threads > 0 {
		t, _ := r.Env.Extra["tool"].(map[string]any)
		if t == nil {
			t = map[string]any{}
			r.Env.Set("tool", t)
		}
		if had, ok := t["threads"]; ok && fmt.Sprint(had) != strconv.Itoa(f.threads) {
			return fmt.Errorf("%s: the output says %v threads, --threads says %d", file, had, f.threads)
		}
		t["threads"] = int64(f.threads)
	}
	if r.Params == nil {
		r.Params = map[string]any{}
	}
	var specs []params.Spec
	if w, err := workload.Get(r.Kind); err == nil {
		specs = w.Params()
	}
	for k, v := range given {
		if spec, ok := params.Find(specs, k); ok {
			cv, err := params.Coerce(spec, v)
			if err != nil {
				return fmt.Errorf("%s: %v", file, err)
			}
			v = cv
		}
		if had, ok := r.Params[k]; ok && params.Format(had) != params.Format(v) {
			return fmt.Errorf("%s: the output says %s=%s, the flags say %s", file, k, params.Format(had), params.Format(v))
		}
		r.Params[k] = v
	}
	if tool.Complete != nil {
		if err := tool.Complete(r); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
	}
	if len(specs) > 0 {
		var assumed []string
		for _, sp := range specs {
			if _, ok := r.Params[sp.Name]; !ok {
				assumed = append(assumed, sp.Name+"="+params.Format(sp.Default))
			}
		}
		full := params.WithDefaults(specs, params.Values(maps.Clone(r.Params)))
		r.Params = map[string]any(full)
		if len(assumed) > 0 {
			r.Deviations = append(r.Deviations, fmt.Sprintf("not in the %s output, assumed at %s's defaults: %s", tool.Name, r.Kind, strings.Join(assumed, ", ")))
		}
	}
	return nil
}
