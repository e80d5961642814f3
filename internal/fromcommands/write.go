package fromcommands

import (
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/fairbench/fairbench/internal/escape"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/study"
)

// group is the cells of one command shape: one study workload.
type group struct {
	kind, program, target string
	tool                  string // a tool cell's tool, "" for a native workload
	params                map[string][]any
	duration, warmup      time.Duration
	rate                  float64
	maxTries              int
	latencyLimit          time.Duration
	clients, threads      []int
	lines                 []string // "line 3: TEXT (for t in …)" per line, once
	notes                 []string
}

// key is a cell's shape: everything but its clients and threads.
func shapeKey(kind, target string, w *study.Workload, st *study.Study) string {
	return fmt.Sprintf("%s|%s|%s|%s|%s|%g|%d|%s", kind, target, params.Values(flatten(w.Params)).Canonical(),
		st.Duration, st.Warmup, w.Rate, w.MaxTries, w.LatencyLimit)
}

// flatten is a cell's parameters, one value each.
func flatten(p map[string][]any) map[string]any {
	out := make(map[string]any, len(p))
	for k, v := range p {
		if len(v) == 1 {
			out[k] = v[0]
		}
	}
	return out
}

// targetOf is the URL a study target is given, without the password a line
// carried (the study holds none).
func targetOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.User(u.User.Username())
	}
	return u.String()
}

// groups are the result's cells by shape, in the order their first line
// comes, each load step's parameters (pgbench -i -s 100) given to the runs
// of its kind and target that do not set them.
func (r *Result) groups() []*group {
	loaded := map[string]map[string][]any{}
	for _, l := range r.loads {
		k := l.kind + "|" + targetOf(l.parsed.Target)
		if loaded[k] == nil {
			loaded[k] = map[string][]any{}
		}
		for p, v := range l.parsed.Cell.Study.Workloads[0].Params {
			loaded[k][p] = v
		}
	}
	var out []*group
	byKey := map[string]*group{}
	for _, c := range r.cells {
		st := c.parsed.Cell.Study
		w := st.Workloads[0]
		target := targetOf(c.parsed.Target)
		for p, v := range loaded[c.kind+"|"+target] {
			if _, ok := w.Params[p]; !ok {
				w.Params[p] = v
			}
		}
		key := c.tool + "|" + shapeKey(c.kind, target, w, st)
		g, ok := byKey[key]
		if !ok {
			g = &group{kind: c.kind, tool: c.tool, program: c.program, target: target, params: w.Params, duration: st.Duration, warmup: st.Warmup,
				rate: w.Rate, maxTries: w.MaxTries, latencyLimit: w.LatencyLimit}
			byKey[key] = g
			out = append(out, g)
		}
		for _, level := range w.Clients {
			if !slices.Contains(g.clients, level.N) {
				g.clients = append(g.clients, level.N)
				g.threads = append(g.threads, w.Threads)
			}
		}
		line := fmt.Sprintf("line %d: %s", c.line, c.text)
		if c.loop != "" {
			line += " (" + c.loop + ")"
		}
		if !slices.Contains(g.lines, line) {
			g.lines = append(g.lines, line)
		}
		if c.password {
			c.notes = append(c.notes, "the line gives a password, which the study does not hold: set it in the environment variable the target's driver reads (PGPASSWORD, MYSQL_PWD, REDISCLI_AUTH)")
		}
		if c.parsed.Cell.Progress > 0 {
			c.notes = append(c.notes, "its progress interval has no study key: 'fairbench report' shows each run's per-second series")
		}
		for _, n := range c.notes {
			if !slices.Contains(g.notes, n) {
				g.notes = append(g.notes, n)
			}
		}
	}
	shareServers(out)
	return out
}

// shareServers gives a tool cell whose line names a server but no
// database (mysqlslap's, which creates its own schema) the target of
// another line on that server, user and port, so that one server is one
// target.
func shareServers(groups []*group) {
	for _, g := range groups {
		u, err := url.Parse(g.target)
		if err != nil || g.tool == "" || strings.Trim(u.Path, "/") != "" {
			continue
		}
		for _, o := range groups {
			v, err := url.Parse(o.target)
			if err == nil && o != g && v.Scheme == u.Scheme && v.Host == u.Host && v.User.String() == u.User.String() && strings.Trim(v.Path, "/") != "" {
				g.target = o.target
				break
			}
		}
	}
}

