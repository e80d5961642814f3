package kv

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/workload"
)

// The peer lines kv reads: memtier_benchmark's (its flags are kv's) and
// redis-benchmark's, told apart by redis-benchmark's -P (memtier has none)
// or a -t naming tests instead of a thread count.

// kvConnection is memtier's -s/-p/-a and redis-benchmark's -h/-p/-a: the
// redis:// URL instead of --target.
func kvConnection() *workload.Connection {
	return &workload.Connection{
		Scheme: "redis",
		Flags: []workload.ConnFlag{
			{Name: "server", Shorthand: "s", Part: workload.PartHost, Usage: "server host (memtier -s; default localhost)"},
			{Name: "host", Shorthand: "h", Part: workload.PartHost, Usage: "server host (redis-benchmark -h; -h followed by a value is the host, -h alone is help)"},
			{Name: "port", Shorthand: "p", Part: workload.PartPort, Usage: "server port (memtier and redis-benchmark -p; default 6379)"},
			{Name: "authenticate", Shorthand: "a", Part: workload.PartPassword, Usage: "the server's password (memtier and redis-benchmark -a; REDISCLI_AUTH works too)"},
			{Name: "select-db", Part: workload.PartDatabase, Usage: "database number (memtier --select-db)"},
		},
		Defaults: map[string]map[workload.URLPart]string{"redis": {workload.PartPort: "6379", workload.PartDatabase: "0"}},
	}
}

// peerIgnored are memtier's switches kv accepts with no effect.
var peerIgnored = map[string]string{
	"--hide-histogram": "fairbench prints no per-request histogram; the run stores its whole HdrHistogram (fairbench report)",
}

// rewritePeerLine reads memtier's --protocol, and a redis-benchmark line
// as kv's flags.
func rewritePeerLine(args []string) (workload.PeerRewrite, error) {
	var r workload.PeerRewrite
	rb := isRedisBenchmark(args)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			r.Args = append(r.Args, args[i:]...)
			break
		}
		name, value, hasValue := strings.Cut(a, "=")
		next := func() (string, error) {
			if hasValue {
				return value, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("%s needs a value", name)
			}
			i++
			return args[i], nil
		}
		if name == "--protocol" || (rb && name == "-3") {
			v := "resp3"
			if name == "--protocol" {
				var err error
				if v, err = next(); err != nil {
					return r, err
				}
			}
			note, err := protocolNote(v)
			if err != nil {
				return r, err
			}
			if note != "" {
				r.Notes = append(r.Notes, note)
			}
			continue
		}
		if !rb {
			r.Args = append(r.Args, a)
			continue
		}
		out, note, err := redisBenchmarkArg(name, next)
		if err != nil {
			return r, err
		}
		if out == nil {
			r.Args = append(r.Args, a)
			continue
		}
		r.Args = append(r.Args, out...)
		if note != "" {
			r.Notes = append(r.Notes, note)
		}
	}
	if rb {
		return redisBenchmarkTotals(r)
	}
	return r, nil
}

// protocolNote checks memtier's --protocol: kv speaks RESP (redis, resp2;
// resp3's replies to SET and GET are RESP2's), and no memcached protocol.
func protocolNote(v string) (string, error) {
	switch v {
	case "redis", "resp2":
		return "", nil
	case "resp3":
		return "--protocol resp3: fairbench speaks RESP2 to the server, whose replies to SET and GET are the same in RESP3", nil
	}
	return "", fmt.Errorf("--protocol %s: workload kv speaks the Redis protocol only (redis, resp2, resp3); fairbench has no memcached driver", v)
}

// isRedisBenchmark: the line has redis-benchmark's -P, or a -t of tests.
func isRedisBenchmark(args []string) bool {
	for i, a := range args {
		if a == "--" {
			return false
		}
		if a == "-P" || strings.HasPrefix(a, "-P=") {
			return true
		}
		if a == "-t" && i+1 < len(args) {
			if _, err := strconv.Atoi(args[i+1]); err != nil {
				return true
			}
		}
	}
	return false
}

