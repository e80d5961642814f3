package adapter

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/params"
)

// Invocation is what a command builder needs from a study cell. It is a
// plain struct rather than the study's cell so that this package stays below
// the study package.
type Invocation struct {
	URL          string
	Clients      int
	Duration     time.Duration
	Params       params.Values
	Rate         float64       // operations per second over all clients; 0 = closed loop
	LatencyLimit time.Duration // pgbench -L
	MaxTries     int
	// Threads caps the tool's client threads (pgbench -j); 0 = one per client.
	Threads int
	// LogDir, for a tool with AttachLogDir, is an empty directory the tool
	// writes its side logs into; "" for none.
	LogDir string
}

// Command is one tool execution. Secrets travel in Env (PGPASSWORD,
// MYSQL_PWD, REDISCLI_AUTH), never in Argv, which is stored with the run.
type Command struct {
	Argv []string
	Env  []string
}

// tool-specific parameter specs for kinds fairbench has no native workload of.
var toolKindParams = map[string][]params.Spec{
	"fio": {
		{Name: "preset", Kind: params.String, Default: "randrw", Choices: []string{"randrw", "seqread", "seqwrite"},
			Help: "randrw: random 80/20 read/write, 8k, iodepth 32; seqread / seqwrite: 1M, iodepth 16 (the shapes of published disk studies)"},
		{Name: "size", Kind: params.String, Default: "1G", Help: "file size per job (fio --size)"},
		{Name: "direct", Kind: params.Bool, Default: true, Help: "O_DIRECT, bypassing the page cache"},
		{Name: "ioengine", Kind: params.String, Default: "libaio", Help: "fio --ioengine"},
	},
	"kv": {
		{Name: "command", Kind: params.String, Default: "GET", Help: "redis-benchmark test (-t): GET, SET, INCR, ..."},
		{Name: "pipeline", Kind: params.Int, Default: int64(1), Min: params.MinOf(1), Help: "requests per round trip (-P)"},
		{Name: "data_size", Kind: params.Int, Default: int64(3), Min: params.MinOf(1), Help: "value size in bytes (-d)"},
	},
}

// KindParams returns the parameters of a kind only tools run (fio, kv).
func KindParams(kind string) ([]params.Spec, bool) {
	s, ok := toolKindParams[kind]
	return s, ok
}

// fioPresets are the job shapes of published disk studies.
var fioPresets = map[string][]string{
	"randrw":   {"--rw=randrw", "--rwmixread=80", "--bs=8k", "--iodepth=32"},
	"seqread":  {"--rw=read", "--bs=1M", "--iodepth=16"},
	"seqwrite": {"--rw=write", "--bs=1M", "--iodepth=16"},
}

func secs(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s < 1 {
		s = 1
	}
	return strconv.Itoa(s)
}

// hostPort splits a URL's host, leaving the port empty when not given.
func hostPort(u *url.URL) (string, string) { return u.Hostname(), u.Port() }

func buildPgbench(inv Invocation) (Command, error) {
	u, err := url.Parse(inv.URL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return Command{}, fmt.Errorf("pgbench needs a postgres:// target")
	}
	var c Command
	a := []string{"pgbench"}
	if h, p := hostPort(u); h != "" {
		a = append(a, "-h", h)
		if p != "" {
			a = append(a, "-p", p)
		}
	}
	if u.User != nil {
		a = append(a, "-U", u.User.Username())
		if pw, ok := u.User.Password(); ok {
			c.Env = append(c.Env, "PGPASSWORD="+pw)
		}
	}
	if m := u.Query().Get("sslmode"); m != "" {
		c.Env = append(c.Env, "PGSSLMODE="+m)
	}
	p := inv.Params
	switch p.String("mode") {
	case "select-only":
		a = append(a, "-S")
	case "simple-update":
		a = append(a, "-N")
	}
	jobs := inv.Clients
	if inv.Threads > 0 {
		jobs = min(inv.Threads, inv.Clients)
	}
	a = append(a, "-M", p.String("query_mode"), "-c", strconv.Itoa(inv.Clients), "-j", strconv.Itoa(jobs),
		"-T", secs(inv.Duration), "-P", "1")
	if v, ok := p["vacuum"].(bool); ok && !v {
		a = append(a, "-n")
	}
	if inv.Rate > 0 {
		a = append(a, "-R", strconv.FormatFloat(inv.Rate, 'f', -1, 64))
	}
	if inv.LatencyLimit > 0 {
		a = append(a, "-L", strconv.FormatFloat(float64(inv.LatencyLimit)/float64(time.Millisecond), 'f', -1, 64))
	}
	if inv.MaxTries > 1 {
		a = append(a, "--max-tries", strconv.Itoa(inv.MaxTries))
	}
	if inv.LogDir != "" {
		// Per-transaction logs, one file per thread: the run's exact latency
		// distribution, which pgbench's summary lacks.
		a = append(a, pgbenchLogArgs(inv.LogDir)...)
	}
	a = append(a, strings.TrimPrefix(u.Path, "/"))
	c.Argv = a
	return c, nil
}

