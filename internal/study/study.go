// Package study reads a study file — the one declarative TOML document that says
// which targets run which workloads with which parameter sweeps, how often and for
// how long — and expands it into a plan: the ordered list of cells to run.
//
// Everything the user can get wrong in a study is reported here, with the file,
// line and key, before any database is touched: a typo discovered an hour into a
// benchmark costs the hour.
package study

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/boundfile"
	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/escape"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/redact"
)

// Catalog tells the parser which workload kinds and external tools exist,
// and their parameters. The caller passes it in (runner.Catalog: the
// registered workloads and internal/adapter's tools), so that this package
// imports neither.
type Catalog interface {
	// Params returns the parameters of a kind a cell can run: a native
	// workload's, or one only tools run (fio).
	Params(kind string) ([]params.Spec, bool)
	// Kinds lists the native workload kinds.
	Kinds() []string
	// Tool returns the kind of the runs a study cell of tool name makes; ok
	// is false when fairbench cannot run that tool.
	Tool(name string) (kind string, ok bool)
	// Tools lists the tools a study cell can run, for messages.
	Tools() []string
	// Fits says why a native workload kind cannot run on the target url
	// (its driver offers no capability the workload needs); nil when it can
	// or when neither says.
	Fits(kind, url string) error
}

// Study is a parsed study file, or one built in code for an ad-hoc run.
type Study struct {
	File        string
	Hash        string // hex sha256 of the file content ("" for studies built in code)
	Source      []byte // the file as stored with results: every secret of its URLs replaced (Redact)
	Name        string
	Repetitions int           // default 1 (>=1); with AutoRepetitions, MaxRepetitions
	Warmup      time.Duration // default 5s
	Duration    time.Duration // default 60s (>0)
	Cooldown    time.Duration // default 0
	Order       string        // "interleaved" (default) | "sequential" | "random"
	Seed        uint64        // default 1
	Targets     []*Target
	Workloads   []*Workload

	// MaxErrorRatio and MaxDeadRatio are the outage thresholds past which a
	// run is stored as failed (keys max_error_ratio, max_dead_ratio); nil =
	// the runner's defaults.
	MaxErrorRatio, MaxDeadRatio *float64
	// LatencyShares are the thresholds of the reports' cumulative latency
	// table (key latency_shares, e.g. ["1ms", "5ms", "50ms"]); nil = the
	// reports' defaults.
	LatencyShares []time.Duration

	// AutoRepetitions (repetitions = "auto") runs a pilot of interleaved
	// rounds, then as many more as the widest scenario needs for a pooled
	// interval of ±Interval % (a half width; default defaultInterval), at
	// most MaxRepetitions (docs/statistics.md, "repetitions = auto").
	AutoRepetitions bool
	MaxRepetitions  int
	Interval        float64

	// Hooks are the commands the study runs on this host around its cells.
	Hooks Hooks
}

// Hooks are shell commands run with sh -c on the client host (this
// machine, not the target's) around the cells: before_study once, before
// the first cell; before_cell before each cell's load; before_run after the
// load, before the warm-up; after_run after the measured phase. "" runs
// nothing. Each gets FAIRBENCH_TARGET, FAIRBENCH_TARGET_URL (without its
// password), FAIRBENCH_WORKLOAD, FAIRBENCH_CELL and FAIRBENCH_REPETITION
// in its environment (docs/study.md, "Commands around runs").
type Hooks struct {
	BeforeStudy, BeforeCell, BeforeRun, AfterRun string
	// Timeout bounds each command, the target's restart and the wait for
	// its server to answer after it (key hook_timeout); 0 = DefaultHookTimeout.
	Timeout time.Duration
}

// DefaultHookTimeout bounds a hook without hook_timeout: long enough for a
// large database's restart and recovery, short enough that a command
// waiting for input does not hold the study for hours.
const DefaultHookTimeout = 10 * time.Minute

// maxHookTimeout bounds hook_timeout: past a day, the value is a typo.
const maxHookTimeout = 24 * time.Hour

// Target is one database endpoint under test.
type Target struct {
	Name         string
	URL          string
	Cores        int // hardware threads of the target host; 0 = unknown
	CPU          string
	PricePerHour float64
	Notes        string
	NodeExporter string // optional Prometheus node_exporter metrics URL of the server, sampled each tick
	// ServerView is the time between two samples of the server's own view
	// of the run (key server_view: a duration, or "off"): 0 takes the
	// runner's default, ServerViewOff turns it off.
	ServerView time.Duration
	// Baseline marks the target the reports compare the others against
	// (key baseline = true); with several, one per URL scheme, each target
	// is compared with the baseline of its own engine.
	Baseline bool
	// Restart is a command (sh -c, on this host) that restarts the target's
	// server ("systemctl restart postgresql", "ssh db sudo systemctl
	// restart mysql"); DropCaches drops this host's page cache (the server
	// runs here). Both run before each query's first try of a query-set
	// run, which makes its cold tries true cold tries, and before the setup
	// of every other run (docs/measurement.md, "Cold tries").
	Restart    string
	DropCaches bool
	Line       int // line of the [[target]] header, 0 if built in code
}