// Markers in a rewritten redis-benchmark line for redisBenchmarkTotals:
// its totals, which kv counts per connection.
const (
	rbClients  = "\x00clients"
	rbRequests = "\x00requests"
)

// redisBenchmarkArg is redis-benchmark's flag name (its value from next)
// as kv's flags, nil for a flag passed on as it is (-h, -p, -a, -q, -d).
func redisBenchmarkArg(name string, next func() (string, error)) ([]string, string, error) {
	switch name {
	case "-P":
		v, err := next()
		return []string{"--pipeline", v, "--pipeline-mode", "batch"}, "", err
	case "-t":
		v, err := next()
		if err != nil {
			return nil, "", err
		}
		ratio, err := redisBenchmarkTest(v)
		return []string{"--ratio", ratio}, "", err
	case "-c":
		v, err := next()
		return []string{rbClients, v}, "", err
	case "-n":
		v, err := next()
		return []string{rbRequests, v}, "", err
	case "-r":
		v, err := next()
		if err != nil {
			return nil, "", err
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 || n > 1e12 {
			return nil, "", fmt.Errorf("-r %q: a key space of 1 or more keys", v)
		}
		return []string{"--key-minimum", "0", "--key-maximum", strconv.FormatInt(n-1, 10), "--key-pattern", "R:R"},
			fmt.Sprintf("-r %d: keys drawn uniformly from 0…%d, named by --key-prefix (redis-benchmark's key:000000000123 is not kept)", n, n-1), nil
	case "--threads":
		return nil, "", fmt.Errorf("--threads: redis-benchmark's threads share its -c clients; fairbench runs them on one event loop per thread with -t THREADS -c CLIENTS-PER-THREAD (memtier's spelling)")
	}
	return nil, "", nil
}

// redisBenchmarkTest is the ratio of redis-benchmark's -t: one of SET or
// GET, which kv runs; redis-benchmark runs a list one test after another.
func redisBenchmarkTest(v string) (string, error) {
	switch strings.ToLower(v) {
	case "set":
		return "1:0", nil
	case "get":
		return "0:1", nil
	}
	if strings.Contains(v, ",") {
		return "", fmt.Errorf("-t %s: redis-benchmark runs its tests one after the other; give one per line (-t set, then -t get), or mix them in one run with --ratio 1:1", v)
	}
	return "", fmt.Errorf("-t %s: workload kv runs SET and GET (-t set or -t get); other commands run with --command", v)
}

// redisBenchmarkTotals turns redis-benchmark's totals (-c clients, 50 by
// default; -n requests over them all, 100 000) into kv's: one thread with
// that many connections, each sending its share of the requests.
func redisBenchmarkTotals(r workload.PeerRewrite) (workload.PeerRewrite, error) {
	clients, requests := "50", "100000"
	var out []string
	for i := 0; i < len(r.Args); i++ {
		switch r.Args[i] {
		case rbClients:
			clients = r.Args[i+1]
			i++
		case rbRequests:
			requests = r.Args[i+1]
			i++
		default:
			out = append(out, r.Args[i])
		}
	}
	c, err := strconv.Atoi(clients)
	if err != nil || c < 1 {
		return r, fmt.Errorf("-c %q: redis-benchmark's clients, a number of 1 or more", clients)
	}
	n, err := strconv.ParseInt(requests, 10, 64)
	if err != nil || n < 1 || n > 1e12 {
		return r, fmt.Errorf("-n %q: redis-benchmark's total requests, a number from 1 to 10^12", requests)
	}
	each := (n + int64(c) - 1) / int64(c)
	r.Args = append(out, "--threads", "1", "--clients", strconv.Itoa(c), "--requests", strconv.FormatInt(each, 10))
	if each*int64(c) != n {
		r.Notes = append(r.Notes, fmt.Sprintf("-n %d over -c %d clients: %d requests each, %d in all", n, c, each, each*int64(c)))
	}
	return r, nil
}
