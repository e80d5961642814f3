package adapter

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/boundfile"
	"github.com/fairbench/fairbench/internal/ownership"
	"github.com/fairbench/fairbench/internal/params/ycsbparams"
)

// A study cell with tool = "ycsb" runs go-ycsb v1.0.1: go-ycsb load into a
// fresh table of fairbench's own before the cell's first run, then go-ycsb
// run for the cell's duration.
//
// go-ycsb v1.0.1 declares maxexecutiontime but never reads it, and stops by
// itself only after operationcount operations; so the run goes under
// coreutils' timeout, which sends it SIGINT at the end of the cell's duration
// — go-ycsb then stops its workers and prints its results as usual, and the
// run records the duration go-ycsb measured.
//
// The workloads are YCSB's core workloads as the YCSB repository defines them
// (zipfian requests; workload E scans up to 100 records), passed as
// properties: go-ycsb's own workload files differ (uniform requests, scans of
// one record) and are not installed with the binary.
//
// The parameters property_files and properties go to go-ycsb as they are,
// each file as -P (go-ycsb reads them in order) and each name=value as -p
// after fairbench's own, so that they win. go-ycsb applies every -p after the
// -P files, so a preset property that a file sets is left out, for the file
// to win over the preset as the parameters say. The properties fairbench sets
// from the cell (table, recordcount, operationcount, threadcount, target,
// workload, dropdata and the connection's) are the cell's: a properties entry
// setting one is refused, and a file's value of one is overridden. Both go to
// the load too, so that a fieldcount or fieldlength shapes the data loaded.

// ycsbVersion is the go-ycsb fairbench runs and was tested with.
const ycsbVersion = "v1.0.1"

// ycsbInstall builds go-ycsb from its module source: its go.mod has a replace
// directive, so "go install …@v1.0.1" refuses it.
var ycsbInstall = "go-ycsb " + ycsbVersion + " is needed; build it from its module source (go install refuses it: its go.mod has a replace directive): " +
	"go mod download github.com/pingcap/go-ycsb@" + ycsbVersion + " && " +
	"cp -r $(go env GOMODCACHE)/github.com/pingcap/go-ycsb@" + ycsbVersion + " /tmp/go-ycsb-src && chmod -R u+w /tmp/go-ycsb-src && " +
	"(cd /tmp/go-ycsb-src && go build -o /usr/local/bin/go-ycsb ./cmd/go-ycsb) — or any directory on the PATH; scripts/install-go-ycsb.sh does this"

// YcsbTable is the table ycsb cells load and run on: fairbench's own, so
// that loading may drop and recreate it.
const YcsbTable = "fairbench_ycsb"

// ycsbWorkloads are YCSB's core workloads (workloads/workload[a-f] of the
// YCSB repository), minus recordcount and operationcount.
var ycsbWorkloads = map[string][][2]string{
	"a": {{"readproportion", "0.5"}, {"updateproportion", "0.5"}, {"scanproportion", "0"}, {"insertproportion", "0"}, {"requestdistribution", "zipfian"}},
	"b": {{"readproportion", "0.95"}, {"updateproportion", "0.05"}, {"scanproportion", "0"}, {"insertproportion", "0"}, {"requestdistribution", "zipfian"}},
	"c": {{"readproportion", "1"}, {"updateproportion", "0"}, {"scanproportion", "0"}, {"insertproportion", "0"}, {"requestdistribution", "zipfian"}},
	"d": {{"readproportion", "0.95"}, {"updateproportion", "0"}, {"scanproportion", "0"}, {"insertproportion", "0.05"}, {"requestdistribution", "latest"}},
	"e": {{"readproportion", "0"}, {"updateproportion", "0"}, {"scanproportion", "0.95"}, {"insertproportion", "0.05"}, {"requestdistribution", "zipfian"},
		{"maxscanlength", "100"}, {"scanlengthdistribution", "uniform"}},
	"f": {{"readproportion", "0.5"}, {"updateproportion", "0"}, {"scanproportion", "0"}, {"insertproportion", "0"}, {"readmodifywriteproportion", "0.5"},
		{"requestdistribution", "zipfian"}},
}

// ycsbPasswordEnv carries a MySQL or Redis password to go-ycsb: its
// properties expand ${NAME} from the environment when read, and print
// unexpanded, so neither the command line nor the output holds the password.
const ycsbPasswordEnv = "FAIRBENCH_YCSB_PASSWORD"