// DropCachesCommand is what drop_caches = true runs: the kernel drops
// only clean pages, so dirty ones are written first.
const DropCachesCommand = "sync && echo 3 > /proc/sys/vm/drop_caches"

// MakesCold says whether the target has a way to make a try cold.
func (t *Target) MakesCold() bool { return t.Restart != "" || t.DropCaches }

// Workload is one [[workload]] table: a kind, its parameter sweeps and how to drive it.
type Workload struct {
	Name, Kind string
	// Tool, when set, names the external tool that runs this workload
	// ("pgbench", "sysbench", "fio", "redis-benchmark") instead of fairbench.
	Tool string
	// Params holds, per parameter name, the list of values to sweep (length 1 when a
	// scalar was given), each already normalised with params.Coerce against the kind's spec.
	// Only parameters the user gave appear here; defaults are filled in at plan time.
	Params                     map[string][]any
	Clients                    []ClientLevel  // the raw sweep; default [1]
	ClientsPerThread           int            // default 1
	Targets                    []string       // optional subset of target names; empty = all
	Warmup, Duration, Cooldown *time.Duration // optional per-workload overrides (nil = study's)
	Rate                       float64        // target ops/s over all clients; 0 = closed loop (pgbench -R)
	LatencyLimit               time.Duration  // pgbench -L, 0 = none
	MaxTries                   int            // pgbench --max-tries, default 1
	// Threads is how many threads drive the clients when there are more
	// clients than threads (pgbench -j): each runs an event loop over its share
	// of the connections. 0 = as many as the client machine's CPUs.
	Threads int
	// Generators is how many load generators measure each cell together,
	// each with its share of the clients (docs/commands/generator.md,
	// "Several load generators"); 0 and 1 are this process alone.
	Generators int
	Line       int

	// clientsLine and clientsCol locate the clients key, so that a percentage that
	// cannot be resolved at plan time is reported where it was written. Zero for
	// workloads built in code; Plan then falls back to Line.
	clientsLine, clientsCol int
}

// ClientLevel is one entry of a clients sweep: exactly one of N (a literal client
// count) or Percent (of the target's hardware threads) is set.
type ClientLevel struct {
	N       int
	Percent float64
}

func (c ClientLevel) String() string {
	if c.Percent > 0 {
		return strconv.FormatFloat(c.Percent, 'g', -1, 64) + "%"
	}
	return strconv.Itoa(c.N)
}

// Error is a problem in a study, located as precisely as known.
type Error struct {
	File      string
	Line, Col int
	// Key names the part of the study the problem is in, the way a reader of the
	// file would: "study", `target "wal"`, `workload "sel"`. The message starts
	// with the key inside that table when there is one ("clients: ...").
	Key string
	Msg string
}

// Error renders "study.toml:12:3: workload \"sel\": clients: ...", leaving out
// whatever is unknown.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		if b.Len() > 0 {
			b.WriteByte(':')
		} else {
			b.WriteString("line ")
		}
		b.WriteString(strconv.Itoa(e.Line))
		if e.Col > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(e.Col))
		}
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Defaults of a study file; Plan applies the same ones to studies built in code.
const (
	defaultWarmup   = 5 * time.Second
	defaultDuration = 60 * time.Second
	defaultSeed     = 1

	orderInterleaved = "interleaved"
	orderSequential  = "sequential"
	orderRandom      = "random"
)

var orders = []string{orderInterleaved, orderSequential, orderRandom}

// Load reads and parses a study file.
func Load(path string, cat Catalog) (*Study, error) {
	f, err := boundfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// A study is a few kilobytes; reading a huge file whole (a results file or
	// a log given by mistake) would only end in a confusing parse error.
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxFileSize {
		return nil, &Error{File: path, Msg: fmt.Sprintf("larger than %d MiB: a study file is a few kilobytes of TOML; is this the right file?", maxFileSize>>20)}
	}
	return Parse(path, data, cat)
}

// maxFileSize bounds what Load reads.
const maxFileSize = 16 << 20

