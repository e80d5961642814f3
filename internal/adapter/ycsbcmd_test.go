package adapter

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/ycsbparams"
)

func ycsbInv(url string, clients int, p params.Values) Invocation {
	base := params.Values{"workload": "a", "recordcount": int64(1000), "operationcount": int64(0)}
	for k, v := range p {
		base[k] = v
	}
	return Invocation{URL: url, Clients: clients, Duration: 30 * time.Second, Params: base}
}

// props returns the -p properties of a go-ycsb command line.
func props(t *testing.T, argv []string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for i, a := range argv {
		if a == "-p" {
			k, v, ok := strings.Cut(argv[i+1], "=")
			if !ok {
				t.Fatalf("-p %q", argv[i+1])
			}
			m[k] = v
		}
	}
	return m
}

func TestYcsbToolIsGoYcsb(t *testing.T) {
	tool, ok := Lookup("ycsb")
	if !ok || tool.Build == nil || tool.Load == nil {
		t.Fatal("ycsb is not runnable")
	}
	eq(t, "executable", tool.Executable(), "go-ycsb")
	if !strings.Contains(tool.Install, "go mod download github.com/pingcap/go-ycsb@v1.0.1") || !strings.Contains(tool.Install, "go build -o /usr/local/bin/go-ycsb ./cmd/go-ycsb") {
		t.Errorf("install: %s", tool.Install)
	}
	specs, ok := KindParams("ycsb")
	if !ok {
		t.Fatal("no ycsb kind parameters")
	}
	w, _ := params.Find(specs, "workload")
	eq(t, "default workload", w.Default, any("a"))
	if p, _ := Lookup("pgbench"); p.Executable() != "pgbench" {
		t.Errorf("pgbench's executable: %s", p.Executable())
	}
}

func TestBuildYcsbPostgres(t *testing.T) {
	c, err := buildYcsb(ycsbInv("postgres://bench:s3cret@db.example:5433/bench?sslmode=require", 8, nil))
	if err != nil {
		t.Fatal(err)
	}
	// go-ycsb 1.0.1 has no working time limit: coreutils' timeout sends
	// SIGINT to go-ycsb alone (--foreground) at the end of the duration.
	want := []string{"timeout", "--foreground", "--preserve-status", "--signal=INT", "--kill-after=30s", "30s", "go-ycsb", "run", "postgresql", "--interval", "1"}
	if !slices.Equal(c.Argv[:len(want)], want) {
		t.Fatalf("argv %q", c.Argv)
	}
	p := props(t, c.Argv)
	for k, v := range map[string]string{"pg.host": "db.example", "pg.port": "5433", "pg.user": "bench", "pg.db": "bench", "pg.sslmode": "require",
		"threadcount": "8", "table": YcsbTable, "recordcount": "1000", "operationcount": ycsbNoLimit,
		"readproportion": "0.5", "updateproportion": "0.5", "requestdistribution": "zipfian", "readallfields": "true"} {
		eq(t, k, p[k], v)
	}
	if _, ok := p["dropdata"]; ok {
		t.Error("dropdata on a run: go-ycsb's PostgreSQL binding would drop the table")
	}
	if strings.Contains(strings.Join(c.Argv, " "), "s3cret") {
		t.Fatal("password on the command line")
	}
	eq(t, "env", strings.Join(c.Env, " "), "PGPASSWORD=s3cret")

	l, err := loadYcsb(ycsbInv("postgres://bench:s3cret@db.example:5433/bench", 8, nil))
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "load", strings.Join(l.Command.Argv[:3], " "), "go-ycsb load postgresql")
	lp := props(t, l.Command.Argv)
	eq(t, "dropdata", lp["dropdata"], "true")
	eq(t, "load threads", lp["threadcount"], "4")
	eq(t, "tables", strings.Join(l.Tables, ","), YcsbTable)
	eq(t, "dataset", l.Dataset, "go-ycsb")
	eq(t, "params", l.Params, "recordcount=1000 fieldcount=10 fieldlength=100")
	eq(t, "load env", strings.Join(l.Command.Env, " "), "PGPASSWORD=s3cret")
}

