package adapter

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/boundfile"
	"github.com/fairbench/fairbench/internal/params/tpccparams"
	"github.com/fairbench/fairbench/internal/result"
)

// A study cell with tool = "hammerdb" runs HammerDB 4.12's TPROC-C through
// hammerdbcli for a tpcc cell: its buildschema into the target's database
// before the cell's first run, then one timed run whose ramp-up is the cell's
// warm-up and whose test period is the cell's duration, both in whole minutes
// (hammerdbcli's own wait for the end of a run works only for whole minutes;
// 0 minutes of ramp-up is allowed). scripts/install-hammerdb.sh DIR installs
// it and prints the directory that holds hammerdbcli, which must be on the
// PATH.
//
// fairbench writes a .tcl script (dbset db pg|mysql; dbset bm TPC-C; every
// diset it depends on, since HammerDB otherwise keeps the last values in its
// configuration database) into the run's private directory (mode 0700, the
// script 0600, removed after the run), and runs `hammerdbcli auto SCRIPT`
// from the HammerDB directory with TMP set to that directory, where HammerDB
// keeps its configuration and job databases and writes hdbxtprofile.log,
// which AttachLogDir reads for the per-transaction figures. The password
// goes into that script only, never onto a command line or into the
// environment, and the script sets it with diset's echo silenced, so that
// hammerdbcli's output (read into the run) does not hold it either.
//
// Parameters (tpccparams): warehouses → *_count_ware; all_warehouses →
// *_allwarehouse; keying_thinking → *_keyandthink; load_workers → the
// build's *_num_vu (at most one per warehouse); clients → vuset vu; the time
// profile is always on (*_timeprofile true). implementation = "procedures"
// is HammerDB's way on both engines: on PostgreSQL pg_storedprocs false,
// HammerDB's default, which installs functions called with SELECT (as
// fairbench's own procedures on PostgreSQL are; true installs PostgreSQL 11
// procedures called with CALL); on MySQL/MariaDB its stored procedures.
// implementation = "client" runs HammerDB's mysql_no_stored_procs mode on
// MySQL/MariaDB (each transaction's statements sent by the virtual user) and
// is refused on PostgreSQL, where HammerDB has no such mode. A seed other
// than 0, a rate, a latency limit, retries and threads are refused.
//
// Target: postgres:// — pg_host, pg_port (5432), pg_sslmode (the URL's
// sslmode, else prefer); the URL's user is both HammerDB's "superuser"
// (pg_superuser, connecting to pg_defaultdbase = the target's database) and
// its user (pg_user), pg_dbase is the target's database. HammerDB's build
// creates pg_user's role when missing and otherwise sets its password (ALTER
// USER … PASSWORD) to pg_pass, then uses the database when it is empty (ALTER
// DATABASE … OWNER TO pg_user). With the target's own user as pg_user that
// changes nothing, but only when the URL carries that user's password: a
// postgres:// target without one is refused, since HammerDB would set an
// empty password. No superuser is needed: the target's user must be able to
// connect to its database and create tables and functions in its schema
// (the database's owner can). mysql:// — mysql_host, mysql_port (3306),
// mysql_socket null (TCP, whatever the host), mysql_user, mysql_pass,
// mysql_dbase = the target's database, mysql_ssl false (tls other than false
// is refused).
//
// The database: HammerDB's buildschema builds into an empty database and
// refuses one holding any table. fairbench lets it run on a database with no
// table, or on one that holds only the HammerDB tables fairbench's marker says
// fairbench's HammerDB load made (DataLoad.WholeDatabase): it drops them, and
// HammerDB's procedures, first. The database must exist (fairbench connects
// to it to read its markers).

// hammerdbDir is the HammerDB version fairbench runs and was tested with.
const hammerdbVersion = "4.12"

var hammerdbInstall = "HammerDB " + hammerdbVersion + "'s hammerdbcli is needed: scripts/install-hammerdb.sh DIR installs it into DIR/hammerdb-" +
	hammerdbVersion + " (from the sources in third_party/peers/, with Debian's Tcl 8.6) and prints that directory; put it on the PATH"

// hammerDBTables are the tables HammerDB's TPROC-C schema build makes.
var hammerDBTables = []string{"customer", "district", "history", "item", "new_order", "order_line", "orders", "stock", "warehouse"}