// Parse parses and validates a study. file is only used to locate errors. When
// the study has several problems they are all returned, joined, in file order,
// each an *Error.
func Parse(file string, data []byte, cat Catalog) (*Study, error) {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return nil, &Error{File: file, Line: line, Col: col, Msg: strings.TrimPrefix(de.Error(), "toml: ")}
		}
		return nil, &Error{File: file, Msg: err.Error()}
	}
	sum := sha256.Sum256(data)
	s := &Study{
		File:        file,
		Hash:        hex.EncodeToString(sum[:]),
		Source:      slices.Clone(data),
		Name:        strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)),
		Repetitions: 1,
		Warmup:      defaultWarmup,
		Duration:    defaultDuration,
		Order:       orderInterleaved,
		Seed:        defaultSeed,
	}
	p := &parser{file: file, pos: keyPositions(data), cat: cat}

	for _, k := range sortedKeys(doc) {
		switch k {
		case "study", "target", "workload":
		default:
			p.errorf(k, "", "unknown table or key %q: a study has [study], [[target]] and [[workload]] tables", k)
		}
	}
	if v, ok := doc["study"]; ok {
		p.study(s, v)
	}
	targetTables := p.tables(doc, "target")
	for i, t := range targetTables {
		if t != nil {
			s.Targets = append(s.Targets, p.target(i, t))
		}
	}
	p.uniqueTargets(s.Targets)
	p.oneBaselinePerEngine(s.Targets)
	workloadTables := p.tables(doc, "workload")
	for i, w := range workloadTables {
		if w != nil {
			s.Workloads = append(s.Workloads, p.workload(i, w, s.Targets))
		}
	}
	p.uniqueWorkloads(s.Workloads)
	if len(targetTables) == 0 {
		p.errs = append(p.errs, &Error{File: file, Msg: "no [[target]] tables: a study needs at least one target"})
	}
	if len(workloadTables) == 0 {
		p.errs = append(p.errs, &Error{File: file, Msg: "no [[workload]] tables: a study needs at least one workload"})
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	s.Source = redactSecrets(s.Source, s.Targets)
	return s, nil
}

// redactSecrets replaces the passwords and tokens of the targets' URLs (and of
// their node_exporter URLs) in a study's text: results files are shared, and
// the study travels inside them.
func redactSecrets(src []byte, targets []*Target) []byte {
	var secrets []string
	for _, t := range targets {
		secrets = append(secrets, driver.Secrets(t.URL)...)
		if t.NodeExporter != "" {
			secrets = append(secrets, driver.Secrets(t.NodeExporter)...)
		}
		secrets = append(secrets, redact.ByPlaceValues(t.Restart)...)
	}
	// A password a hook names in a URL or as password= may occur again in
	// it unplaced (PGPASSWORD=…).
	secrets = append(secrets, redact.ByPlaceValues(string(src))...)
	// redact.List's rule: a URL's password by its place, a long one
	// wherever it occurs, and a one-letter password not in every word.
	return []byte(redact.List(secrets).Scrub(string(src)))
}

// parser collects errors instead of stopping at the first, so that one run of
// `fairbench validate` shows everything that needs fixing.
type parser struct {
	file string
	pos  map[string]pos
	cat  Catalog
	errs []*Error
}

// errorf records an error at the position of path (falling back to its enclosing
// tables when path itself was not written, e.g. a missing key).
func (p *parser) errorf(path, where, format string, args ...any) {
	e := &Error{File: p.file, Key: where, Msg: fmt.Sprintf(format, args...)}
	if at, ok := p.lookup(path); ok {
		e.Line, e.Col = at.line, at.col
	}
	p.errs = append(p.errs, e)
}