// Write writes the study file (every line quoted in a comment escaped
// as a terminal line is: TOML comments take no control character): a header saying where it came from and
// what is left to fill in, the targets, one workload per command shape
// with a comment per line it came from, and the lines left unmapped as
// comments at the end.
func (r *Result) Write(w io.Writer) error {
	var b strings.Builder
	base := escape.Terminal(filepath.Base(r.File))
	fmt.Fprintf(&b, "# Written by 'fairbench study from-commands %s': each workload below\n", base)
	fmt.Fprintf(&b, "# says which of the file's lines it stands for. Check the targets' URLs; passwords\n")
	fmt.Fprintf(&b, "# stay out of this file (PGPASSWORD, MYSQL_PWD, REDISCLI_AUTH in the environment).\n")
	groups := r.groups()
	if len(groups) == 0 {
		return fmt.Errorf("%s: no line maps to a fairbench workload (%d unmapped)", r.File, len(r.skipped))
	}
	fmt.Fprintf(&b, "\n[study]\nname = %s\nrepetitions = 1\norder = \"interleaved\"\n", tomlValue("from "+base))
	names := map[string]string{} // target URL → name
	var targets []string
	for _, g := range groups {
		if _, ok := names[g.target]; !ok {
			names[g.target] = uniqueName(targetName(g.target), names)
			targets = append(targets, g.target)
		}
	}
	for _, t := range targets {
		fmt.Fprintf(&b, "\n[[target]]\nname = %s\nurl = %s\n", tomlValue(names[t]), tomlValue(t))
	}
	for _, l := range r.loads {
		fmt.Fprintf(&b, "\n# line %d: %s: the load step; each workload on its target loads its data\n# before its first run when missing (its parameters reach the runs of that target)\n", l.line, escape.Terminal(l.text))
	}
	for _, c := range r.comments {
		fmt.Fprintf(&b, "\n# %s\n", escape.Terminal(c))
	}
	for i, g := range groups {
		writeGroup(&b, g, fmt.Sprintf("%s-%d", g.program, i+1), names[g.target])
	}
	if len(r.skipped) > 0 {
		fmt.Fprintf(&b, "\n# Lines not mapped to a workload:\n")
		for _, u := range r.Unmapped() {
			fmt.Fprintf(&b, "#   %s\n", escape.Terminal(u))
		}
	}
	out := b.String()
	var fill strings.Builder
	for _, v := range r.vars {
		if strings.Contains(out, placeholder(v)) {
			out = strings.ReplaceAll(out, placeholder(v), "${"+v+"}")
			fmt.Fprintf(&fill, "# ${%s} is left as the file wrote it: fill it in before running.\n", v)
		}
	}
	header, body, _ := strings.Cut(out, "\n[study]")
	// The lines are quoted as written, and a line may give a password.
	_, err := io.WriteString(w, redact.Scrub(header+fill.String()+"\n[study]"+body))
	return err
}

// writeGroup writes one workload.
func writeGroup(b *strings.Builder, g *group, name, target string) {
	b.WriteString("\n")
	for _, l := range g.lines {
		fmt.Fprintf(b, "# %s\n", escape.Terminal(l))
	}
	clients := make([]string, len(g.clients))
	for i, n := range g.clients {
		clients[i] = strconv.Itoa(n)
	}
	what := "workload " + g.kind
	if g.tool != "" {
		what = "a cell of the tool " + g.tool + ", which the study runs"
	}
	fmt.Fprintf(b, "#   → %s, clients %s\n", what, strings.Join(clients, ", "))
	for _, n := range g.notes {
		fmt.Fprintf(b, "#   %s\n", escape.Terminal(n))
	}
	threads, threadNote := threadsOf(g)
	if threadNote != "" {
		fmt.Fprintf(b, "#   %s\n", threadNote)
	}
	fmt.Fprintf(b, "[[workload]]\nname = %s\n", tomlValue(name))
	if g.tool != "" {
		fmt.Fprintf(b, "tool = %s\n", tomlValue(g.tool))
	} else {
		fmt.Fprintf(b, "kind = %s\n", tomlValue(g.kind))
	}
	fmt.Fprintf(b, "targets = [%s]\nclients = [%s]\n", tomlValue(target), strings.Join(clients, ", "))
	if g.tool == "" { // a tool cell runs for what its line says (mysqlslap: its queries)
		fmt.Fprintf(b, "duration = %s\nwarmup = %s\n", tomlValue(durationText(g.duration)), tomlValue(durationText(g.warmup)))
	}
	if threads > 0 {
		fmt.Fprintf(b, "threads = %d\n", threads)
	}
	if g.rate > 0 {
		fmt.Fprintf(b, "rate = %s\n", tomlValue(g.rate))
	}
	if g.latencyLimit > 0 {
		fmt.Fprintf(b, "latency_limit = %s\n", tomlValue(durationText(g.latencyLimit)))
	}
	if g.maxTries > 1 {
		fmt.Fprintf(b, "max_tries = %d\n", g.maxTries)
	}
	keys := make([]string, 0, len(g.params))
	for k := range g.params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if v := g.params[k]; len(v) == 1 {
			fmt.Fprintf(b, "%s = %s\n", k, tomlValue(v[0]))
		}
	}
}

// threadsOf is the workload's threads: the lines' one value, or none
// when they varied (with the clients, as `-c $t -j $t` does), which says so.
func threadsOf(g *group) (int, string) {
	t := g.threads[0]
	for _, x := range g.threads[1:] {
		if x != t {
			return 0, "the threads varied from line to line: left to fairbench's default (this machine's CPUs, each multiplexing its share of the clients)"
		}
	}
	return t, ""
}

// durationText writes d as a study writes durations: "60s", "1m30s".
func durationText(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return d.String()
}

// tomlValue is v written as a TOML value, durations as their text.
func tomlValue(v any) string {
	if d, ok := v.(time.Duration); ok {
		v = durationText(d)
	}
	out, err := toml.Marshal(map[string]any{"v": v})
	if err != nil {
		return strconv.Quote(fmt.Sprint(v))
	}
	return strings.TrimSpace(strings.TrimPrefix(string(out), "v = "))
}

// targetName is a target's name from its URL: scheme, host and database.
func targetName(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	return u.Scheme + " " + u.Host + u.Path
}

// uniqueName is name, or name with a number, not among taken's values.
func uniqueName(name string, taken map[string]string) string {
	used := func(n string) bool {
		for _, t := range taken {
			if t == n {
				return true
			}
		}
		return false
	}
	out := name
	for i := 2; used(out); i++ {
		out = fmt.Sprintf("%s (%d)", name, i)
	}
	return out
}
