package adapter

import (
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/tpccparams"
)

// A study cell with tool = "go-tpc" runs go-tpc v1.0.12 for a tpcc cell:
// `go-tpc tpcc prepare` (with its consistency check) into go-tpc's nine
// tables before the cell's first run, then `go-tpc tpcc run` for the cell's
// duration with one thread per client.
//
// Parameters (tpccparams): warehouses → --warehouses; keying_thinking →
// --wait; load_workers → the prepare's -T (at most one per warehouse). go-tpc
// cannot do what the others ask, so a cell asking for it is refused rather
// than run as something else: implementation = "procedures" (go-tpc sends
// each transaction's statements), all_warehouses = false with more than one
// warehouse (go-tpc draws every transaction's warehouse at random, HammerDB's
// allwarehouse), a seed other than 0 (go-tpc's data are its own), a rate,
// latency limit or retries.
//
// The prepare runs with --no-check: go-tpc's consistency check of its own
// data takes longer than the load (minutes per warehouse on MariaDB, growing
// with their square; see loadGoTPC). Its output is checked instead: every
// warehouse loaded, no failure.
//
// go-tpc has no warm-up (ramp-up) flag: the runner's warm-up is a separate
// go-tpc run whose output is discarded, on fresh connections. go-tpc stops a
// thread at its first failed transaction unless --ignore-error, which cells
// pass: failures are counted (the X_ERR rows) and the thread goes on, as in
// HammerDB with raiseerror false and in fairbench's own tpcc.
//
// Target: postgres:// — -d postgres -H -P -U -D, the password in PGPASSWORD
// (go-tpc's lib/pq reads it when -p is empty), sslmode (required: lib/pq has
// no "prefer", fairbench's default), sslrootcert, sslcert, sslkey and
// connect_timeout through --conn-params. mysql:// — -d mysql -H -P -U -D;
// tls (false by default, as fairbench's MySQL driver) through --conn-params
// tls=…, or --ssl-ca for tls=verify&ssl-ca=FILE; timeout and autocommit
// through --conn-params. go-tpc's MySQL driver takes the password only as
// -p, on the command line every local user's ps shows while it runs (it
// reads no MYSQL_PWD, no option file): a MySQL target with a password, in
// the URL or MYSQL_PWD, is refused before the study starts.

// goTPCVersion is the go-tpc fairbench runs and was tested with.
const goTPCVersion = "v1.0.12"

var goTPCInstall = "go-tpc " + goTPCVersion + " is needed; scripts/install-go-tpc.sh DIR builds it into DIR (" +
	"go mod download github.com/pingcap/go-tpc@" + goTPCVersion + " && GOPROXY=file://$(go env GOMODCACHE)/cache/download,$(go env GOPROXY) " +
	"go install github.com/pingcap/go-tpc/cmd/go-tpc@" + goTPCVersion + "; @latest resolves to v1.0.7, which has no PostgreSQL driver); put DIR on the PATH"

// goTPCTables are the tables go-tpc creates, drops (prepare --dropdata) and runs on.
var goTPCTables = []string{"warehouse", "district", "customer", "history", "new_order", "orders", "order_line", "item", "stock"}

// goTPCName is what go-tpc puts unescaped into its connection string.
var goTPCName = regexp.MustCompile(`^[A-Za-z0-9_.$-]+$`)