func TestBuildYcsbWorkloadsAndLimits(t *testing.T) {
	c, err := buildYcsb(ycsbInv("mysql://u@h/d", 2, params.Values{"workload": "e", "operationcount": int64(5000)}))
	if err != nil {
		t.Fatal(err)
	}
	p := props(t, c.Argv)
	eq(t, "scan", p["scanproportion"], "0.95")
	eq(t, "insert", p["insertproportion"], "0.05")
	eq(t, "maxscanlength (YCSB's, not go-ycsb's file's 1)", p["maxscanlength"], "100")
	eq(t, "operationcount", p["operationcount"], "5000")
	c, _ = buildYcsb(Invocation{URL: "mysql://u@h/d", Clients: 2, Duration: time.Second, Rate: 999.6,
		Params: params.Values{"workload": "f", "recordcount": int64(10), "operationcount": int64(0)}})
	p = props(t, c.Argv)
	eq(t, "rmw", p["readmodifywriteproportion"], "0.5")
	eq(t, "target", p["target"], "1000")
	if _, err := buildYcsb(ycsbInv("mysql://u@h/d", 8, params.Values{"operationcount": int64(4)})); err == nil ||
		!strings.Contains(err.Error(), "less than the 8 clients") {
		t.Errorf("operationcount below threads: %v", err)
	}
	l, _ := loadYcsb(ycsbInv("mysql://u@h/d", 8, params.Values{"recordcount": int64(3)}))
	eq(t, "load threads ≤ records", props(t, l.Command.Argv)["threadcount"], "3")
}

func TestBuildYcsbMySQLAndRedis(t *testing.T) {
	c, err := buildYcsb(ycsbInv("mysql://bench:pw@127.0.0.1:3307/bench", 4, nil))
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "db", c.Argv[8], "mysql")
	p := props(t, c.Argv)
	// go-ycsb expands ${NAME} from the environment when it reads the property.
	eq(t, "password", p["mysql.password"], "${"+ycsbPasswordEnv+"}")
	eq(t, "env", strings.Join(c.Env, " "), ycsbPasswordEnv+"=pw")
	eq(t, "port", p["mysql.port"], "3307")

	c, err = buildYcsb(ycsbInv("redis://:pw@10.0.0.1/2", 4, nil))
	if err != nil {
		t.Fatal(err)
	}
	p = props(t, c.Argv)
	eq(t, "redis db", c.Argv[8], "redis")
	eq(t, "addr", p["redis.addr"], "10.0.0.1:6379")
	eq(t, "redis db number", p["redis.db"], "2")
	eq(t, "redis password", p["redis.password"], "${"+ycsbPasswordEnv+"}")
	l, _ := loadYcsb(ycsbInv("redis://10.0.0.1", 4, nil))
	if _, ok := props(t, l.Command.Argv)["dropdata"]; ok || len(l.Tables) > 0 {
		t.Fatal("dropdata on Redis would flush the whole database")
	}

	for url, want := range map[string]string{
		"postgres://db.example/bench":   "with a host, a user and a database",
		"mysql://u@h/d?tls=true":        "takes no connection options",
		"mysql://u:a%24%7BHOME%7Db@h/d": "would expand the ${",
		"rediss://h":                    "needs a postgres://, mysql:// or redis:// target here",
		"sqlite:///tmp/x.db":            "needs a postgres://, mysql:// or redis:// target here",
		"redis://h/x":                   "must be a database number",
		"postgresql://u@h:5432/":        "with a host, a user and a database",
		"mysql://h:3306/d":              "with a host, a user and a database",
	} {
		if _, err := buildYcsb(ycsbInv(url, 1, nil)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", url, err, want)
		}
	}
}

// The go-ycsb outputs of a study cell: a load, and a run stopped by SIGINT.
func TestGoYCSBLoadAndInterruptedRun(t *testing.T) {
	l := one(t, "ycsb/go-ycsb101-pg-load.txt")
	eq(t, "workload", l.Workload, "ycsb-load")
	text := readFixture(t, "ycsb/go-ycsb101-pg-load.txt")
	if err := checkYcsbLoad(text, 1000); err != nil {
		t.Errorf("complete load refused: %v", err)
	}
	if err := checkYcsbLoad(text, 2000); err == nil || !strings.Contains(err.Error(), "inserted 1000 records, not the 2000") {
		t.Errorf("short load: %v", err)
	}

	r := one(t, "ycsb/go-ycsb101-pg-workloada-sigint.txt")
	eq(t, "stopped", ycsbEnv(r)["stopped_by"], any("SIGINT"))
	if !hasDeviation(r, "SIGINT") {
		t.Errorf("deviations: %v", r.Deviations)
	}
	eq(t, "clients", r.Clients, 4)
	eq(t, "distribution", r.Params["requestdistribution"], any("zipfian"))
	// Run finished, takes 2.890031182s; TOTAL - Count: 8944, OPS: 3112.1
	near(t, "duration", r.Duration.Seconds(), 2.890031182, 1e-9)
	eq(t, "total", r.Summary.Transactions, int64(8944))
	near(t, "ops/s", r.Summary.Throughput, 3112.1, 1e-9)
	// --interval 1: TOTAL at 1.0 s Count 2803, at 2.0 s Count 5763.
	if len(r.Series) != 2 {
		t.Fatalf("series %v", r.Series)
	}
	eq(t, "s0", r.Series[0].Ops, int64(2803))
	eq(t, "s1", r.Series[1].Ops, int64(5763-2803))
}

