package adapter

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/tpccparams"
)

func tpccInv(t *testing.T, url string, clients int, set map[string]any) Invocation {
	t.Helper()
	v := params.Values{}
	for k, x := range set {
		spec, ok := params.Find(tpccparams.Specs(), k)
		if !ok {
			t.Fatalf("no tpcc parameter %s", k)
		}
		c, err := params.Coerce(spec, x)
		if err != nil {
			t.Fatal(err)
		}
		v[k] = c
	}
	return Invocation{URL: url, Clients: clients, Duration: 30 * time.Second, Params: params.WithDefaults(tpccparams.Specs(), v)}
}

func TestGoTPCToolIsRunnable(t *testing.T) {
	tool, ok := Lookup("go-tpc")
	if !ok || tool.Build == nil || tool.Load == nil {
		t.Fatal("go-tpc is not runnable")
	}
	eq(t, "kind", tool.Kind, "tpcc")
	eq(t, "executable", tool.Executable(), "go-tpc")
	if !strings.Contains(tool.Install, "scripts/install-go-tpc.sh") || !strings.Contains(tool.Install, "@v1.0.12") {
		t.Errorf("install: %s", tool.Install)
	}
	specs, ok := KindParams("tpcc")
	if !ok {
		t.Fatal("no tpcc kind parameters for tool cells")
	}
	eq(t, "parameters", len(specs), len(tpccparams.Specs()))
}

func TestBuildGoTPCPostgres(t *testing.T) {
	inv := tpccInv(t, "postgres://bench:s3cret@db.example:5433/tpcc?sslmode=verify-full&sslrootcert=/etc/ca.pem", 8,
		map[string]any{"warehouses": 4, "all_warehouses": true, "keying_thinking": true})
	c, err := buildGoTPC(inv)
	if err != nil {
		t.Fatal(err)
	}
	a := c.Argv
	eq(t, "argv[0:3]", strings.Join(a[:3], " "), "go-tpc tpcc run")
	for flag, want := range map[string]string{"--warehouses": "4", "-d": "postgres", "-H": "db.example", "-P": "5433",
		"-U": "bench", "-D": "tpcc", "-T": "8", "--time": "30s", "--conn-params": "sslmode=verify-full&sslrootcert=/etc/ca.pem",
		"--output": "plain", "--interval": "1s"} {
		eq(t, flag, flagValue(a, flag), want)
	}
	for _, f := range []string{"--wait", "--ignore-error"} {
		if !slices.Contains(a, f) {
			t.Errorf("no %s in %q", f, a)
		}
	}
	if strings.Contains(strings.Join(a, " "), "s3cret") || slices.Contains(a, "-p") {
		t.Errorf("the password is on the command line: %q", a)
	}
	eq(t, "env", strings.Join(c.Env, " "), "PGPASSWORD=s3cret")

	l, err := loadGoTPC(tpccInv(t, "postgres://bench@127.0.0.1/tpcc?sslmode=disable", 8,
		map[string]any{"warehouses": 4, "load_workers": 8, "all_warehouses": true}))
	if err != nil {
		t.Fatal(err)
	}
	a = l.Command.Argv
	eq(t, "load", strings.Join(a[:3], " "), "go-tpc tpcc prepare")
	eq(t, "load -T (one per warehouse at most)", flagValue(a, "-T"), "4")
	eq(t, "load -P (default port)", flagValue(a, "-P"), "5432")
	if !slices.Contains(a, "--dropdata") || !slices.Contains(a, "--no-check") {
		t.Errorf("load argv %q", a)
	}
	eq(t, "tables", strings.Join(l.Tables, ","), "warehouse,district,customer,history,new_order,orders,order_line,item,stock")
	eq(t, "dataset", l.Dataset, "go-tpc")
	eq(t, "params", l.Params, "warehouses=4")
	eq(t, "no password, no env", len(l.Command.Env), 0)
}

func TestBuildGoTPCMySQL(t *testing.T) {
	t.Setenv("MYSQL_PWD", "")
	c, err := buildGoTPC(tpccInv(t, "mysql://bench@127.0.0.1:3307/tpcc?tls=verify&ssl-ca=/etc/ca.pem&timeout=5", 4, nil))
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "go-tpc", strings.Join(c.Argv[:3], " "), "go-tpc tpcc run")
	for flag, want := range map[string]string{"-d": "mysql", "-P": "3307", "-U": "bench", "-D": "tpcc", "--ssl-ca": "/etc/ca.pem",
		"--conn-params": "timeout=5s", "-T": "4"} {
		eq(t, flag, flagValue(c.Argv, flag), want)
	}
	// No tls: fairbench's MySQL default, plaintext; go-tpc's own is preferred.
	c, err = buildGoTPC(tpccInv(t, "mysql://bench@127.0.0.1/tpcc", 4, nil))
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "no tls", flagValue(c.Argv, "--conn-params"), "tls=false")
	c, err = buildGoTPC(tpccInv(t, "mysql://bench@127.0.0.1/tpcc?tls=skip-verify", 4, nil))
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "skip-verify", flagValue(c.Argv, "--conn-params"), "tls=skip-verify")
}

