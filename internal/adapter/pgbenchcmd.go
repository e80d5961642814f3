package adapter

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/params/tpcbparams"
)

// buildPgbench runs pgbench for a tpcb cell (or a pgbench-script one).
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