// property_files go to go-ycsb as -P (in order) and properties as -p after
// fairbench's own; a preset property a file sets is left to the file; the
// cell's own properties cannot be overridden; load and run get the same.
func TestBuildYcsbPropertiesPassThrough(t *testing.T) {
	dir := t.TempDir()
	f1, f2 := filepath.Join(dir, "workloadx"), filepath.Join(dir, "more")
	if err := os.WriteFile(f1, []byte("# a YCSB workload file\nrecordcount=77\nrequestdistribution=uniform\nreadproportion : 0.9\n! comment: updateproportion=1\nfieldlength 20\nscanproportion=0\\\n  insertproportion=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f2, []byte("zeropadding=3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pv := params.Values{"workload": "a", "property_files": []string{f1, f2}, "properties": []string{"fieldcount=5", "readallfields=false", "maxscanlength=7"}}
	c, err := buildYcsb(ycsbInv("postgres://bench@h/bench", 4, pv))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for i, a := range c.Argv {
		if a == "-P" {
			files = append(files, c.Argv[i+1])
		}
	}
	eq(t, "-P files", strings.Join(files, " "), f1+" "+f2)
	eq(t, "db still at 8", c.Argv[8], "postgresql")
	p := props(t, c.Argv)
	// The file's values win over the preset: not passed as -p.
	for _, k := range []string{"requestdistribution", "readproportion", "fieldlength", "scanproportion"} {
		if v, ok := p[k]; ok {
			t.Errorf("%s=%s passed as -p over the file's", k, v)
		}
	}
	// The preset's others stay; the cell's own override the file's recordcount.
	eq(t, "updateproportion (the comment line sets nothing)", p["updateproportion"], "0.5")
	eq(t, "insertproportion (a continuation line sets nothing)", p["insertproportion"], "0")
	eq(t, "recordcount", p["recordcount"], "1000")
	eq(t, "table", p["table"], YcsbTable)
	eq(t, "threadcount", p["threadcount"], "4")
	// properties come last, as given.
	n := len(c.Argv)
	eq(t, "last -p", strings.Join(c.Argv[n-6:], " "), "-p fieldcount=5 -p readallfields=false -p maxscanlength=7")
	eq(t, "fieldcount", p["fieldcount"], "5")
	eq(t, "readallfields", p["readallfields"], "false")

	l, err := loadYcsb(ycsbInv("postgres://bench@h/bench", 4, pv))
	if err != nil {
		t.Fatal(err)
	}
	lp := props(t, l.Command.Argv)
	eq(t, "load fieldcount", lp["fieldcount"], "5")
	if _, ok := lp["fieldlength"]; ok {
		t.Error("load: fieldlength passed over the file's")
	}
	if !slices.Contains(l.Command.Argv, f1) || !strings.Contains(l.Params, "properties=fieldcount=5,readallfields=false,maxscanlength=7") {
		t.Errorf("load argv %q, params %q", l.Command.Argv, l.Params)
	}

	for _, bad := range []struct {
		pv   params.Values
		want string
	}{
		{params.Values{"properties": []string{"recordcount=5"}}, "recordcount is set by fairbench from the recordcount parameter"},
		{params.Values{"properties": []string{"threadcount=5"}}, "threadcount is set by fairbench"},
		{params.Values{"properties": []string{"pg.host=x"}}, "connection property"},
		{params.Values{"properties": []string{"fieldcount"}}, `"fieldcount" is not name=value`},
		{params.Values{"property_files": []string{filepath.Join(dir, "none")}}, "property_files: stat"},
	} {
		if _, err := buildYcsb(ycsbInv("postgres://bench@h/bench", 4, bad.pv)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%v: err = %v, want %q", bad.pv, err, bad.want)
		}
	}
}

// The tool cell's parameters are ycsbparams', as the native workload's.
func TestYcsbKindParamsAreShared(t *testing.T) {
	specs, ok := KindParams("ycsb")
	if !ok {
		t.Fatal("no ycsb kind parameters")
	}
	want := ycsbparams.Specs()
	eq(t, "count", len(specs), len(want))
	for _, w := range want {
		if _, ok := params.Find(specs, w.Name); !ok {
			t.Errorf("no %s", w.Name)
		}
	}
}