// hammerdbProcs are the routines HammerDB's build installs.
var hammerdbProcs = []string{"neword", "delivery", "payment", "ostat", "slev"}

// hammerdbScript is the script's file name in the run's private directory.
const hammerdbScript = "fairbench-hammerdb.tcl"

// hdbTarget is a target as HammerDB's settings.
type hdbTarget struct {
	db                 string // "pg" or "mysql": dbset db and the diset prefix
	host, port         string
	user, pass, dbname string
	sslmode            string // pg
}

var (
	hdbName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	hdbHost = regexp.MustCompile(`^[A-Za-z0-9_.:-]+$`)
	// HammerDB writes the password into the Tcl scripts it generates and,
	// on PostgreSQL, into SQL (PASSWORD '…').
	hdbPassBad = regexp.MustCompile(`[^!%&()*+,./0-9:<=>?@A-Z^_a-z|~-]`)
)

func hammerdbTarget(raw string) (*hdbTarget, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("hammerdb needs a postgres:// or mysql:// target URL")
	}
	t := &hdbTarget{host: u.Hostname(), port: u.Port(), dbname: strings.TrimPrefix(u.Path, "/")}
	hasPass := false
	if u.User != nil {
		t.user = u.User.Username()
		t.pass, hasPass = u.User.Password()
	}
	if t.host == "" {
		t.host = "127.0.0.1"
	}
	q := u.Query()
	switch strings.ToLower(u.Scheme) {
	case "postgres", "postgresql":
		t.db = "pg"
		if t.port == "" {
			t.port = "5432"
		}
		for k := range q {
			if k != "sslmode" {
				return nil, fmt.Errorf("target URL parameter %q: hammerdb cells on PostgreSQL understand sslmode", k)
			}
		}
		switch m := q.Get("sslmode"); m {
		case "":
			t.sslmode = "prefer"
		case "disable", "allow", "prefer", "require", "verify-ca", "verify-full":
			t.sslmode = m
		default:
			return nil, fmt.Errorf("target URL: sslmode=%s: use disable, allow, prefer, require, verify-ca or verify-full", m)
		}
		if !hasPass || t.pass == "" {
			return nil, fmt.Errorf("hammerdb cells on PostgreSQL need the password in the target URL: HammerDB's schema build sets its user's password (ALTER USER … PASSWORD) to the one it is given, and fairbench gives it the target's own user and password, which leaves the role as it is")
		}
	case "mysql", "mariadb":
		t.db = "mysql"
		if t.port == "" {
			t.port = "3306"
		}
		for k := range q {
			if k != "tls" {
				return nil, fmt.Errorf("target URL parameter %q: hammerdb cells on MySQL/MariaDB understand tls=false only", k)
			}
		}
		switch strings.ToLower(q.Get("tls")) {
		case "", "false", "0", "disabled":
		default:
			return nil, fmt.Errorf("target URL: tls=%s: hammerdb cells connect without TLS (mysql_ssl false); remove tls or write tls=false", q.Get("tls"))
		}
	default:
		return nil, fmt.Errorf("hammerdb needs a postgres:// or mysql:// target, not %s://", u.Scheme)
	}
	if !hdbHost.MatchString(t.host) {
		return nil, fmt.Errorf("target URL: host %q: hammerdb cells take a host name or an IPv4 address", t.host)
	}
	for what, v := range map[string]string{"user": t.user, "database": t.dbname} {
		if !hdbName.MatchString(v) {
			return nil, fmt.Errorf("HammerDB writes the %s into the Tcl and SQL it generates: the target URL needs one of letters, digits, _ and - (got %q)", what, v)
		}
	}
	if hdbPassBad.MatchString(t.pass) {
		return nil, fmt.Errorf("HammerDB writes the password into the Tcl and SQL it generates, where spaces, quotes, backslashes, braces, brackets, $, ; and # do not survive: use a password without them for hammerdb cells")
	}
	return t, nil
}

// hdbCell is what HammerDB runs of a cell.
type hdbCell struct {
	warehouses int64
	noProcs    bool // mysql_no_stored_procs
}