// goTPCTarget is go-tpc's connection flags for a target, with the
// environment that carries the password (PostgreSQL's).
func goTPCTarget(raw string) (args, env []string, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("go-tpc needs a postgres:// or mysql:// target URL")
	}
	switch strings.ToLower(u.Scheme) {
	case "postgres", "postgresql", "mysql", "mariadb":
	default:
		return nil, nil, fmt.Errorf("go-tpc needs a postgres:// or mysql:// target, not %s://", u.Scheme)
	}
	var user, pw string
	hasPw := false
	if u.User != nil {
		user = u.User.Username()
		pw, hasPw = u.User.Password()
	}
	db := strings.TrimPrefix(u.Path, "/")
	host, port := u.Hostname(), u.Port()
	if host == "" {
		host = "127.0.0.1"
	}
	for what, v := range map[string]string{"user": user, "database": db} {
		if !goTPCName.MatchString(v) {
			return nil, nil, fmt.Errorf("go-tpc puts the %s into its connection string unescaped: the target URL needs one of letters, digits and _ . $ - (got %q)", what, v)
		}
	}
	q := u.Query()
	unknown := func(known map[string]string) error { return cellURLParams("go-tpc", q, known) }
	var conn []string
	switch strings.ToLower(u.Scheme) {
	case "postgres", "postgresql":
		if port == "" {
			port = "5432"
		}
		known := map[string]string{"sslmode": "", "sslrootcert": "", "sslcert": "", "sslkey": "", "connect_timeout": ""}
		if err := unknown(known); err != nil {
			return nil, nil, err
		}
		switch m := q.Get("sslmode"); m {
		case "disable", "require", "verify-ca", "verify-full":
		case "":
			return nil, nil, fmt.Errorf("go-tpc's PostgreSQL driver (lib/pq) has no sslmode=prefer, fairbench's default: write sslmode=disable, require, verify-ca or verify-full in the target URL")
		default:
			return nil, nil, fmt.Errorf("sslmode=%s: go-tpc's PostgreSQL driver (lib/pq) knows disable, require, verify-ca and verify-full", m)
		}
		for _, k := range []string{"sslmode", "sslrootcert", "sslcert", "sslkey", "connect_timeout"} {
			if v := q.Get(k); v != "" {
				if strings.ContainsAny(v, "&= ") {
					return nil, nil, fmt.Errorf("target URL parameter %s=%q: go-tpc passes it on in its connection string, where &, = and spaces do not survive", k, v)
				}
				conn = append(conn, k+"="+v)
			}
		}
		args = []string{"-d", "postgres", "-H", host, "-P", port, "-U", user, "-D", db}
		if hasPw {
			env = append(env, "PGPASSWORD="+pw)
		}
	case "mysql", "mariadb":
		if port == "" {
			port = "3306"
		}
		known := map[string]string{"tls": "", "ssl-ca": "", "timeout": "", "autocommit": ""}
		if err := unknown(known); err != nil {
			return nil, nil, err
		}
		args = []string{"-d", "mysql", "-H", host, "-P", port, "-U", user, "-D", db}
		ca := q.Get("ssl-ca")
		switch t := strings.ToLower(q.Get("tls")); t {
		case "", "false", "0", "disabled":
			conn = append(conn, "tls=false")
		case "preferred":
			// go-tpc's own default.
		case "skip-verify", "required":
			conn = append(conn, "tls=skip-verify")
		case "true", "1", "verify", "verify-full", "verify_identity":
			if ca == "" {
				conn = append(conn, "tls=true")
			}
		default:
			return nil, nil, fmt.Errorf("target URL: tls=%s: go-tpc cells understand false, preferred, skip-verify and verify", q.Get("tls"))
		}
		if ca != "" {
			switch strings.ToLower(q.Get("tls")) {
			case "true", "1", "verify", "verify-full", "verify_identity":
				args = append(args, "--ssl-ca", ca)
			default:
				return nil, nil, fmt.Errorf("target URL: ssl-ca needs tls=verify")
			}
		}
		if v := q.Get("timeout"); v != "" {
			d, err := params.ParseDuration(v)
			if err != nil || d <= 0 {
				return nil, nil, fmt.Errorf("target URL: timeout=%s: use a duration (\"5s\") or seconds", v)
			}
			conn = append(conn, "timeout="+d.String())
		}
		switch v := q.Get("autocommit"); v {
		case "":
		case "0", "1":
			conn = append(conn, "autocommit="+v)
		default:
			return nil, nil, fmt.Errorf("target URL: autocommit=%s: use 0 or 1", v)
		}
		if hasPw || os.Getenv("MYSQL_PWD") != "" {
			where := "the target URL carries one"
			if !hasPw {
				where = "MYSQL_PWD is set (where fairbench's MySQL driver takes it)"
			}
			return nil, nil, fmt.Errorf("go-tpc %s takes a MySQL password only on its command line (-p), where ps shows it, and reads no MYSQL_PWD: %s; use fairbench's own tpcc workload (the same cell without `tool`), or tool = \"hammerdb\" (its password goes in a private script), or a password-less MySQL user for go-tpc", goTPCVersion, where)
		}
	default:
		return nil, nil, fmt.Errorf("go-tpc needs a postgres:// or mysql:// target, not %s://", u.Scheme)
	}
	if len(conn) > 0 {
		args = append(args, "--conn-params", strings.Join(conn, "&"))
	}
	return args, env, nil
}

// goTPCCellChecks refuses what go-tpc cannot run.
func goTPCCellChecks(inv Invocation) (warehouses int64, err error) {
	o := tpccparams.Decode(inv.Params)
	warehouses = o.Warehouses
	if impl := o.Implementation; impl != tpccparams.Client {
		return 0, fmt.Errorf("implementation = %q: go-tpc sends each transaction's statements from the client and has no stored procedures; use implementation = %q", impl, tpccparams.Client)
	}
	if !o.AllWarehouses && warehouses > 1 {
		return 0, fmt.Errorf("all_warehouses = false: go-tpc draws every transaction's warehouse at random (HammerDB's allwarehouse), with no home warehouse per client; set all_warehouses = true for go-tpc cells with more than one warehouse")
	}
	if s := o.Seed; s != 0 {
		return 0, fmt.Errorf("seed = %d: go-tpc generates its data with its own random numbers, not fairbench's seed; leave seed at 0", s)
	}
	return warehouses, nil
}