// ycsbNoLimit is the operationcount of a run bounded by time only: go-ycsb
// needs one (at least one per thread).
const ycsbNoLimit = "1000000000000"

// ycsbTarget is go-ycsb's database name and connection properties for a
// target URL.
func ycsbTarget(raw string) (db string, props [][2]string, env []string, sql bool, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", nil, nil, false, fmt.Errorf("target URL: %w", err)
	}
	host, port := hostPort(u)
	user, pw, hasPw := "", "", false
	if u.User != nil {
		user = u.User.Username()
		pw, hasPw = u.User.Password()
	}
	dbName := strings.TrimPrefix(u.Path, "/")
	switch u.Scheme {
	case "postgres", "postgresql":
		if host == "" || user == "" || dbName == "" {
			return "", nil, nil, false, fmt.Errorf("go-ycsb needs a postgres:// target with a host, a user and a database (postgres://user@host:port/db)")
		}
		props = append(props, [2]string{"pg.host", host})
		if port != "" {
			props = append(props, [2]string{"pg.port", port})
		}
		props = append(props, [2]string{"pg.user", user}, [2]string{"pg.db", dbName})
		if m := u.Query().Get("sslmode"); m != "" {
			props = append(props, [2]string{"pg.sslmode", m})
		}
		if hasPw {
			// go-ycsb's lib/pq reads PGPASSWORD when pg.password is unset.
			env = append(env, "PGPASSWORD="+pw)
		}
		return "postgresql", props, env, true, nil
	case "mysql", "mariadb":
		if host == "" || user == "" || dbName == "" {
			return "", nil, nil, false, fmt.Errorf("go-ycsb needs a mysql:// target with a host, a user and a database (mysql://user@host:port/db)")
		}
		props = append(props, [2]string{"mysql.host", host})
		if port != "" {
			props = append(props, [2]string{"mysql.port", port})
		}
		props = append(props, [2]string{"mysql.user", user}, [2]string{"mysql.db", dbName})
		if hasPw {
			if strings.Contains(pw, "${") {
				return "", nil, nil, false, fmt.Errorf("go-ycsb would expand the ${ in the target's password: use a password without it")
			}
			props = append(props, [2]string{"mysql.password", "${" + ycsbPasswordEnv + "}"})
			env = append(env, ycsbPasswordEnv+"="+pw)
		}
		if len(u.Query()) > 0 {
			return "", nil, nil, false, fmt.Errorf("go-ycsb's MySQL binding takes no connection options: remove ?%s from the target URL", u.RawQuery)
		}
		return "mysql", props, env, true, nil
	case "redis":
		if host == "" {
			return "", nil, nil, false, fmt.Errorf("go-ycsb needs a redis:// target with a host")
		}
		if port == "" {
			port = "6379"
		}
		props = append(props, [2]string{"redis.addr", host + ":" + port})
		if hasPw {
			if strings.Contains(pw, "${") {
				return "", nil, nil, false, fmt.Errorf("go-ycsb would expand the ${ in the target's password: use a password without it")
			}
			if user != "" && user != "default" {
				props = append(props, [2]string{"redis.username", user})
			}
			props = append(props, [2]string{"redis.password", "${" + ycsbPasswordEnv + "}"})
			env = append(env, ycsbPasswordEnv+"="+pw)
		}
		if n := strings.TrimPrefix(u.Path, "/"); n != "" {
			if _, err := strconv.Atoi(n); err != nil {
				return "", nil, nil, false, fmt.Errorf("redis://host/%s: the path must be a database number", n)
			}
			props = append(props, [2]string{"redis.db", n})
		}
		return "redis", props, env, false, nil
	}
	return "", nil, nil, false, fmt.Errorf("ycsb runs go-ycsb, which needs a postgres://, mysql:// or redis:// target here (its postgresql, mysql and redis bindings), not %s://", u.Scheme)
}

// ycsbData are the properties of the data set itself, shared by load and run.
func ycsbData(o ycsbparams.Options) [][2]string {
	return [][2]string{{"table", YcsbTable}, {ycsbparams.RecordCount, strconv.FormatInt(o.RecordCount, 10)},
		{"fieldcount", "10"}, {"fieldlength", "100"}}
}