func buildSysbench(inv Invocation) (Command, error) {
	u, err := url.Parse(inv.URL)
	if err != nil {
		return Command{}, err
	}
	var c Command
	a := []string{"sysbench", "oltp_" + inv.Params.String("mode")}
	switch u.Scheme {
	case "mysql", "mariadb":
		a = append(a, "--db-driver=mysql")
		h, p := hostPort(u)
		a = append(a, "--mysql-host="+h)
		if p != "" {
			a = append(a, "--mysql-port="+p)
		}
		if u.User != nil {
			a = append(a, "--mysql-user="+u.User.Username())
			if pw, ok := u.User.Password(); ok {
				c.Env = append(c.Env, "MYSQL_PWD="+pw)
			}
		}
		a = append(a, "--mysql-db="+strings.TrimPrefix(u.Path, "/"))
	case "postgres", "postgresql":
		// sysbench's pgsql driver takes the password only as a flag, which
		// would put it in the stored command line.
		if u.User != nil {
			if _, ok := u.User.Password(); ok {
				return Command{}, fmt.Errorf("sysbench's PostgreSQL driver takes the password only on the command line; use a password-less role (trust or peer) for sysbench")
			}
		}
		h, p := hostPort(u)
		a = append(a, "--db-driver=pgsql", "--pgsql-host="+h)
		if p != "" {
			a = append(a, "--pgsql-port="+p)
		}
		if u.User != nil {
			a = append(a, "--pgsql-user="+u.User.Username())
		}
		a = append(a, "--pgsql-db="+strings.TrimPrefix(u.Path, "/"))
	default:
		return Command{}, fmt.Errorf("sysbench needs a mysql:// or postgres:// target")
	}
	p := inv.Params
	a = append(a, "--tables="+strconv.FormatInt(p.Int("tables"), 10), "--table-size="+strconv.FormatInt(p.Int("table_size"), 10),
		"--threads="+strconv.Itoa(inv.Clients), "--time="+secs(inv.Duration), "--report-interval=1", "--histogram=on")
	if inv.Rate > 0 {
		a = append(a, "--rate="+strconv.FormatFloat(inv.Rate, 'f', 0, 64))
	}
	c.Argv = append(a, "run")
	return c, nil
}

// buildFio runs the preset in the target's directory: a fio target is
// written file:///path/to/dir.
func buildFio(inv Invocation) (Command, error) {
	u, err := url.Parse(inv.URL)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return Command{}, fmt.Errorf("fio needs a file:///directory target (the directory fio writes its files in)")
	}
	p := inv.Params
	preset := p.String("preset")
	a := []string{"fio", "--name=" + preset, "--directory=" + u.Path}
	a = append(a, fioPresets[preset]...)
	direct := "0"
	if v, _ := p["direct"].(bool); v {
		direct = "1"
	}
	a = append(a, "--numjobs="+strconv.Itoa(inv.Clients), "--direct="+direct, "--ioengine="+p.String("ioengine"),
		"--size="+p.String("size"), "--runtime="+secs(inv.Duration), "--time_based", "--group_reporting",
		"--output-format=json")
	return Command{Argv: a}, nil
}

func buildRedisBenchmark(inv Invocation) (Command, error) {
	u, err := url.Parse(inv.URL)
	if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") {
		return Command{}, fmt.Errorf("redis-benchmark needs a redis:// target")
	}
	var c Command
	a := []string{"redis-benchmark"}
	h, port := hostPort(u)
	if h != "" {
		a = append(a, "-h", h)
	}
	if port != "" {
		a = append(a, "-p", port)
	}
	if u.User != nil {
		if pw, ok := u.User.Password(); ok {
			c.Env = append(c.Env, "REDISCLI_AUTH="+pw)
			if name := u.User.Username(); name != "" && name != "default" {
				a = append(a, "--user", name)
			}
		}
	}
	if u.Scheme == "rediss" {
		a = append(a, "--tls")
	}
	p := inv.Params
	// redis-benchmark stops after a number of requests, not after a time:
	// the cell's duration becomes duration × 20 000 × pipeline requests, and
	// the run records how long they really took.
	n := int64(inv.Duration.Seconds() * 20000 * float64(p.Int("pipeline")))
	a = append(a, "-c", strconv.Itoa(inv.Clients), "-n", strconv.FormatInt(max(n, 1000), 10),
		"-P", strconv.FormatInt(p.Int("pipeline"), 10), "-d", strconv.FormatInt(p.Int("data_size"), 10),
		"-t", strings.ToLower(p.String("command")))
	c.Argv = a
	return c, nil
}
