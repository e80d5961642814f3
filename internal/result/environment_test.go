package result

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// An environment object as stored reads into the typed fields and Extra and
// writes back as the same object: old results files need no migration.
func TestEnvironmentJSONRoundTrips(t *testing.T) {
	in := `{"client":{"io":"goroutine per client","path":"pgx"},"client_server_same_host":false,` +
		`"database":{"database_size_bytes":23456789,"driver":"x","engine":"e","server_version":"16.4",` +
		`"settings":{"a":"1 MB","b":"on"},"tls":{"enabled":false},"version":"E 16.4 on x86_64"},` +
		`"declared":{"cores":8,"price_per_hour":1.5},` +
		`"generators":[{"host":{"threads":4},"load_generator":{"clients":2,"clock_offset_ms":0.25,"clock_rtt_ms":1,"cpus":4,"first_slot":0,"host":"g1","index":1,"pid":77}}],` +
		`"host":{"client_cpu_wait":0.02,"cpu_budget":1.5,"cpu_budget_source":"cgroup cpu.max","cpu_model":"EPYC","disk":{"mount":"/"},"memory_bytes":25232932864,"memory_gib":23.5,"steal_pct":0,"threads":16},` +
		`"load_generators":[{"client_cpu_seconds":3.5,"clients":2,"clock_offset_ms":0,"clock_rtt_ms":1,"cpu_percent":12.5,"first_slot":0,"index":1,"throughput":0}],` +
		`"server":{"memory_bytes":1073741824,"node_exporter":"http://h:9100/metrics"},` +
		`"tool":{"name":"t","version":"2"},"workload":{"scale":10},"workload_tallies":{"new_order":5}}`
	var e Environment
	if err := json.Unmarshal([]byte(in), &e); err != nil {
		t.Fatal(err)
	}
	if e.Host.Threads != 16 || e.Database.SizeBytes != 23456789 || e.Database.Settings["a"] != "1 MB" ||
		e.Server.MemoryBytes != 1<<30 || e.SameHost == nil || *e.SameHost || e.Declared.Cores != 8 ||
		len(e.LoadGenerators) != 1 || e.Host.CPUBudget != 1.5 || e.Host.StealPct == nil || *e.Host.StealPct != 0 || e.Host.OthersCPU != nil || e.Generators[0].LoadGenerator.Host != "g1" || e.Client.Path != "pgx" {
		t.Fatalf("typed fields not read: %+v", e)
	}
	if e.Extra["tool"].(map[string]any)["version"] != "2" || e.Host.CPUModel != "EPYC" || e.Host.Disk == nil || e.Host.Disk.Mount != "/" || e.Database.Driver != "x" {
		t.Fatalf("extra facts not kept: %+v", e.Extra)
	}
	if e.Extra["workload"].(map[string]any)["scale"] != int64(10) {
		t.Fatalf("whole numbers read as %T, want int64 as the store always gave", e.Extra["workload"].(map[string]any)["scale"])
	}
	out, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, []byte(in)) {
		t.Fatalf("round trip changed the object:\n in %s\nout %s", in, out)
	}
}

// A database's cache size and installation-only settings come from what the
// driver recorded, or, for environments recorded before, from the facts the
// engine's driver registered.
func TestDatabaseCacheFromRegisteredEngine(t *testing.T) {
	RegisterEngine(EngineFacts{Engine: "test-engine", InProcess: true,
		Cache: func(d Database) (int64, string) {
			if d.Settings["cachemb"] == "" {
				return 0, ""
			}
			return 64 << 20, "cachemb"
		},
		InstallationSettings: []string{"dir"}})
	old := Database{Engine: "test-engine", Settings: map[string]string{"cachemb": "64"}}
	if b, name := old.Cache(); b != 64<<20 || name != "cachemb" {
		t.Fatalf("Cache() = %d, %q", b, name)
	}
	if !old.InstallationOnly("dir") || old.InstallationOnly("cachemb") {
		t.Fatal("installation-only settings not taken from the engine")
	}
	recorded := Database{Engine: "test-engine", CacheBytes: 1 << 30, CacheSetting: "pool", InstallationSettings: []string{}}
	if b, name := recorded.Cache(); b != 1<<30 || name != "pool" {
		t.Fatalf("recorded Cache() = %d, %q", b, name)
	}
	if recorded.InstallationOnly("dir") {
		t.Fatal("a recorded empty list of installation settings was overridden")
	}
	if !(Environment{Database: old}).EngineInProcess() {
		t.Fatal("in-process engine not recognised from its registration")
	}
	no := false
	if (Environment{Database: old, InProcess: &no}).EngineInProcess() {
		t.Fatal("recorded engine_in_process ignored")
	}
}

// A rate that is not a number, and a fact in Extra that is not either,
// encode as absent and null: the run is stored all the same.
func TestEnvironmentEncodesNonFiniteNumbers(t *testing.T) {
	inf := math.Inf(1)
	e := Environment{LoadGenerators: []LoadGenerator{{Index: 1, CPUPercent: &inf}}}
	e.Set("load", math.NaN())
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"load":null,"load_generators":[{"clients":0,"clock_offset_ms":0,"clock_rtt_ms":0,"first_slot":0,"index":1}]}`; string(b) != want {
		t.Fatalf("got %s, want %s", b, want)
	}
}