func ycsbArgv(cmd, db string, files []string, props [][2]string, extra ...string) []string {
	a := append([]string{"go-ycsb", cmd, db}, extra...)
	for _, f := range files {
		a = append(a, "-P", f)
	}
	for _, kv := range props {
		a = append(a, "-p", kv[0]+"="+kv[1])
	}
	return a
}

func buildYcsb(inv Invocation) (Command, error) {
	db, conn, env, _, err := ycsbTarget(inv.URL)
	if err != nil {
		return Command{}, err
	}
	o := ycsbparams.Decode(inv.Params)
	w, ok := ycsbWorkloads[o.Workload]
	if !ok {
		return Command{}, fmt.Errorf("unknown YCSB workload %q (a to f)", o.Workload)
	}
	if inv.Clients < 1 {
		return Command{}, fmt.Errorf("go-ycsb needs at least one client")
	}
	ops := ycsbNoLimit
	if n := o.OperationCount; n > 0 {
		if n < int64(inv.Clients) {
			return Command{}, fmt.Errorf("operationcount %d is less than the %d clients (go-ycsb gives each thread operationcount/threads operations)", n, inv.Clients)
		}
		ops = strconv.FormatInt(n, 10)
	}
	user, err := ycsbUserProps(o, conn)
	if err != nil {
		return Command{}, err
	}
	props := append(user.omit(ycsbData(o)), [2]string{"workload", "core"}, [2]string{ycsbparams.OperationCount, ops},
		[2]string{"threadcount", strconv.Itoa(inv.Clients)})
	props = append(props, user.omit(append([][2]string{{"readallfields", "true"}}, w...))...)
	if inv.Rate > 0 {
		props = append(props, [2]string{"target", strconv.FormatInt(max(int64(inv.Rate+0.5), 1), 10)})
	}
	props = append(props, conn...)
	props = append(props, user.props...)
	// --interval 1: the cumulative TOTAL line every second, for the series.
	run := ycsbArgv("run", db, user.files, props, "--interval", "1")
	// SIGINT at the end of the duration; killed if it has not stopped 30 s later.
	// --foreground: the signal goes to go-ycsb alone. Without it timeout also
	// signals its process group, go-ycsb sees SIGINT twice and exits at once
	// (status 1) without its results.
	argv := append([]string{"timeout", "--foreground", "--preserve-status", "--signal=INT", "--kill-after=30s", secs(inv.Duration) + "s"}, run...)
	return Command{Argv: argv, Env: env}, nil
}

// ycsbLoadThreads loads with a few threads whatever the cell's clients: the
// load is not measured.
// ycsbWrites: on Redis, go-ycsb's records are hashes <table>/user<hashed
// number> (its redis binding), with no index to list them: every key under
// fairbench_ycsb/ is the cell's, so none may be there before its load, and
// the cell's keys go with it. On SQL targets the table is the load's,
// marked in fairbench_datasets.
func ycsbWrites(inv Invocation) (Footprint, error) {
	db, _, _, _, err := ycsbTarget(inv.URL)
	if err != nil || db != "redis" {
		return Footprint{}, err
	}
	return Footprint{Keys: ownership.KeySet{Prefixes: []string{YcsbTable + "/"}}}, nil
}

const ycsbLoadThreads = 4

func loadYcsb(inv Invocation) (*DataLoad, error) {
	db, conn, env, sql, err := ycsbTarget(inv.URL)
	if err != nil {
		return nil, err
	}
	o := ycsbparams.Decode(inv.Params)
	n := o.RecordCount
	user, err := ycsbUserProps(o, conn)
	if err != nil {
		return nil, err
	}
	props := append(user.omit(ycsbData(o)), [2]string{"workload", "core"},
		[2]string{"threadcount", strconv.FormatInt(min(ycsbLoadThreads, max(n, 1)), 10)})
	if sql {
		// Drops and recreates the table (go-ycsb honours dropdata when loading;
		// on Redis it would flush the whole database, so never there).
		props = append(props, [2]string{"dropdata", "true"})
	}
	props = append(props, conn...)
	props = append(props, user.props...)
	shape := fmt.Sprintf("recordcount=%d fieldcount=10 fieldlength=100", n)
	if len(user.files) > 0 || len(user.props) > 0 {
		// The files and properties may shape the data: another set, another load.
		shape = fmt.Sprintf("recordcount=%d property_files=%s properties=%s", n,
			strings.Join(user.files, ","), strings.Join(o.Properties, ","))
	}
	l := &DataLoad{
		Command: Command{Argv: ycsbArgv("load", db, user.files, props), Env: env},
		Params:  shape,
		Check:   func(out string) error { return checkYcsbLoad(out, n) },
	}
	if sql {
		l.Tables, l.Dataset = []string{YcsbTable}, "go-ycsb"
	}
	return l, nil
}

