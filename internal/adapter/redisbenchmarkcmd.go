package adapter

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/ownership"
	"github.com/fairbench/fairbench/internal/params/kvparams"
)

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

// redisBenchmarkURLKeys are the query parameters of a redis:// target
// redis-benchmark understands, named as fairbench's Redis driver names them.
var redisBenchmarkURLKeys = map[string]string{
	"ca":          "CA certificate file: --cacert (rediss://)",
	"skip_verify": "true: --insecure (rediss://)",
	"client":      "fairbench's own client path; redis-benchmark has its own",
}

// buildRedisBenchmark runs redis-benchmark for a kv cell. A target with a
// password is refused (refuseRedisToolPassword): redis-benchmark 7 reads it
// only from -a or -u.
func buildRedisBenchmark(inv Invocation) (Command, error) {
	u, err := url.Parse(inv.URL)
	if err != nil {
		return Command{}, fmt.Errorf("redis-benchmark needs a redis:// target")
	}
	if _, ok := redisSchemes[strings.ToLower(u.Scheme)]; !ok {
		return Command{}, fmt.Errorf("redis-benchmark needs a redis://, rediss://, valkey:// or valkeys:// target, not %s://", u.Scheme)
	}
	if err := refuseRedisToolPassword("redis-benchmark 7", "", u); err != nil {
		return Command{}, err
	}
	if err := cellURLParams("redis-benchmark", u.Query(), redisBenchmarkURLKeys); err != nil {
		return Command{}, err
	}
	tls, err := redisTLSOf(u)
	if err != nil {
		return Command{}, err
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
	case o.PipelineMode == kvparams.Window && o.Pipeline > 1:
		return Command{}, fmt.Errorf("redis-benchmark's -P sends batches and waits for all their replies: set %s = %q for this cell (%q, the default, is memtier's window)", kvparams.PipelineMode, kvparams.Batch, kvparams.Window)
	case o.KeyMinimum > 0:
		return Command{}, fmt.Errorf("redis-benchmark's keys start at 0 (-r): %s %d needs memtier_benchmark", kvparams.KeyMinimum, o.KeyMinimum)
	}
	a := []string{"redis-benchmark"}
	h, port := hostPort(u)
	if h != "" {
		a = append(a, "-h", h)
	}
	if port != "" {
		a = append(a, "-p", port)
	}
	if tls.on {
		a = append(a, "--tls")
		if tls.ca != "" {
			a = append(a, "--cacert", tls.ca)
		}
		if tls.skipVerify {
			a = append(a, "--insecure")
		}
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
		// -r n draws keys in [0, n) (redis-benchmark.c's random key is
		// rand() % n); the kv key range [0, key_maximum] holds both ends,
		// as memtier's does: n = key_maximum + 1, under redis-benchmark's
		// own key names (key:000000001234), not key_prefix.
		a = append(a, "-r", strconv.FormatInt(k+1, 10))
	}
	return Command{Argv: append(a, "-t", test)}, nil
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
		keys.Ranges = []ownership.KeyRange{{Prefix: prefix, Width: 12, Lo: 0, Hi: uint64(k)}}
	} else {
		keys.Names = []string{prefix + "__rand_int__"}
	}
	return Footprint{Keys: keys}, nil
}
