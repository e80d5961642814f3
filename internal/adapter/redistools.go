package adapter

import (
	"fmt"
	"net/url"
	"os"
	"strings"
)

// redisSchemes are the URL schemes of a Redis-protocol server (Valkey speaks
// it), each with whether it asks for TLS.
var redisSchemes = map[string]bool{"redis": false, "valkey": false, "rediss": true, "valkeys": true}

// refuseRedisToolPassword refuses a target whose password the tool could
// only get on its command line. redis-benchmark 7 and memtier_benchmark 2.3.0
// take a password only as -a or inside -u/--uri: no environment variable
// (neither reads REDISCLI_AUTH, checked in their sources and against
// redis-benchmark 7.0.15), no file. On the command line it is in every
// `ps` and /proc/PID/cmdline of the client machine while the tool runs,
// and in the command line stored with the run. tool names the tool and
// its version; why adds what else the tool does with it.
func refuseRedisToolPassword(tool, why string, u *url.URL) error {
	const instead = "use fairbench's own kv workload instead (the same cell without `tool`: it reads the password from the URL or REDISCLI_AUTH), or a password-less target, or run the tool yourself and `fairbench import` its output"
	if u.User != nil {
		return fmt.Errorf("%s takes a password only on its command line (-a), where ps shows it%s: the target URL carries credentials; %s", tool, why, instead)
	}
	if os.Getenv("REDISCLI_AUTH") != "" {
		return fmt.Errorf("REDISCLI_AUTH is set, but %s reads no password from the environment (only from its command line, where ps shows it) and would connect unauthenticated: unset it for this cell; %s", tool, instead)
	}
	return nil
}

// urlFlag reads a true/false query parameter of a target URL.
func urlFlag(q url.Values, k string) (bool, error) {
	switch strings.ToLower(q.Get(k)) {
	case "", "false", "0", "no":
		return false, nil
	case "true", "1", "yes":
		return true, nil
	}
	return false, fmt.Errorf("target URL: %s=%s: use true or false", k, q.Get(k))
}

// redisToolTLS is what a Redis target URL says of TLS, as fairbench's Redis
// driver reads it: the scheme (rediss://), ca=FILE and skip_verify=true,
// which need TLS.
type redisToolTLS struct {
	on         bool
	ca         string
	skipVerify bool
}

func redisTLSOf(u *url.URL) (redisToolTLS, error) {
	tls := redisSchemes[strings.ToLower(u.Scheme)]
	q := u.Query()
	skip, err := urlFlag(q, "skip_verify")
	if err != nil {
		return redisToolTLS{}, err
	}
	ca := q.Get("ca")
	if (ca != "" || skip) && !tls {
		return redisToolTLS{}, fmt.Errorf("target URL: ca and skip_verify need TLS: write rediss://")
	}
	return redisToolTLS{on: tls, ca: ca, skipVerify: skip}, nil
}
