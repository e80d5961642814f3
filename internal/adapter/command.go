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

	"github.com/fairbench/fairbench/internal/ownership"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/kvparams"
	"github.com/fairbench/fairbench/internal/params/oltpparams"
	"github.com/fairbench/fairbench/internal/params/tpcbparams"
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
	// WorkDir, for a tool whose Footprint has a Dir, is the directory the
	// runner made inside it for the cell's files; "" before the runner has
	// made it (checking a cell before the study starts).
	WorkDir string
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
		{Name: "keep_files", Kind: params.Bool, Default: false,
			Help: "keep the cell's data files (clients × size) in the directory fairbench made for them inside the target's; by default it is removed after the cell"},
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
	o := tpcbparams.Decode(inv.Params)
	switch o.Mode {
	case tpcbparams.SelectOnly:
		a = append(a, "-S")
	case tpcbparams.SimpleUpdate:
		a = append(a, "-N")
	}
	jobs := inv.Clients
	if inv.Threads > 0 {
		jobs = min(inv.Threads, inv.Clients)
	}
	a = append(a, "-M", o.QueryMode, "-c", strconv.Itoa(inv.Clients), "-j", strconv.Itoa(jobs),
		"-T", secs(inv.Duration), "-P", "1")
	if !o.Vacuum {
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
	o := oltpparams.Decode(inv.Params)
	a := []string{"sysbench", "oltp_" + o.Mode}
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
	a = append(a, "--tables="+strconv.FormatInt(o.Tables, 10), "--table-size="+strconv.FormatInt(o.TableSize, 10),
		"--threads="+strconv.Itoa(inv.Clients), "--time="+secs(inv.Duration), "--report-interval=1", "--histogram=on")
	if inv.Rate > 0 {
		a = append(a, "--rate="+strconv.FormatFloat(inv.Rate, 'f', 0, 64))
	}
	if o.Events > 0 {
		a = append(a, "--events="+strconv.FormatInt(o.Events, 10))
	}
	c.Argv = append(a, "run")
	return c, nil
}

// fioTargetDir is a fio target's directory: a fio target is written
// file:///path/to/dir.
func fioTargetDir(inv Invocation) (string, error) {
	u, err := url.Parse(inv.URL)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", fmt.Errorf("fio needs a file:///directory target (the directory fio writes its files in)")
	}
	return u.Path, nil
}

// fioWrites: fio lays out clients × size bytes of files (<preset>.<job>.0)
// in its directory; a cell's runs get a new directory inside the target's,
// so that they never overwrite a file there, and it goes with the cell.
func fioWrites(inv Invocation) (Footprint, error) {
	dir, err := fioTargetDir(inv)
	keep, _ := inv.Params["keep_files"].(bool)
	return Footprint{Dir: dir, Keep: keep}, err
}