func (p *parser) lookup(path string) (pos, bool) {
	for path != "" {
		if at, ok := p.pos[path]; ok {
			return at, true
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return pos{}, false
}

func (p *parser) err() error {
	if len(p.errs) == 0 {
		return nil
	}
	// Errors are found table by table and key by key in map order; the reader
	// wants them in file order, with the file-wide ones (no line) last.
	sort.SliceStable(p.errs, func(i, j int) bool {
		a, b := p.errs[i], p.errs[j]
		if (a.Line == 0) != (b.Line == 0) {
			return b.Line == 0
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	if len(p.errs) == 1 {
		return p.errs[0]
	}
	errs := make([]error, len(p.errs))
	for i, e := range p.errs {
		errs[i] = e
	}
	return errors.Join(errs...)
}

// tables returns the elements of an array of tables; an element that is not a
// table is reported and returned as nil so that indexes still match the file.
func (p *parser) tables(doc map[string]any, name string) []map[string]any {
	v, ok := doc[name]
	if !ok {
		return nil
	}
	switch x := v.(type) {
	case []any:
		out := make([]map[string]any, len(x))
		for i, el := range x {
			if m, ok := el.(map[string]any); ok {
				out[i] = m
			} else {
				p.errorf(index(name, i), "", "%s must be a list of tables written [[%s]], got %s", name, name, describe(el))
			}
		}
		if len(x) == 0 {
			p.errorf(name, "", "%s is empty: write one [[%s]] table per %s", name, name, name)
		}
		return out
	case map[string]any:
		p.errorf(name, "", "write [[%s]] (one table per %s), not [%s]", name, name, name)
	default:
		p.errorf(name, "", "%s must be written as [[%s]] tables, got %s", name, name, describe(v))
	}
	return nil
}

var studyKeys = []string{"name", "repetitions", "max_repetitions", "interval", "warmup", "duration", "cooldown", "order", "seed", "max_error_ratio", "max_dead_ratio", "latency_shares",
	"before_study", "before_cell", "before_run", "after_run", "hook_timeout"}

func (p *parser) study(s *Study, v any) {
	const where = "study"
	m, ok := v.(map[string]any)
	if !ok {
		p.errorf("study", "", "study must be a table written [study], got %s", describe(v))
		return
	}
	for _, k := range sortedKeys(m) {
		path := "study." + k
		x := m[k]
		switch k {
		case "name":
			if str, ok := p.name(path, where, k, x); ok {
				if str == "" {
					p.errorf(path, where, "name must not be empty")
				} else {
					s.Name = str
				}
			}
		case "repetitions":
			if x == "auto" {
				s.AutoRepetitions = true
			} else if _, isInt := x.(int64); !isInt {
				p.errorf(path, where, `repetitions must be an integer or "auto", got %s`, describe(x))
			} else if n, ok := p.integer(path, where, k, x, 1); ok {
				s.Repetitions = n
			}
		case "max_repetitions":
			if n, ok := p.integer(path, where, k, x, 3); ok {
				s.MaxRepetitions = n
			}
		case "interval":
			if f, ok := p.number(path, where, k, x); ok {
				if !(f > 0 && f <= 100) {
					p.errorf(path, where, "interval is the pooled interval's half width in %%, more than 0 and at most 100, got %v", f)
				} else {
					s.Interval = f
				}
			}
		case "warmup":
			if d, ok := p.duration(path, where, k, x, false); ok {
				s.Warmup = d
			}
		case "duration":
			if d, ok := p.duration(path, where, k, x, true); ok {
				s.Duration = d
			}
		case "cooldown":
			if d, ok := p.duration(path, where, k, x, false); ok {
				s.Cooldown = d
			}
		case "order":
			if str, ok := p.str(path, where, k, x); ok {
				if !slices.Contains(orders, str) {
					p.errorf(path, where, "order = %q is not one of %s", str, strings.Join(orders, ", "))
				} else {
					s.Order = str
				}
			}
		case "seed":
			if n, ok := p.integer(path, where, k, x, 0); ok {
				s.Seed = uint64(n)
			}
		case "max_error_ratio", "max_dead_ratio":
			if f, ok := p.number(path, where, k, x); ok {
				if f > 1 || f != f {
					p.errorf(path, where, "%s is a share between 0 and 1, got %v", k, f)
				} else if k == "max_error_ratio" {
					s.MaxErrorRatio = &f
				} else {
					s.MaxDeadRatio = &f
				}
			}
		case "latency_shares":
			if d, err := latencyShares(x); err != nil {
				p.errorf(path, where, "latency_shares: %v", err)
			} else {
				s.LatencyShares = d
			}
		case "before_study", "before_cell", "before_run", "after_run":
			if cmd, ok := p.command(path, where, k, x); ok {
				switch k {
				case "before_study":
					s.Hooks.BeforeStudy = cmd
				case "before_cell":
					s.Hooks.BeforeCell = cmd
				case "before_run":
					s.Hooks.BeforeRun = cmd
				default:
					s.Hooks.AfterRun = cmd
				}
			}
		case "hook_timeout":
			if d, ok := p.duration(path, where, k, x, true); ok {
				if d > maxHookTimeout {
					p.errorf(path, where, "hook_timeout must be at most %s, got %s", maxHookTimeout, d)
				} else {
					s.Hooks.Timeout = d
				}
			}
		default:
			p.errorf(path, where, "unknown key %q (known keys: %s)", k, strings.Join(studyKeys, ", "))
		}
	}
	p.autoRepetitions(s, m)
}

// defaultInterval is the pooled interval's half width, in %, that
// repetitions = "auto" aims at without an interval key.
const defaultInterval = 5.0

// autoRepetitions checks the keys of repetitions = "auto" together: it
// needs max_repetitions and interleaved rounds (the pilot is the first
// rounds of every cell), and the keys that size it mean nothing without it.
func (p *parser) autoRepetitions(s *Study, m map[string]any) {
	const where = "study"
	_, hasMax := m["max_repetitions"]
	_, hasInterval := m["interval"]
	if !s.AutoRepetitions {
		for _, k := range []string{"max_repetitions", "interval"} {
			if _, ok := m[k]; ok {
				p.errorf("study."+k, where, `%s sizes repetitions = "auto": set repetitions = "auto" or remove %s`, k, k)
			}
		}
		return
	}
	if !hasMax {
		p.errorf("study.repetitions", where, `repetitions = "auto" needs max_repetitions = N (3 to 1000), the most rounds it may run`)
	} else {
		s.Repetitions = s.MaxRepetitions // the plan, and its estimate, are the worst case
	}
	if !hasInterval {
		s.Interval = defaultInterval
	}
	if o, ok := m["order"].(string); ok && o != orderInterleaved {
		p.errorf("study.order", where, `repetitions = "auto" needs order = %q (its pilot is the first rounds of every cell), got %q`, orderInterleaved, o)
	}
}

var targetKeys = []string{"name", "url", "cores", "cpu", "price_per_hour", "notes", "node_exporter", "server_view", "baseline", "restart", "drop_caches"}

// ServerViewOff is Target.ServerView for server_view = "off".
const ServerViewOff time.Duration = -1

// Bounds of server_view: a sample more often than every 100 ms costs the
// server more than the 1 % fairbench allows its own view, and one less
// often than every hour says nothing of a run.
const (
	minServerView = 100 * time.Millisecond
	maxServerView = time.Hour
)

// ServerViewInterval is the time between two samples of the target's server
// view, def when the study does not say; 0 when it is off.
func (t *Target) ServerViewInterval(def time.Duration) time.Duration {
	switch {
	case t == nil || t.ServerView == 0:
		return def
	case t.ServerView < 0:
		return 0
	}
	return t.ServerView
}

func (p *parser) target(i int, m map[string]any) *Target {
	base := index("target", i)
	t := &Target{}
	if at, ok := p.pos[base]; ok {
		t.Line = at.line
	}
	where := fmt.Sprintf("target #%d", i+1)
	if name, ok := m["name"].(string); ok && name != "" {
		where = fmt.Sprintf("target %q", name)
	}
	for _, k := range sortedKeys(m) {
		path := base + "." + k
		x := m[k]
		switch k {
		case "name":
			if str, ok := p.name(path, where, k, x); ok {
				if str == "" {
					p.errorf(path, where, "name must not be empty")
				}
				t.Name = str
			}
		case "url":
			if str, ok := p.str(path, where, k, x); ok {
				if str == "" {
					p.errorf(path, where, "url must not be empty")
				}
				t.URL = str
			}
		case "cores":
			if n, ok := p.integer(path, where, k, x, 0); ok {
				t.Cores = n
			}
		case "cpu":
			if str, ok := p.name(path, where, k, x); ok {
				t.CPU = str
			}
		case "price_per_hour":
			if f, ok := p.number(path, where, k, x); ok {
				t.PricePerHour = f
			}
		case "notes":
			if str, ok := p.str(path, where, k, x); ok {
				t.Notes = str
			}
		case "node_exporter":
			if str, ok := p.str(path, where, k, x); ok {
				if !strings.HasPrefix(str, "http://") && !strings.HasPrefix(str, "https://") {
					p.errorf(path, where, "node_exporter must be an http(s) URL such as http://host:9100/metrics")
				}
				t.NodeExporter = str
			}
		case "server_view":
			if x == "off" {
				t.ServerView = ServerViewOff
			} else if d, ok := p.duration(path, where, k, x, true); ok {
				if d < minServerView || d > maxServerView {
					p.errorf(path, where, `server_view must be "off" or a duration from %v to %v, got %v`, minServerView, maxServerView, d)
				} else {
					t.ServerView = d
				}
			}
		case "baseline":
			if b, ok := x.(bool); ok {
				t.Baseline = b
			} else {
				p.errorf(path, where, "baseline must be true or false, got %s", describe(x))
			}
		case "restart":
			if cmd, ok := p.command(path, where, k, x); ok {
				t.Restart = cmd
			}
		case "drop_caches":
			if b, ok := x.(bool); ok {
				t.DropCaches = b
			} else {
				p.errorf(path, where, "drop_caches must be true or false, got %s", describe(x))
			}
		default:
			p.errorf(path, where, "unknown key %q (known keys: %s)", k, strings.Join(targetKeys, ", "))
		}
	}
	if t.DropCaches && t.URL != "" && !driver.Local(t.URL) {
		p.errorf(base+".drop_caches", where, "drop_caches drops this host's page cache, but the target's server is not on this host: "+
			"drop its caches in restart (restart = \"ssh dbhost 'sudo systemctl restart postgresql && sync && echo 3 | sudo tee /proc/sys/vm/drop_caches'\")")
	}
	if _, ok := m["name"]; !ok {
		p.errorf(base, where, "name is required: results are compared by target name")
	}
	if _, ok := m["url"]; !ok {
		p.errorf(base, where, "url is required")
	}
	return t
}

func (p *parser) uniqueTargets(ts []*Target) {
	seen := map[string]*Target{}
	for i, t := range ts {
		if t.Name == "" {
			continue
		}
		if first, dup := seen[t.Name]; dup {
			p.errorf(index("target", i)+".name", fmt.Sprintf("target %q", t.Name),
				"name %q is already used by the target on line %d: target names must be unique", t.Name, first.Line)
			continue
		}
		seen[t.Name] = t
	}
}

// oneBaselinePerEngine refuses two baselines of one URL scheme: a report
// compares each target with the baseline of its own scheme (its driver),
// and two would leave that engine's targets without one.
func (p *parser) oneBaselinePerEngine(ts []*Target) {
	byScheme := map[string]*Target{}
	for i, t := range ts {
		if !t.Baseline {
			continue
		}
		scheme, _, _ := strings.Cut(t.URL, ":")
		if first, dup := byScheme[scheme]; dup {
			p.errorf(index("target", i)+".baseline", fmt.Sprintf("target %q", t.Name),
				"baseline: %q on line %d is already the baseline of the %s:// targets; mark one baseline per engine", first.Name, first.Line, scheme)
			continue
		}
		byScheme[scheme] = t
	}
}

// Baselines names the targets marked baseline = true, in file order.
func (s *Study) Baselines() []string {
	var names []string
	for _, t := range s.Targets {
		if t.Baseline {
			names = append(names, t.Name)
		}
	}
	return names
}

// BaselinesOf reads the targets marked baseline = true from a study file
// as a results file stores it, for reports; nil when none is (or the file
// is unreadable: it was checked when it ran).
func BaselinesOf(src []byte) []string {
	var doc struct {
		Target []struct {
			Name     string `toml:"name"`
			Baseline any    `toml:"baseline"`
		} `toml:"target"`
	}
	if err := toml.Unmarshal(src, &doc); err != nil {
		return nil
	}
	var names []string
	for _, t := range doc.Target {
		if b, _ := t.Baseline.(bool); b && t.Name != "" {
			names = append(names, t.Name)
		}
	}
	return names
}

var workloadKeys = []string{"name", "kind", "tool", "clients", "clients_per_thread", "targets", "warmup", "duration", "cooldown", "rate", "latency_limit", "max_tries", "threads", "generators"}

func (p *parser) workload(i int, m map[string]any, targets []*Target) *Workload {
	base := index("workload", i)
	w := &Workload{ClientsPerThread: 1, MaxTries: 1, Params: map[string][]any{}}
	if at, ok := p.pos[base]; ok {
		w.Line = at.line
	}
	where := fmt.Sprintf("workload #%d", i+1)
	if name, ok := m["name"].(string); ok && name != "" {
		where = fmt.Sprintf("workload %q", name)
	} else if kind, ok := m["kind"].(string); ok && kind != "" {
		where = fmt.Sprintf("workload %q", kind)
	}

	var specs []params.Spec
	kindOK := false
	_, hasKind := m["kind"]
	if x, ok := m["tool"]; ok {
		if name, ok := p.str(base+".tool", where, "tool", x); ok {
			if toolKind, ok := p.cat.Tool(name); !ok {
				p.errorf(base+".tool", where, "tool = %q: fairbench can run %s", name, strings.Join(p.cat.Tools(), ", "))
			} else {
				w.Tool = name
				if !hasKind {
					// The tool's kind: its runs group with native runs of that kind.
					w.Kind = toolKind
					specs, kindOK = p.cat.Params(toolKind)
				}
			}
		}
	}
	if x, ok := m["kind"]; !ok {
		if w.Tool == "" {
			p.errorf(base, where, "kind is required (known kinds: %s)", strings.Join(p.kinds(), ", "))
		}
	} else if kind, ok := p.str(base+".kind", where, "kind", x); ok {
		w.Kind = kind
		if specs, kindOK = p.cat.Params(kind); !kindOK {
			p.errorf(base+".kind", where, "unknown kind %q (known kinds: %s)", kind, strings.Join(p.kinds(), ", "))
		}
	}
	w.Name = w.Kind

	for _, k := range sortedKeys(m) {
		path := base + "." + k
		x := m[k]
		switch k {
		case "kind", "tool":
		case "name":
			if str, ok := p.name(path, where, k, x); ok {
				if str == "" {
					p.errorf(path, where, "name must not be empty")
				} else {
					w.Name = str
				}
			}
		case "clients":
			if at, ok := p.pos[path]; ok {
				w.clientsLine, w.clientsCol = at.line, at.col
			}
			w.Clients = p.clients(path, where, x)
		case "clients_per_thread":
			if n, ok := p.integer(path, where, k, x, 1); ok {
				w.ClientsPerThread = n
			}
		case "targets":
			w.Targets = p.targetRefs(path, where, x, targets)
		case "warmup", "duration", "cooldown":
			if d, ok := p.duration(path, where, k, x, k == "duration"); ok {
				switch k {
				case "warmup":
					w.Warmup = &d
				case "duration":
					w.Duration = &d
				case "cooldown":
					w.Cooldown = &d
				}
			}
		case "rate":
			if f, ok := p.number(path, where, k, x); ok {
				w.Rate = f
			}
		case "latency_limit":
			if d, ok := p.duration(path, where, k, x, false); ok {
				w.LatencyLimit = d
			}
		case "max_tries":
			if n, ok := p.integer(path, where, k, x, 1); ok {
				w.MaxTries = n
			}
		case "threads":
			if n, ok := p.integer(path, where, k, x, 1); ok {
				w.Threads = n
			}
		case "generators":
			if n, ok := p.integer(path, where, k, x, 1); ok {
				w.Generators = n
			}
		default:
			if !kindOK {
				// Without a known kind there is no way to tell a parameter
				// from a typo; the kind error already says what to fix.
				continue
			}
			spec, ok := params.Find(specs, k)
			if !ok {
				p.errorf(path, where, "unknown key %q: neither a workload key (%s) nor a parameter of kind %q (%s)",
					k, strings.Join(workloadKeys, ", "), w.Kind, strings.Join(specNames(specs), ", "))
				continue
			}
			if vals, ok := p.param(path, where, spec, x); ok {
				w.Params[k] = vals
			}
		}
	}
	if len(w.Clients) == 0 {
		w.Clients = []ClientLevel{{N: 1}}
	}
	return w
}

func (p *parser) uniqueWorkloads(ws []*Workload) {
	seen := map[string]*Workload{}
	for i, w := range ws {
		if w.Name == "" {
			continue
		}
		if first, dup := seen[w.Name]; dup {
			path := index("workload", i) + ".name"
			msg := fmt.Sprintf("name %q is already used by the workload on line %d: workload names must be unique", w.Name, first.Line)
			if _, given := p.pos[path]; !given {
				msg += " (a workload without a name is named after its kind: give it a name)"
			}
			p.errorf(path, fmt.Sprintf("workload %q", w.Name), "%s", msg)
			continue
		}
		seen[w.Name] = w
	}
}

// param coerces a parameter value; an array is a sweep over its elements,
// except for a list-valued parameter, where only an array of arrays sweeps.
func (p *parser) param(path, where string, spec params.Spec, x any) ([]any, bool) {
	raw, isArray := x.([]any)
	if spec.Kind == params.StringList && isArray && (len(raw) == 0 || !isList(raw[0])) {
		raw, isArray = []any{x}, false
	}
	if !isArray {
		raw = []any{x}
	} else if len(raw) == 0 {
		p.errorf(path, where, "%s is an empty list: give at least one value to sweep", spec.Name)
		return nil, false
	}
	out := make([]any, 0, len(raw))
	seen := map[string]bool{}
	ok := true
	for i, r := range raw {
		at := path
		if isArray {
			at = index(path, i)
		}
		v, err := params.Coerce(spec, r)
		if err != nil {
			p.errorf(at, where, "%v", err)
			ok = false
			continue
		}
		// A repeated value would make two cells with the same identity, which
		// --resume could not tell apart.
		f := params.Format(v)
		if seen[f] {
			p.errorf(at, where, "%s lists %s twice", spec.Name, f)
			ok = false
			continue
		}
		seen[f] = true
		out = append(out, v)
	}
	return out, ok
}

func isList(x any) bool {
	_, ok := x.([]any)
	return ok
}

func (p *parser) clients(path, where string, x any) []ClientLevel {
	raw, isArray := x.([]any)
	if !isArray {
		raw = []any{x}
	} else if len(raw) == 0 {
		p.errorf(path, where, "clients is an empty list: give at least one client count")
		return nil
	}
	var out []ClientLevel
	for i, r := range raw {
		at, which := path, ""
		if isArray {
			at, which = index(path, i), fmt.Sprintf(" entry %d", i+1)
		}
		c, err := parseClientLevel(r)
		if err != nil {
			p.errorf(at, where, "clients%s: %v", which, err)
			continue
		}
		out = append(out, c)
	}
	return out
}

func parseClientLevel(r any) (ClientLevel, error) {
	const want = "must be a positive integer or a percentage of the target's hardware threads such as \"40%\""
	switch v := r.(type) {
	case int64:
		if v <= 0 {
			return ClientLevel{}, fmt.Errorf("%d %s", v, want)
		}
		if v > params.MaxClients {
			return ClientLevel{}, fmt.Errorf("%d is more than %d, the most clients a cell runs", v, params.MaxClients)
		}
		return ClientLevel{N: int(v)}, nil
	case string:
		num, isPct := strings.CutSuffix(strings.TrimSpace(v), "%")
		if !isPct {
			return ClientLevel{}, fmt.Errorf("%q %s", v, want)
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || !(f > 0 && f <= 100) {
			return ClientLevel{}, fmt.Errorf("%q: a percentage must be more than 0%% and at most 100%%", v)
		}
		return ClientLevel{Percent: f}, nil
	}
	return ClientLevel{}, fmt.Errorf("%s %s", describe(r), want)
}

func (p *parser) targetRefs(path, where string, x any, targets []*Target) []string {
	raw, isArray := x.([]any)
	if !isArray {
		raw = []any{x}
	} else if len(raw) == 0 {
		p.errorf(path, where, "targets is an empty list: leave it out to run on every target")
		return nil
	}
	var names []string
	for _, t := range targets {
		if t.Name != "" {
			names = append(names, t.Name)
		}
	}
	var out []string
	for i, r := range raw {
		at := path
		if isArray {
			at = index(path, i)
		}
		name, ok := r.(string)
		if !ok {
			p.errorf(at, where, "targets must list target names (strings), got %s", describe(r))
			continue
		}
		if !slices.Contains(names, name) {
			p.errorf(at, where, "targets: no target is named %q (targets: %s)", name, strings.Join(names, ", "))
			continue
		}
		out = append(out, name)
	}
	return out
}

func (p *parser) kinds() []string {
	k := slices.Clone(p.cat.Kinds())
	sort.Strings(k)
	return k
}

// command reads a shell command (a hook, a restart): a non-empty string
// without a NUL byte, which no command line can hold.
func (p *parser) command(path, where, key string, x any) (string, bool) {
	s, ok := p.str(path, where, key, x)
	switch {
	case !ok:
		return "", false
	case strings.TrimSpace(s) == "":
		p.errorf(path, where, "%s is empty: give a command (run with sh -c), or remove the key", key)
		return "", false
	case strings.ContainsRune(s, 0):
		p.errorf(path, where, "%s holds a NUL byte, which no command line can hold", key)
		return "", false
	}
	return s, true
}

func (p *parser) str(path, where, key string, x any) (string, bool) {
	s, ok := x.(string)
	if !ok {
		p.errorf(path, where, "%s must be a string, got %s", key, describe(x))
	}
	return s, ok
}

// name reads a string that reports and the terminal show as a name: one
// holding a control character (an ANSI escape, \r, a line feed) or a bidi
// override is refused, since it would move the cursor or reorder the text
// around it wherever it is printed.
func (p *parser) name(path, where, key string, x any) (string, bool) {
	s, ok := p.str(path, where, key, x)
	if !ok {
		return "", false
	}
	if r, bad := escape.Hostile(s); bad {
		// Kept, so that no "name must be given" follows this error.
		p.errorf(path, where, "%s %q holds the control character %U: write names in printable characters", key, s, r)
	}
	return s, true
}

func (p *parser) integer(path, where, key string, x any, min int64) (int, bool) {
	n, ok := x.(int64)
	if !ok {
		p.errorf(path, where, "%s must be an integer, got %s", key, describe(x))
		return 0, false
	}
	if n < min {
		p.errorf(path, where, "%s must be at least %d, got %d", key, min, n)
		return 0, false
	}
	if most, ok := integerMax[key]; ok && n > most {
		p.errorf(path, where, "%s must be at most %d, got %d", key, most, n)
		return 0, false
	}
	return int(n), true
}

// integerMax bounds the integer keys of a study file: past these, a value
// is a typo that would size a loop or a plan beyond any machine.
var integerMax = map[string]int64{
	"repetitions": 1000, "max_repetitions": 1000, "clients_per_thread": 10_000, "max_tries": 1000, "threads": 10_000,
	"generators": 1000, "cores": 1_000_000,
}

func (p *parser) number(path, where, key string, x any) (float64, bool) {
	var f float64
	switch v := x.(type) {
	case int64:
		f = float64(v)
	case float64:
		f = v
	default:
		p.errorf(path, where, "%s must be a number, got %s", key, describe(x))
		return 0, false
	}
	if f < 0 {
		p.errorf(path, where, "%s must not be negative, got %v", key, f)
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		p.errorf(path, where, "%s must be a finite number, got %v", key, f)
		return 0, false
	}
	return f, true
}

// duration accepts what params does for duration parameters — Go duration
// strings or a number of seconds — so the file has one notation throughout.
func (p *parser) duration(path, where, key string, x any, positive bool) (time.Duration, bool) {
	d, err := params.Coerce(params.Spec{Name: key, Kind: params.Duration}, x)
	if err != nil {
		p.errorf(path, where, "%v", err)
		return 0, false
	}
	if positive && d.(time.Duration) <= 0 {
		p.errorf(path, where, "%s must be more than zero", key)
		return 0, false
	}
	return d.(time.Duration), true
}

func specNames(specs []params.Spec) []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.Name
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func describe(x any) string {
	switch x.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case toml.LocalDate, toml.LocalTime, toml.LocalDateTime, time.Time:
		return "a date or time"
	}
	return fmt.Sprintf("%T", x)
}

// latencyShares reads the latency_shares key: a list of durations as strings.
func latencyShares(x any) ([]time.Duration, error) {
	list, ok := x.([]any)
	if !ok {
		return nil, fmt.Errorf("must be a list of durations such as [\"1ms\", \"5ms\", \"50ms\"], got %s", describe(x))
	}
	ss := make([]string, len(list))
	for i, v := range list {
		str, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("must be a list of durations as strings such as \"1ms\", got %s", describe(v))
		}
		ss[i] = str
	}
	return analysis.ParseShareThresholds(ss)
}

// LatencySharesOf reads the latency_shares key from a study file as a
// results file stores it, for reports; ok is false when the file does not
// set it (or the key is unreadable: the file was checked when it ran).
func LatencySharesOf(src []byte) (shares []time.Duration, ok bool) {
	var doc struct {
		Study struct {
			LatencyShares any `toml:"latency_shares"`
		} `toml:"study"`
	}
	if err := toml.Unmarshal(src, &doc); err != nil || doc.Study.LatencyShares == nil {
		return nil, false
	}
	d, err := latencyShares(doc.Study.LatencyShares)
	return d, err == nil
}
