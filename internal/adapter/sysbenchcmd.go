package adapter

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/params/oltpparams"
)

// buildSysbench runs sysbench oltp_<mode> for an oltp cell.
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
		tls, err := mysqlTLSOf("sysbench", u.Query())
		if err != nil {
			return Command{}, err
		}
		if tls.mode != "off" {
			// Seen on 1.0.20: "TLS/SSL error: No such file or directory".
			return Command{}, fmt.Errorf("target URL: tls=%s: sysbench 1.0.20's --mysql-ssl=on reads client-key.pem, client-cert.pem and cacert.pem from its working directory and fails without them, so fairbench runs no sysbench over TLS: use fairbench's own oltp workload (the same cell without `tool`) for TLS, or tls=false", u.Query().Get("tls"))
		}
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