// buildFio runs the preset in the cell's own directory inside the target's.
func buildFio(inv Invocation) (Command, error) {
	dir, err := fioTargetDir(inv)
	if err != nil {
		return Command{}, err
	}
	if inv.WorkDir != "" {
		dir = inv.WorkDir
	}
	p := inv.Params
	preset := p.String("preset")
	a := []string{"fio", "--name=" + preset, "--directory=" + dir}
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
func redisBenchmarkTest(o kvparams.Options) (string, error) {
	if len(o.Commands) > 0 {
		return "", fmt.Errorf("redis-benchmark cannot run the kv parameter %s (memtier's --command): use tool = \"memtier_benchmark\"", kvparams.Command)
	}
	switch prof := o.Profile; prof {
	case "set-only":
		return "set", nil
	case "get-only":
		return "get", nil
	case "incr-only":
		return "incr", nil
	case "":
		switch r := o.Ratio; r {
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
	o, err := kvparams.Decode(inv.Params)
	if err != nil {
		return Command{}, err
	}
	test, err := redisBenchmarkTest(o)
	if err != nil {
		return Command{}, err
	}
	switch {
	case o.DataSizeRange != "":
		return Command{}, fmt.Errorf("redis-benchmark has one value size (-d): %s is memtier's; use %s", kvparams.DataSizeRange, kvparams.DataSize)
	case o.RandomData:
		return Command{}, fmt.Errorf("redis-benchmark writes 'x' bytes only: %s is memtier's (--random-data)", kvparams.RandomData)
	case o.KeyPattern != "" && o.KeyPattern != "R:R":
		return Command{}, fmt.Errorf("redis-benchmark draws keys uniformly at random (-r): %s %q needs memtier_benchmark", kvparams.KeyPattern, o.KeyPattern)
	case o.KeyMinimum > 0:
		return Command{}, fmt.Errorf("redis-benchmark's keys start at 0 (-r): %s %d needs memtier_benchmark", kvparams.KeyMinimum, o.KeyMinimum)
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
	n := max(int64(inv.Duration.Seconds()*20000*float64(o.Pipeline)), 1000)
	if o.Requests > 0 {
		n = o.Requests * int64(max(inv.Clients, 1))
	}
	a = append(a, "-c", strconv.Itoa(inv.Clients), "-n", strconv.FormatInt(n, 10),
		"-P", strconv.FormatInt(o.Pipeline, 10), "-d", strconv.FormatInt(o.DataSize, 10))
	if db := strings.Trim(u.Path, "/"); db != "" {
		if _, err := strconv.Atoi(db); err != nil {
			return Command{}, fmt.Errorf("redis://host/%s: the path must be a database number", db)
		}
		a = append(a, "--dbnum", db)
	}
	if k := o.KeyMaximum; k > 0 {
		// -r draws keys in [0, k): the kv key range, under redis-benchmark's
		// own key names (key:000000001234), not key_prefix.
		a = append(a, "-r", strconv.FormatInt(k, 10))
	}
	c.Argv = append(a, "-t", test)
	return c, nil
}

// redisBenchmarkKeys are the names redis-benchmark 7 gives the keys of its
// -t tests (redis-benchmark.c): SET writes key:__rand_int__, INCR
// counter:__rand_int__, where -r k puts a number of [0, k) in 12 digits
// (key:000000001234) and without -r the name stays as it is. GET writes
// nothing. It has no key prefix option.
var redisBenchmarkKeys = map[string]string{"set": "key:", "incr": "counter:"}

// redisBenchmarkWrites is the keys a redis-benchmark cell may write.
func redisBenchmarkWrites(inv Invocation) (Footprint, error) {
	o, err := kvparams.Decode(inv.Params)
	if err != nil {
		return Footprint{}, err
	}
	test, err := redisBenchmarkTest(o)
	prefix, writes := redisBenchmarkKeys[test]
	if err != nil || !writes {
		return Footprint{}, err
	}
	var keys ownership.KeySet
	if k := o.KeyMaximum; k > 0 {
		keys.Ranges = []ownership.KeyRange{{Prefix: prefix, Width: 12, Lo: 0, Hi: uint64(k - 1)}}
	} else {
		keys.Names = []string{prefix + "__rand_int__"}
	}
	return Footprint{Keys: keys}, nil
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
	o, err := kvparams.Decode(inv.Params)
	if err != nil {
		return Command{}, err
	}
	mix, err := memtierMix(o)
	if err != nil {
		return Command{}, err
	}
	a = append(a, mix...)
	if o.DataSizeRange != "" {
		a = append(a, fmt.Sprintf("--data-size-range=%d-%d", o.DataSizeMin, o.DataSizeMax))
	} else {
		a = append(a, "-d", strconv.FormatInt(o.DataSize, 10))
	}
	if o.RandomData {
		a = append(a, "--random-data")
	}
	a = append(a, "--pipeline="+strconv.FormatInt(o.Pipeline, 10))
	pattern := o.KeyPattern
	if pattern == "" {
		pattern = "R:R"
	}
	a = append(a, "--key-pattern="+pattern)
	// memtier refuses --key-minimum=0 and --key-maximum=0, although 0 is its
	// default minimum: given only above 0.
	if k := o.KeyMinimum; k > 0 {
		a = append(a, "--key-minimum="+strconv.FormatInt(k, 10))
	}
	if k := o.KeyMaximum; k > 0 {
		a = append(a, "--key-maximum="+strconv.FormatInt(k, 10))
	}
	a = append(a, "--key-prefix="+o.KeyPrefix)
	// The distribution options memtier refuses at 0 (0 = its default) and
	// the Zipf exponent it refuses outside (0, 5), which the spec's [0, 5]
	// lets through at its ends: given only when they apply.
	if v := o.KeyStddev; v > 0 {
		a = append(a, "--key-stddev="+strconv.FormatFloat(v, 'g', -1, 64))
	}
	if v := o.KeyMedian; v > 0 {
		a = append(a, "--key-median="+strconv.FormatFloat(v, 'g', -1, 64))
	}
	if strings.Contains(pattern, "Z") || slices.Contains(o.CommandKeyPatterns, "Z") {
		z := o.KeyZipfExp
		if z <= 0 || z >= 5 {
			return Command{}, fmt.Errorf("%s = %g: memtier takes an exponent in (0, 5)", kvparams.KeyZipfExp, z)
		}
		a = append(a, "--key-zipf-exp="+strconv.FormatFloat(z, 'g', -1, 64))
	}
	if o.DistinctClientSeed {
		// Without it every connection replays the same key sequence.
		a = append(a, "--distinct-client-seed")
	}
	if r := o.Requests; r > 0 {
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
func memtierMix(o kvparams.Options) ([]string, error) {
	cmds := o.Commands
	ratios, patterns := o.CommandRatios, o.CommandKeyPatterns
	prof := o.Profile
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
		r := o.Ratio
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
	var out []string
	for i, c := range cmds {
		if strings.TrimSpace(c) == "" {
			return nil, fmt.Errorf("command %d is empty", i+1)
		}
		// One argv element per option: no shell splits or expands it.
		out = append(out, "--command="+c)
		if len(ratios) > 0 {
			if n, err := strconv.ParseUint(ratios[i], 10, 32); err != nil || n == 0 {
				return nil, fmt.Errorf("%s %q: a whole number above 0", kvparams.CommandRatio, ratios[i])
			}
			out = append(out, "--command-ratio="+ratios[i])
		}
		if len(patterns) > 0 {
			switch patterns[i] {
			case "R", "S", "G", "Z", "P":
			default:
				return nil, fmt.Errorf("%s %q: one of R, S, G, Z, P", kvparams.CommandKeyPattern, patterns[i])
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