func buildGoTPC(inv Invocation) (Command, error) {
	conn, env, err := goTPCTarget(inv.URL)
	if err != nil {
		return Command{}, err
	}
	w, err := goTPCCellChecks(inv)
	if err != nil {
		return Command{}, err
	}
	switch {
	case inv.Clients < 1:
		return Command{}, fmt.Errorf("go-tpc needs at least one client (thread)")
	case inv.Rate > 0:
		return Command{}, fmt.Errorf("go-tpc has no target rate: remove rate from go-tpc cells (keying_thinking = true paces each client as the specification does)")
	case inv.LatencyLimit > 0:
		return Command{}, fmt.Errorf("go-tpc has no latency limit (pgbench's -L): remove latency_limit from go-tpc cells")
	case inv.MaxTries > 1:
		return Command{}, fmt.Errorf("go-tpc does not retry failed transactions: remove max_tries from go-tpc cells")
	case inv.Threads > 0 && inv.Threads != inv.Clients:
		return Command{}, fmt.Errorf("go-tpc runs one thread per client (-T): remove threads from go-tpc cells")
	}
	a := []string{"go-tpc", "tpcc", "run", "--warehouses", strconv.FormatInt(w, 10)}
	a = append(a, conn...)
	a = append(a, "-T", strconv.Itoa(inv.Clients), "--time", secs(inv.Duration)+"s", "--interval", "1s",
		"--output", "plain", "--ignore-error")
	if tpccparams.Decode(inv.Params).KeyingThinking {
		a = append(a, "--wait")
	}
	return Command{Argv: a, Env: env}, nil
}

func loadGoTPC(inv Invocation) (*DataLoad, error) {
	conn, env, err := goTPCTarget(inv.URL)
	if err != nil {
		return nil, err
	}
	w, err := goTPCCellChecks(inv)
	if err != nil {
		return nil, err
	}
	// go-tpc loads one warehouse per thread at a time.
	workers := min(tpccparams.Decode(inv.Params).LoadWorkers, w)
	a := []string{"go-tpc", "tpcc", "prepare", "--warehouses", strconv.FormatInt(w, 10)}
	a = append(a, conn...)
	a = append(a, "-T", strconv.FormatInt(workers, 10), "--dropdata", "--output", "plain")
	// Without go-tpc's consistency check (TPC-C 3.3.2) of what it loaded:
	// condition 3.3.2.10 is a correlated query per customer that takes longer
	// than the load itself (measured, one warehouse: PostgreSQL 15 80 s with
	// the check, 20 s without; MariaDB 10.11, which scans history once per
	// customer, 530 s with, 34 s without; growing with the square of the
	// warehouses). It checks go-tpc's generator, not the target; the load's
	// output is checked instead.
	a = append(a, "--no-check")
	return &DataLoad{
		Command: Command{Argv: a, Env: env},
		Tables:  goTPCTables,
		Dataset: "go-tpc",
		Params:  fmt.Sprintf("warehouses=%d", w),
		Check:   func(out string) error { return checkGoTPCPrepare(out, w) },
	}, nil
}

// flagValue is the value after flag in argv, "" when absent.
func flagValue(argv []string, flag string) string {
	if i := slices.Index(argv, flag); i >= 0 && i+1 < len(argv) {
		return argv[i+1]
	}
	return ""
}

var (
	goTPCStockLoaded = regexp.MustCompile(`(?m)^load to stock in warehouse (\d+)\r?$`)
	goTPCLoadFailed  = regexp.MustCompile(`(?mi)^(check prepare failed.*|panic: .*|.*a fatal occurred.*|failed to .*|execute \w+ failed.*)$`)
)

// checkGoTPCPrepare reads go-tpc prepare's output: every warehouse's stock
// loaded, no failure, the consistency check (which go-tpc prints but does not
// exit non-zero on) passed when it ran, and "Finished".
func checkGoTPCPrepare(out string, warehouses int64) error {
	if m := goTPCLoadFailed.FindString(out); m != "" {
		return fmt.Errorf("go-tpc prepare: %s", trimTo(strings.TrimSpace(m), 300))
	}
	seen := map[int64]bool{}
	for _, m := range goTPCStockLoaded.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		seen[n] = true
	}
	for w := int64(1); w <= warehouses; w++ {
		if !seen[w] {
			return fmt.Errorf("go-tpc prepare did not load warehouse %d of %d (no \"load to stock in warehouse %d\" line)", w, warehouses, w)
		}
	}
	if !regexp.MustCompile(`(?m)^Finished\r?$`).MatchString(out) {
		return fmt.Errorf("go-tpc prepare did not finish (no \"Finished\" line)")
	}
	return nil
}