func hammerdbCellChecks(inv Invocation, t *hdbTarget) (hdbCell, error) {
	o := tpccparams.Decode(inv.Params)
	c := hdbCell{warehouses: o.Warehouses}
	switch impl := o.Implementation; impl {
	case "", tpccparams.Procedures:
	case tpccparams.Client:
		if t.db == "pg" {
			return c, fmt.Errorf("implementation = %q: HammerDB runs every transaction on PostgreSQL as a server-side function or procedure and has no client-side mode; use implementation = %q for hammerdb cells on PostgreSQL", impl, tpccparams.Procedures)
		}
		c.noProcs = true
	default:
		return c, fmt.Errorf("implementation = %q: hammerdb cells know %q and %q", impl, tpccparams.Procedures, tpccparams.Client)
	}
	if s := o.Seed; s != 0 {
		return c, fmt.Errorf("seed = %d: HammerDB generates its data with its own random numbers, not fairbench's seed; leave seed at 0", s)
	}
	return c, nil
}

// hdbBool is a Tcl boolean as HammerDB's settings write it.
func hdbBool(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// wholeMinutes is d in whole minutes, or an error naming what.
func wholeMinutes(d time.Duration, what string, zero bool) (int64, error) {
	if d%time.Minute != 0 || d < 0 || (d == 0 && !zero) {
		if zero {
			return 0, fmt.Errorf("%s %v: HammerDB ramps up for whole minutes only (hammerdbcli's wait for the end of a run does not work otherwise): set warmup = \"0s\", \"1m\", … in the study or the workload (the study's default is 5 s)", what, d)
		}
		return 0, fmt.Errorf("%s %v: HammerDB runs for whole minutes only, at least 1 (hammerdbcli's wait for the end of a run does not work otherwise): use \"1m\", \"2m\", …", what, d)
	}
	return int64(d / time.Minute), nil
}

// script is the common head of HammerDB's scripts: the connection and the
// credentials, whose diset echo is silenced (it prints the value).
func (t *hdbTarget) script(c hdbCell, buildVUs int64) []string {
	p := t.db + "_"
	s := []string{
		"# written by fairbench for one hammerdbcli run; removed after it (it holds the password)",
		"dbset db " + t.db,
		"dbset bm TPC-C",
		"diset connection " + p + "host " + t.host,
		"diset connection " + p + "port " + t.port,
	}
	var secret []string
	if t.db == "pg" {
		s = append(s, "diset connection pg_sslmode "+t.sslmode,
			"diset tpcc pg_superuser "+t.user,
			"diset tpcc pg_defaultdbase "+t.dbname,
			"diset tpcc pg_user "+t.user,
			"diset tpcc pg_dbase "+t.dbname,
			"diset tpcc pg_storedprocs false",
			"diset tpcc pg_partition false",
			"diset tpcc pg_oracompat false",
			"diset tpcc pg_cituscompat false",
			"diset tpcc pg_vacuum false")
		secret = []string{"diset tpcc pg_superuserpass {" + t.pass + "}", "diset tpcc pg_pass {" + t.pass + "}"}
	} else {
		s = append(s, "diset connection mysql_socket null",
			"diset connection mysql_ssl false",
			"diset tpcc mysql_user "+t.user,
			"diset tpcc mysql_dbase "+t.dbname,
			"diset tpcc mysql_storage_engine innodb",
			"diset tpcc mysql_partition false",
			"diset tpcc mysql_no_stored_procs "+hdbBool(c.noProcs))
		secret = []string{"diset tpcc mysql_pass {" + t.pass + "}"}
	}
	s = append(s, "rename putscli fairbench_putscli; proc putscli {output} {}")
	s = append(s, secret...)
	s = append(s, "rename putscli {}; rename fairbench_putscli putscli",
		"diset tpcc "+p+"count_ware "+strconv.FormatInt(c.warehouses, 10),
		"diset tpcc "+p+"num_vu "+strconv.FormatInt(buildVUs, 10))
	return s
}

// hammerdbCommand is hammerdbcli auto SCRIPT, run from HammerDB's directory
// with TMP set to dir. With dir "" (the runner's check before a study) the
// script is not written.
func hammerdbCommand(dir string, lines []string) (Command, error) {
	cli, err := exec.LookPath("hammerdbcli")
	if err != nil {
		return Command{}, errors.New(hammerdbInstall)
	}
	if cli, err = filepath.Abs(cli); err != nil {
		return Command{}, err
	}
	if resolved, err := filepath.EvalSymlinks(cli); err == nil {
		cli = resolved
	}
	home := filepath.Dir(cli)
	lib := filepath.Join(home, "lib")
	if strings.ContainsAny(lib, " {}\\\"") {
		return Command{}, fmt.Errorf("HammerDB's directory %s: its path goes into TCLLIBPATH, a Tcl list: install HammerDB under a path without spaces, braces, quotes or backslashes", home)
	}
	script := filepath.Join(dir, hammerdbScript)
	if dir == "" {
		script = hammerdbScript
	} else if err := os.WriteFile(script, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		return Command{}, fmt.Errorf("writing HammerDB's script: %w", err)
	}
	return Command{
		Argv: []string{cli, "auto", script},
		// TMP: where HammerDB keeps its configuration and job databases
		// and writes hdbxtprofile.log (and hammerdb.log).
		Env: []string{"TMP=" + dir, "TMPDIR=" + dir, "TCLLIBPATH=" + lib},
		Dir: home,
	}, nil
}

func buildHammerDB(inv Invocation) (Command, error) {
	t, err := hammerdbTarget(inv.URL)
	if err != nil {
		return Command{}, err
	}
	c, err := hammerdbCellChecks(inv, t)
	if err != nil {
		return Command{}, err
	}
	switch {
	case inv.Clients < 1:
		return Command{}, fmt.Errorf("hammerdb needs at least one client (virtual user)")
	case inv.Rate > 0:
		return Command{}, fmt.Errorf("HammerDB has no target rate: remove rate from hammerdb cells (keying_thinking = true paces each virtual user as the specification does)")
	case inv.LatencyLimit > 0:
		return Command{}, fmt.Errorf("HammerDB has no latency limit (pgbench's -L): remove latency_limit from hammerdb cells")
	case inv.MaxTries > 1:
		return Command{}, fmt.Errorf("HammerDB does not retry failed transactions: remove max_tries from hammerdb cells")
	case inv.Threads > 0 && inv.Threads != inv.Clients:
		return Command{}, fmt.Errorf("HammerDB runs one thread per virtual user: remove threads from hammerdb cells")
	}
	rampup, err := wholeMinutes(inv.Warmup, "warm-up (HammerDB's ramp-up)", true)
	if err != nil {
		return Command{}, err
	}
	duration, err := wholeMinutes(inv.Duration, "duration", false)
	if err != nil {
		return Command{}, err
	}
	p := t.db + "_"
	o := tpccparams.Decode(inv.Params)
	kt, all := o.KeyingThinking, o.AllWarehouses
	s := t.script(c, 1)
	s = append(s,
		"diset tpcc "+p+"driver timed",
		"diset tpcc "+p+"total_iterations 10000000",
		"diset tpcc "+p+"rampup "+strconv.FormatInt(rampup, 10),
		"diset tpcc "+p+"duration "+strconv.FormatInt(duration, 10),
		"diset tpcc "+p+"timeprofile true",
		"diset tpcc "+p+"allwarehouse "+hdbBool(all),
		"diset tpcc "+p+"raiseerror false",
		"diset tpcc "+p+"keyandthink "+hdbBool(kt),
		"loadscript",
		`puts "TEST STARTED"`,
		"vuset vu "+strconv.Itoa(inv.Clients),
		"vuset logtotemp 1",
		"vucreate",
		// vurun waits (HammerDB's keepalive) for ramp-up + duration + 10 s;
		// then, should the virtual users still run, up to 2 minutes more,
		// and 15 s for the monitor to write the time profile.
		"set jobid [ lindex [ split [ vurun ] = ] end ]",
		"if {![vucomplete]} { _runtimer "+strconv.FormatInt((rampup+duration)*60+120, 10)+" }",
		"after 15000 {set ::hdb_wait 1}; vwait ::hdb_wait",
		"vudestroy",
		`puts "TEST COMPLETE jobid=$jobid"`,
		`puts "JOB RESULT:"`,
		"puts [ jobs $jobid result ]",
		`puts "JOB TIMING:"`,
		"puts [ jobs $jobid timing ]",
	)
	return hammerdbCommand(inv.LogDir, s)
}

func loadHammerDB(inv Invocation) (*DataLoad, error) {
	t, err := hammerdbTarget(inv.URL)
	if err != nil {
		return nil, err
	}
	c, err := hammerdbCellChecks(inv, t)
	if err != nil {
		return nil, err
	}
	if inv.LogDir == "" {
		return nil, fmt.Errorf("HammerDB's load needs a private directory for its script")
	}
	// HammerDB builds with at most one virtual user per warehouse.
	vus := min(tpccparams.Decode(inv.Params).LoadWorkers, c.warehouses)
	s := t.script(c, vus)
	s = append(s, "buildschema", `puts "SCHEMA BUILD COMPLETED"`)
	cmd, err := hammerdbCommand(inv.LogDir, s)
	if err != nil {
		return nil, err
	}
	var myClear []string
	myClear = append(myClear, "DROP TABLE IF EXISTS "+strings.Join(hammerDBTables, ", "))
	for _, p := range hammerdbProcs {
		myClear = append(myClear, "DROP PROCEDURE IF EXISTS "+p)
	}
	// HammerDB's functions or procedures (pg_storedprocs), whatever their
	// arguments, and its DBMS_RANDOM.
	pgRoutines := "DO $$DECLARE r record; BEGIN FOR r IN SELECT p.oid::regprocedure AS sig FROM pg_catalog.pg_proc p " +
		"JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = current_schema() AND p.proname IN ('" +
		strings.Join(append(append([]string{}, hammerdbProcs...), "dbms_random"), "', '") + "') LOOP EXECUTE 'DROP ROUTINE ' || r.sig; END LOOP; END$$"
	return &DataLoad{
		Command:       cmd,
		Tables:        hammerDBTables,
		Dataset:       "hammerdb",
		Params:        fmt.Sprintf("warehouses=%d", c.warehouses),
		Check:         func(out string) error { return checkHammerDBBuild(out) },
		WholeDatabase: true,
		Clear: map[string][]string{
			"postgres": {"DROP TABLE IF EXISTS " + strings.Join(hammerDBTables, ", ") + " CASCADE", pgRoutines},
			"mysql":    myClear,
		},
	}, nil
}

var (
	// hammerdbcli starts many lines with a carriage return.
	// "Vuser 1:TPCC SCHEMA COMPLETE": the user's name in capitals on
	// PostgreSQL, the database's on MySQL.
	hdbBuildDone   = regexp.MustCompile(`(?m)^\r?Vuser \d+:\S+ SCHEMA COMPLETE\r?$`)
	hdbBuildFailed = regexp.MustCompile(`(?m)^\r?(Vuser \d+:FINISHED FAILED.*|.*Error.*|.*exists but is not empty.*)$`)
)

// checkHammerDBBuild reads buildschema's output: the schema complete, no
// virtual user failed.
func checkHammerDBBuild(out string) error {
	if m := hdbBuildFailed.FindString(out); m != "" {
		return fmt.Errorf("HammerDB's schema build failed: %s", trimTo(strings.TrimSpace(m), 300))
	}
	if !hdbBuildDone.MatchString(out) {
		tail := strings.TrimSpace(out)
		if len(tail) > 600 {
			tail = "…" + tail[len(tail)-600:]
		}
		return fmt.Errorf("HammerDB's schema build did not complete (no \"… SCHEMA COMPLETE\" line): %s", tail)
	}
	return nil
}

// attachHammerDBLogDir reads the time profile HammerDB wrote into TMP.
func attachHammerDBLogDir(runs []*result.Run, dir string) error {
	name := filepath.Join(dir, "hdbxtprofile.log")
	b, err := boundfile.Read(name, maxOutput, "HammerDB's time profile")
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && len(runs) == 1 && len(runs[0].Ops) > 0 {
			return nil // the job timing in the output gave the profile
		}
		return fmt.Errorf("HammerDB's time profile: %w", err)
	}
	return attachHammerDBProfile(runs, []File{{Name: name, Text: string(b)}})
}
