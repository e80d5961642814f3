package adapter

import (
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/kvparams"
)

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
	a, err := memtierTargetArgs(inv.URL)
	if err != nil {
		return Command{}, err
	}
	clients, err := memtierClientArgs(inv)
	if err != nil {
		return Command{}, err
	}
	a = append(a, clients...)
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
	if o.PipelineMode == kvparams.Batch && o.Pipeline > 1 {
		return Command{}, fmt.Errorf("memtier_benchmark keeps a window of --pipeline requests per connection: %s = %q is redis-benchmark's -P (use tool = \"redis-benchmark\" or the kv workload, or %s = %q)", kvparams.PipelineMode, o.PipelineMode, kvparams.PipelineMode, kvparams.Window)
	}
	a = append(a, "--pipeline="+strconv.FormatInt(o.Pipeline, 10))
	keys, err := memtierKeyArgs(o)
	if err != nil {
		return Command{}, err
	}
	a = append(a, keys...)
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

// memtierTargetArgs are the arguments that connect memtier to the target
// URL: host, port, database, cluster mode, TLS and connection timeout.
func memtierTargetArgs(target string) ([]string, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, fmt.Errorf("memtier_benchmark needs a redis:// target (redis://host:port/db)")
	}
	if _, ok := redisSchemes[strings.ToLower(u.Scheme)]; !ok {
		return nil, fmt.Errorf("memtier_benchmark needs a redis:// or rediss:// target, not %s://", u.Scheme)
	}
	if err := refuseRedisToolPassword("memtier_benchmark 2.3.0", " and writes it into its JSON output", u); err != nil {
		return nil, err
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
		return nil, err
	}
	cluster, err := urlFlag(q, "cluster")
	if err != nil {
		return nil, err
	}
	tls, err := redisTLSOf(u)
	if err != nil {
		return nil, err
	}
	if db := strings.Trim(u.Path, "/"); db != "" {
		n, err := strconv.Atoi(db)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("target URL: the path names the database by number (redis://host:6379/0), not %q", db)
		}
		if n > 0 && cluster {
			return nil, fmt.Errorf("target URL: a cluster has only database 0 (the URL names %d)", n)
		}
		if n > 0 {
			a = append(a, "--select-db="+strconv.Itoa(n))
		}
	}
	if cluster {
		a = append(a, "--cluster-mode")
	}
	if tls.on {
		a = append(a, "--tls")
		if tls.ca != "" {
			a = append(a, "--cacert="+tls.ca)
		}
		if tls.skipVerify {
			a = append(a, "--tls-skip-verify")
		}
	}
	if t := q.Get("timeout"); t != "" {
		d, err := params.ParseDuration(t)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("target URL: timeout=%s: use a duration (\"5s\") or seconds", t)
		}
		a = append(a, "--connection-timeout="+strconv.Itoa(int(math.Ceil(d.Seconds()))))
	}
	return a, nil
}

// memtierClientArgs are the threads, connections and rate limit of the
// cell's clients and rate.
func memtierClientArgs(inv Invocation) ([]string, error) {
	var a []string
	threads := 1
	if inv.Threads > 0 {
		threads = inv.Threads
	}
	if inv.Clients < 1 || inv.Clients%threads != 0 {
		return nil, fmt.Errorf("memtier_benchmark opens the same number of connections (-c) in each of its threads (-t): clients = %d is not a multiple of threads = %d; choose clients that threads divides", inv.Clients, threads)
	}
	a = append(a, "-t", strconv.Itoa(threads), "-c", strconv.Itoa(inv.Clients/threads))
	if inv.LatencyLimit > 0 {
		return nil, fmt.Errorf("memtier_benchmark has no latency limit (pgbench's -L): remove latency_limit from memtier cells")
	}
	if inv.MaxTries > 1 {
		return nil, fmt.Errorf("memtier_benchmark does not retry failed requests: remove max_tries from memtier cells")
	}
	if inv.Rate > 0 {
		// --rate-limiting is per connection, in whole requests per second.
		per := inv.Rate / float64(inv.Clients)
		if per < 1 || per != math.Trunc(per) {
			return nil, fmt.Errorf("memtier_benchmark limits the rate per connection in whole requests per second (--rate-limiting): rate %g over %d clients is %g each; choose a rate that is a multiple of clients", inv.Rate, inv.Clients, per)
		}
		a = append(a, "--rate-limiting="+strconv.FormatInt(int64(per), 10))
	}
	return a, nil
}

// memtierKeyArgs are the key pattern, range, prefix and distribution of the
// kv cell's options.
func memtierKeyArgs(o kvparams.Options) ([]string, error) {
	var a []string
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
			return nil, fmt.Errorf("%s = %g: memtier takes an exponent in (0, 5)", kvparams.KeyZipfExp, z)
		}
		a = append(a, "--key-zipf-exp="+strconv.FormatFloat(z, 'g', -1, 64))
	}
	if o.DistinctClientSeed {
		// Without it every connection replays the same key sequence.
		a = append(a, "--distinct-client-seed")
	}
	return a, nil
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
