package adapter

import (
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/kvparams"
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
	// writes its side logs into; "" for none. The runner makes it private
	// (mode 0700) and removes it after the run, so a tool's generated input
	// files holding secrets can go there too (HammerDB's script).
	LogDir string
	// Warmup, for a tool with OwnWarmup, is the cell's warm-up, which the
	// measured run starts with.
	Warmup time.Duration
}

// Command is one tool execution. Secrets travel in Env (PGPASSWORD,
// MYSQL_PWD, REDISCLI_AUTH), never in Argv, which is stored with the run.
type Command struct {
	Argv []string
	Env  []string
	// Dir is the working directory; "" for the runner's own.
	Dir string
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
	"kv":        kvparams.Specs(),
	"mysqlslap": mysqlslapParams,
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

// redisBenchmarkTest is the one test (-t) redis-benchmark runs for a kv
// cell: it runs one command per test, so only the single-command mixes map.
func redisBenchmarkTest(p params.Values) (string, error) {
	if len(kvList(p, "command")) > 0 {
		return "", fmt.Errorf("redis-benchmark cannot run the kv parameter command (memtier's --command): use tool = \"memtier_benchmark\"")
	}
	switch prof := p.String("profile"); prof {
	case "set-only":
		return "set", nil
	case "get-only":
		return "get", nil
	case "incr-only":
		return "incr", nil
	case "":
		switch r := p.String("ratio"); r {
		case "1:0":
			return "set", nil
		case "0:1":
			return "get", nil
		default:
			return "", fmt.Errorf("redis-benchmark runs one command per test, not a mix: ratio %q mixes SET and GET; use ratio 1:0 or 0:1, or profile set-only, get-only or incr-only (memtier_benchmark runs mixes)", r)
		}
	default:
		return "", fmt.Errorf("redis-benchmark runs one command per test: profile %q is a mix it cannot run; use set-only, get-only or incr-only (memtier_benchmark runs get-heavy)", prof)
	}
}

// redisSchemes are the URL schemes of a Redis-protocol server (Valkey speaks
// it), each with whether it asks for TLS.
var redisSchemes = map[string]bool{"redis": false, "valkey": false, "rediss": true, "valkeys": true}

func buildRedisBenchmark(inv Invocation) (Command, error) {
	u, err := url.Parse(inv.URL)
	if err != nil {
		return Command{}, fmt.Errorf("redis-benchmark needs a redis:// target")
	}
	tls, ok := redisSchemes[strings.ToLower(u.Scheme)]
	if !ok {
		return Command{}, fmt.Errorf("redis-benchmark needs a redis://, rediss://, valkey:// or valkeys:// target, not %s://", u.Scheme)
	}
	p := inv.Params
	test, err := redisBenchmarkTest(p)
	if err != nil {
		return Command{}, err
	}
	switch {
	case p.String("data_size_range") != "":
		return Command{}, fmt.Errorf("redis-benchmark has one value size (-d): data_size_range is memtier's; use data_size")
	case p.String("key_pattern") != "" && p.String("key_pattern") != "R:R":
		return Command{}, fmt.Errorf("redis-benchmark draws keys uniformly at random (-r): key_pattern %q needs memtier_benchmark", p.String("key_pattern"))
	case p.Int("key_minimum") > 0:
		return Command{}, fmt.Errorf("redis-benchmark's keys start at 0 (-r): key_minimum %d needs memtier_benchmark", p.Int("key_minimum"))
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
	if tls {
		a = append(a, "--tls")
	}
	// redis-benchmark stops after a number of requests, not after a time:
	// the cell's duration becomes duration × 20 000 × pipeline requests, and
	// the run records how long they really took. requests, memtier's count
	// per connection, becomes the same total.
	pipe := max(p.Int("pipeline"), 1)
	n := max(int64(inv.Duration.Seconds()*20000*float64(pipe)), 1000)
	if r := p.Int("requests"); r > 0 {
		n = r * int64(max(inv.Clients, 1))
	}
	a = append(a, "-c", strconv.Itoa(inv.Clients), "-n", strconv.FormatInt(n, 10),
		"-P", strconv.FormatInt(pipe, 10), "-d", strconv.FormatInt(max(p.Int("data_size"), 1), 10))
	if k := p.Int("key_maximum"); k > 0 {
		// -r draws keys in [0, k): the kv key range, under redis-benchmark's
		// own key names (key:000000001234), not key_prefix.
		a = append(a, "-r", strconv.FormatInt(k, 10))
	}
	c.Argv = append(a, "-t", test)
	return c, nil
}

// kvList is a StringList parameter; nil when not given.
func kvList(p params.Values, name string) []string {
	switch v := p[name].(type) {
	case []string:
		return v
	case []any: // read back from JSON
		out := make([]string, 0, len(v))
		for _, e := range v {
			out = append(out, fmt.Sprint(e))
		}
		return out
	case string:
		if v != "" {
			return []string{v}
		}
	}
	return nil
}

// memtierURLKeys are the query parameters of a redis:// target memtier
// understands, named as fairbench's Redis driver names them.
var memtierURLKeys = map[string]string{
	"cluster":     "true: --cluster-mode",
	"ca":          "CA certificate file: --cacert (rediss://)",
	"skip_verify": "true: --tls-skip-verify (rediss://)",
	"timeout":     "connect timeout: --connection-timeout (whole seconds)",
	"client":      "fairbench's own client path; memtier has its own",
}

// buildMemtier runs memtier_benchmark for a kv cell.
//
// Target: redis:// or rediss:// (valkey://, valkeys://) host and port (-s,
// -p), the database from the path (--select-db), and the query keys of
// fairbench's Redis driver: cluster=true (--cluster-mode), ca=FILE (--cacert)
// and skip_verify=true (--tls-skip-verify) with rediss://, timeout
// (--connection-timeout). A password is refused: memtier 2.3.0 takes it only
// as -a/--authenticate or inside --uri, both on its command line (stored with
// the run and visible in ps), reads no environment variable or file for it,
// and writes it into its JSON; use a password-less target (a loopback or
// ACL-free server) for tool cells, or run memtier yourself and import its
// output.
//
// Clients: memtier opens -c connections in each of -t threads, so Clients
// connections are -t Threads (1 when not set) × -c Clients/Threads. Duration
// is --test-time, unless requests (per connection) is set. The run keeps
// memtier's histogram and also writes --json-out-file into Invocation.LogDir,
// which attachMemtierLogDir reads for exact counts, memtier's HdrHistograms
// and the per-second series.
func buildMemtier(inv Invocation) (Command, error) {
	u, err := url.Parse(inv.URL)
	if err != nil {
		return Command{}, fmt.Errorf("memtier_benchmark needs a redis:// target (redis://host:port/db)")
	}
	tls := false
	switch strings.ToLower(u.Scheme) {
	case "redis", "valkey":
	case "rediss", "valkeys":
		tls = true
	default:
		return Command{}, fmt.Errorf("memtier_benchmark needs a redis:// or rediss:// target, not %s://", u.Scheme)
	}
	if u.User != nil {
		return Command{}, fmt.Errorf("memtier_benchmark 2.3.0 takes a password only on its command line (-a, --uri), which fairbench stores with the run, and writes it into its JSON: remove the credentials from the target URL (a password-less server, e.g. on loopback), or run memtier_benchmark yourself and import its output")
	}
	if os.Getenv("REDISCLI_AUTH") != "" {
		return Command{}, fmt.Errorf("REDISCLI_AUTH is set, but memtier_benchmark 2.3.0 reads no password from the environment and would connect unauthenticated: unset it for memtier cells, and use a password-less target")
	}
	a := []string{"memtier_benchmark", "--protocol=redis"}
	if h := u.Hostname(); h != "" {
		a = append(a, "-s", h)
	}
	if port := u.Port(); port != "" {
		a = append(a, "-p", port)
	}
	q := u.Query()
	if err := cellURLParams("memtier_benchmark", q, memtierURLKeys); err != nil {
		return Command{}, err
	}
	flag := func(k string) (bool, error) {
		switch strings.ToLower(q.Get(k)) {
		case "", "false", "0", "no":
			return false, nil
		case "true", "1", "yes":
			return true, nil
		}
		return false, fmt.Errorf("target URL: %s=%s: use true or false", k, q.Get(k))
	}
	cluster, err := flag("cluster")
	if err != nil {
		return Command{}, err
	}
	skip, err := flag("skip_verify")
	if err != nil {
		return Command{}, err
	}
	if db := strings.Trim(u.Path, "/"); db != "" {
		n, err := strconv.Atoi(db)
		if err != nil || n < 0 {
			return Command{}, fmt.Errorf("target URL: the path names the database by number (redis://host:6379/0), not %q", db)
		}
		if n > 0 && cluster {
			return Command{}, fmt.Errorf("target URL: a cluster has only database 0 (the URL names %d)", n)
		}
		if n > 0 {
			a = append(a, "--select-db="+strconv.Itoa(n))
		}
	}
	if cluster {
		a = append(a, "--cluster-mode")
	}
	if ca := q.Get("ca"); (ca != "" || skip) && !tls {
		return Command{}, fmt.Errorf("target URL: ca and skip_verify need TLS: write rediss://")
	}
	if tls {
		a = append(a, "--tls")
		if ca := q.Get("ca"); ca != "" {
			a = append(a, "--cacert="+ca)
		}
		if skip {
			a = append(a, "--tls-skip-verify")
		}
	}
	if t := q.Get("timeout"); t != "" {
		d, err := params.ParseDuration(t)
		if err != nil || d <= 0 {
			return Command{}, fmt.Errorf("target URL: timeout=%s: use a duration (\"5s\") or seconds", t)
		}
		a = append(a, "--connection-timeout="+strconv.Itoa(int(math.Ceil(d.Seconds()))))
	}

	threads := 1
	if inv.Threads > 0 {
		threads = inv.Threads
	}
	if inv.Clients < 1 || inv.Clients%threads != 0 {
		return Command{}, fmt.Errorf("memtier_benchmark opens the same number of connections (-c) in each of its threads (-t): clients = %d is not a multiple of threads = %d; choose clients that threads divides", inv.Clients, threads)
	}
	a = append(a, "-t", strconv.Itoa(threads), "-c", strconv.Itoa(inv.Clients/threads))
	if inv.LatencyLimit > 0 {
		return Command{}, fmt.Errorf("memtier_benchmark has no latency limit (pgbench's -L): remove latency_limit from memtier cells")
	}
	if inv.MaxTries > 1 {
		return Command{}, fmt.Errorf("memtier_benchmark does not retry failed requests: remove max_tries from memtier cells")
	}
	if inv.Rate > 0 {
		// --rate-limiting is per connection, in whole requests per second.
		per := inv.Rate / float64(inv.Clients)
		if per < 1 || per != math.Trunc(per) {
			return Command{}, fmt.Errorf("memtier_benchmark limits the rate per connection in whole requests per second (--rate-limiting): rate %g over %d clients is %g each; choose a rate that is a multiple of clients", inv.Rate, inv.Clients, per)
		}
		a = append(a, "--rate-limiting="+strconv.FormatInt(int64(per), 10))
	}
	mix, err := memtierMix(inv.Params)
	if err != nil {
		return Command{}, err
	}
	a = append(a, mix...)
	p := inv.Params
	if r := p.String("data_size_range"); r != "" {
		lo, hi, ok := strings.Cut(r, "-")
		x, e1 := strconv.ParseUint(lo, 10, 32)
		y, e2 := strconv.ParseUint(hi, 10, 32)
		if !ok || e1 != nil || e2 != nil || x < 1 || y < x {
			return Command{}, fmt.Errorf("data_size_range %q: write min-max in bytes, e.g. 32-1024", r)
		}
		a = append(a, "--data-size-range="+r)
	} else {
		a = append(a, "-d", strconv.FormatInt(max(p.Int("data_size"), 1), 10))
	}
	a = append(a, "--pipeline="+strconv.FormatInt(max(p.Int("pipeline"), 1), 10))
	pattern := p.String("key_pattern")
	if pattern == "" {
		pattern = "R:R"
	}
	a = append(a, "--key-pattern="+pattern)
	// memtier refuses --key-minimum=0 and --key-maximum=0, although 0 is its
	// default minimum: given only above 0.
	if k := p.Int("key_minimum"); k > 0 {
		a = append(a, "--key-minimum="+strconv.FormatInt(k, 10))
	}
	if k := p.Int("key_maximum"); k > 0 {
		a = append(a, "--key-maximum="+strconv.FormatInt(k, 10))
	}
	if v, ok := p["key_prefix"].(string); ok {
		a = append(a, "--key-prefix="+v)
	}
	// The distribution options memtier refuses at 0 (0 = its default) and
	// the Zipf exponent it refuses outside (0, 5): given only when they apply.
	if v := p.Float("key_stddev"); v > 0 {
		a = append(a, "--key-stddev="+strconv.FormatFloat(v, 'g', -1, 64))
	}
	if v := p.Float("key_median"); v > 0 {
		a = append(a, "--key-median="+strconv.FormatFloat(v, 'g', -1, 64))
	}
	if strings.Contains(pattern, "Z") || slices.Contains(kvList(p, "command_key_pattern"), "Z") {
		z := p.Float("key_zipf_exp")
		if z <= 0 || z >= 5 {
			return Command{}, fmt.Errorf("key_zipf_exp = %g: memtier takes an exponent in (0, 5)", z)
		}
		a = append(a, "--key-zipf-exp="+strconv.FormatFloat(z, 'g', -1, 64))
	}
	if v, ok := p["distinct_client_seed"].(bool); !ok || v {
		// Without it every connection replays the same key sequence.
		a = append(a, "--distinct-client-seed")
	}
	if r := p.Int("requests"); r > 0 {
		a = append(a, "--requests="+strconv.FormatInt(r, 10))
	} else {
		a = append(a, "--test-time="+secs(inv.Duration))
	}
	// p95 too: memtier prints p50, p99 and p99.9 by default.
	a = append(a, "--print-percentiles=50,95,99,99.9")
	if inv.LogDir != "" {
		a = append(a, "--json-out-file="+filepath.Join(inv.LogDir, memtierJSONFile))
	}
	return Command{Argv: a}, nil
}

// memtierMix is the SET/GET ratio or the commands of a kv cell.
func memtierMix(p params.Values) ([]string, error) {
	cmds := kvList(p, "command")
	ratios, patterns := kvList(p, "command_ratio"), kvList(p, "command_key_pattern")
	prof := p.String("profile")
	if len(cmds) > 0 && prof != "" {
		return nil, fmt.Errorf("profile %q and command both set: give one of them", prof)
	}
	if len(cmds) == 0 && (len(ratios) > 0 || len(patterns) > 0) {
		return nil, fmt.Errorf("command_ratio and command_key_pattern apply to command, which is not set")
	}
	switch prof {
	case "get-heavy":
		return []string{"--ratio=1:10"}, nil
	case "set-only":
		return []string{"--ratio=1:0"}, nil
	case "get-only":
		return []string{"--ratio=0:1"}, nil
	case "incr-only":
		cmds = []string{"INCR __key__"}
	case "rmw":
		return nil, fmt.Errorf("profile rmw (read, modify, write back the same key) has no memtier_benchmark equivalent: memtier sends independent commands; use the native kv workload for rmw")
	case "":
	default:
		return nil, fmt.Errorf("profile %q: memtier_benchmark cells know %s", prof, strings.Join(kvparams.Profiles[1:], ", "))
	}
	if len(cmds) == 0 {
		r := p.String("ratio")
		if r == "" {
			r = "1:10"
		}
		x, y, ok := strings.Cut(r, ":")
		if _, e1 := strconv.ParseUint(x, 10, 32); !ok || e1 != nil {
			return nil, fmt.Errorf("ratio %q: write SET:GET, e.g. 1:10", r)
		}
		if _, e2 := strconv.ParseUint(y, 10, 32); e2 != nil {
			return nil, fmt.Errorf("ratio %q: write SET:GET, e.g. 1:10", r)
		}
		return []string{"--ratio=" + r}, nil
	}
	for _, list := range []struct {
		name string
		v    []string
	}{{"command_ratio", ratios}, {"command_key_pattern", patterns}} {
		if len(list.v) > 0 && len(list.v) != len(cmds) {
			return nil, fmt.Errorf("%s has %d entries for %d commands: give one per command, in the same order", list.name, len(list.v), len(cmds))
		}
	}
	var out []string
	for i, c := range cmds {
		if strings.TrimSpace(c) == "" {
			return nil, fmt.Errorf("command %d is empty", i+1)
		}
		// One argv element per option: no shell splits or expands it.
		out = append(out, "--command="+c)
		if len(ratios) > 0 {
			if n, err := strconv.ParseUint(ratios[i], 10, 32); err != nil || n == 0 {
				return nil, fmt.Errorf("command_ratio %q: a whole number above 0", ratios[i])
			}
			out = append(out, "--command-ratio="+ratios[i])
		}
		if len(patterns) > 0 {
			switch patterns[i] {
			case "R", "S", "G", "Z", "P":
			default:
				return nil, fmt.Errorf("command_key_pattern %q: one of R, S, G, Z, P", patterns[i])
			}
			out = append(out, "--command-key-pattern="+patterns[i])
		}
	}
	return out, nil
}

// cellURLParams refuses a target URL parameter a tool cell cannot pass on,
// naming it and the ones the cell understands.
func cellURLParams(tool string, q url.Values, known map[string]string) error {
	for k := range q {
		if _, ok := known[k]; !ok {
			keys := make([]string, 0, len(known))
			for k := range known {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			return fmt.Errorf("target URL parameter %q: %s cells understand %s", k, tool, strings.Join(keys, ", "))
		}
	}
	return nil
}