// go-tpc's MySQL driver takes the password only as -p, which ps shows every
// local user while go-tpc runs (it went there through sh before): a MySQL
// password, in the URL or in MYSQL_PWD, is refused, naming the workloads
// that keep it off command lines; the refusal shows no password.
func TestGoTPCRefusesAMySQLPasswordItCouldOnlyTakeOnItsCommandLine(t *testing.T) {
	t.Setenv("MYSQL_PWD", "")
	_, err := buildGoTPC(tpccInv(t, "mysql://bench:s3cret@127.0.0.1/tpcc", 2, nil))
	if err == nil || !strings.Contains(err.Error(), "only on its command line") || !strings.Contains(err.Error(), "fairbench's own tpcc workload") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("password in the URL: %v", err)
	}
	t.Setenv("MYSQL_PWD", "fromenv")
	_, err = buildGoTPC(tpccInv(t, "mysql://bench@127.0.0.1/tpcc", 2, nil))
	if err == nil || !strings.Contains(err.Error(), "MYSQL_PWD is set") || strings.Contains(err.Error(), "fromenv") {
		t.Errorf("MYSQL_PWD: %v", err)
	}
	// PostgreSQL's lib/pq reads PGPASSWORD: no refusal there.
	c, err := buildGoTPC(tpccInv(t, "postgres://bench:s3cret@127.0.0.1/tpcc?sslmode=disable", 2, nil))
	if err != nil || strings.Contains(strings.Join(c.Argv, " "), "s3cret") || !slices.Contains(c.Env, "PGPASSWORD=s3cret") {
		t.Errorf("PostgreSQL: argv %v env %v, %v", c.Argv, c.Env, err)
	}
}

func TestBuildGoTPCRefuses(t *testing.T) {
	pg := "postgres://bench@127.0.0.1/tpcc?sslmode=disable"
	for _, tc := range []struct {
		name string
		inv  Invocation
		want string
	}{
		{"procedures", tpccInv(t, pg, 4, map[string]any{"implementation": "procedures"}), "no stored procedures"},
		{"home warehouse", tpccInv(t, pg, 4, map[string]any{"warehouses": 2}), "all_warehouses = true"},
		{"seed", tpccInv(t, pg, 4, map[string]any{"seed": 7}), "leave seed at 0"},
		{"no sslmode", tpccInv(t, "postgres://bench@127.0.0.1/tpcc", 4, nil), "no sslmode=prefer"},
		{"sslmode prefer", tpccInv(t, "postgres://bench@127.0.0.1/tpcc?sslmode=prefer", 4, nil), "sslmode=prefer: go-tpc's PostgreSQL driver"},
		{"pg param", tpccInv(t, pg+"&pool_max_conns=4", 4, nil), `parameter "pool_max_conns"`},
		{"mysql param", tpccInv(t, "mysql://bench@127.0.0.1/tpcc?tls-version=TLSv1.3", 4, nil), `parameter "tls-version"`},
		{"ssl-ca without verify", tpccInv(t, "mysql://bench@127.0.0.1/tpcc?ssl-ca=/x.pem", 4, nil), "ssl-ca needs tls=verify"},
		{"redis", tpccInv(t, "redis://127.0.0.1:6379/0", 4, nil), "postgres:// or mysql://"},
		{"odd user", tpccInv(t, "postgres://be%40ch@127.0.0.1/tpcc?sslmode=disable", 4, nil), "unescaped"},
	} {
		if _, err := buildGoTPC(tc.inv); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	inv := tpccInv(t, pg, 4, nil)
	for name, mod := range map[string]func(*Invocation){
		"rate":          func(i *Invocation) { i.Rate = 100 },
		"latency_limit": func(i *Invocation) { i.LatencyLimit = time.Second },
		"max_tries":     func(i *Invocation) { i.MaxTries = 3 },
		"threads":       func(i *Invocation) { i.Threads = 2 },
		"clients":       func(i *Invocation) { i.Clients = 0 },
	} {
		i := inv
		mod(&i)
		if _, err := buildGoTPC(i); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := loadGoTPC(tpccInv(t, pg, 4, map[string]any{"implementation": "procedures"})); err == nil {
		t.Error("load: procedures accepted")
	}
}