// checkYcsbLoad reads go-ycsb load's output: every record inserted, none failed.
func checkYcsbLoad(out string, records int64) error {
	runs, err := parseYcsb("go-ycsb load output", out)
	if err != nil {
		return err
	}
	r := runs[0]
	var inserted int64
	for _, op := range r.Ops {
		if op.Name == "INSERT" {
			inserted = op.Count
		}
	}
	if r.Summary.Failed > 0 {
		return fmt.Errorf("go-ycsb load: %d of %d inserts failed", r.Summary.Failed, records)
	}
	if inserted != records {
		return fmt.Errorf("go-ycsb load inserted %d records, not the %d asked for", inserted, records)
	}
	return nil
}

// ycsbReserved are the properties fairbench sets from the cell itself.
var ycsbReserved = map[string]string{
	"table": "fairbench's own table (" + YcsbTable + ")", "recordcount": "the recordcount parameter",
	"operationcount": "the operationcount parameter", "threadcount": "the cell's clients", "target": "the cell's rate",
	"workload": "go-ycsb's core workload (the parameter workload picks the preset)", "dropdata": "the cell's load",
}

// ycsbUser is what the parameters property_files and properties give go-ycsb.
type ycsbUser struct {
	files []string
	props [][2]string
	set   map[string]bool // keys the files or the properties set
}

// omit leaves out of props the keys the files or properties set.
func (u ycsbUser) omit(props [][2]string) [][2]string {
	var out [][2]string
	for _, kv := range props {
		if !u.set[kv[0]] || ycsbReserved[kv[0]] != "" {
			out = append(out, kv)
		}
	}
	return out
}

func ycsbUserProps(o ycsbparams.Options, conn [][2]string) (ycsbUser, error) {
	u := ycsbUser{files: o.PropertyFiles, set: map[string]bool{}}
	connKey := map[string]bool{}
	for _, kv := range conn {
		connKey[kv[0]] = true
	}
	for _, f := range u.files {
		keys, err := ycsbPropertyKeys(f)
		if err != nil {
			return ycsbUser{}, fmt.Errorf("property_files: %w", err)
		}
		for _, k := range keys {
			u.set[k] = true
		}
	}
	for _, e := range o.Properties {
		k, v, ok := strings.Cut(e, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return ycsbUser{}, fmt.Errorf("properties: %q is not name=value", e)
		}
		if why := ycsbReserved[k]; why != "" {
			return ycsbUser{}, fmt.Errorf("properties: %s is set by fairbench from %s", k, why)
		}
		if connKey[k] || strings.HasPrefix(k, "pg.") || strings.HasPrefix(k, "mysql.") || strings.HasPrefix(k, "redis.") {
			return ycsbUser{}, fmt.Errorf("properties: %s is a connection property, which fairbench sets from the target URL", k)
		}
		u.props = append(u.props, [2]string{k, v})
		u.set[k] = true
	}
	return u, nil
}

// ycsbPropertyKeys are the keys a Java properties file sets (the format
// go-ycsb and Java YCSB read: key=value, key: value or key value; # and !
// comments; a line ending in a backslash goes on).
func ycsbPropertyKeys(path string) ([]string, error) {
	b, err := boundfile.Read(path, 1<<20, "a YCSB workload file")
	if err != nil {
		return nil, err
	}
	var keys []string
	cont := false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimRight(line, "\r")
		t := strings.TrimLeft(line, " \t\f")
		wasCont := cont
		comment := !wasCont && (t == "" || t[0] == '#' || t[0] == '!')
		// An odd number of trailing backslashes continues the line (not a comment's).
		cont = !comment && (len(line)-len(strings.TrimRight(line, "\\")))%2 == 1
		if wasCont || comment {
			continue
		}
		if i := strings.IndexAny(t, "=: \t\f"); i >= 0 {
			t = t[:i]
		}
		keys = append(keys, t)
	}
	return keys, nil
}
