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
	switch {
	case len(o.Scripts) > 0 || len(o.Builtins) > 0: // the scripts run instead of the mode's, as in fairbench
		for _, b := range o.Builtins {
			a = append(a, "-b", b)
		}
		for _, f := range o.Scripts {
			a = append(a, "-f", f)
		}
	case o.Mode == tpcbparams.SelectOnly:
		a = append(a, "-S")
	case o.Mode == tpcbparams.SimpleUpdate:
		a = append(a, "-N")
	}
	jobs := inv.Clients
	if inv.Threads > 0 {
		jobs = min(inv.Threads, inv.Clients)
	}
	a = append(a, "-M", o.QueryMode, "-c", strconv.Itoa(inv.Clients), "-j", strconv.Itoa(jobs))
	if o.Transactions > 0 {
		a = append(a, "-t", strconv.FormatInt(o.Transactions, 10))
	} else {
		a = append(a, "-T", secs(inv.Duration))
	}
	a = append(a, "-P", "1")
	if o.PerStatement {
		a = append(a, "-r")
	}
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
