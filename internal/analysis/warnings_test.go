package analysis

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
)

// series builds a per-second series from rates, with client CPU cpu.
func series(rates []float64, cpu float64) []result.SeriesPoint {
	pts := make([]result.SeriesPoint, len(rates))
	for i, r := range rates {
		pts[i] = result.SeriesPoint{Second: i + 1, Ops: int64(r), Rate: r, CPU: cpu}
	}
	return pts
}

// steady is 30 s alternating 995 / 1005 tps: noise, no drift, no warm-up.
func steady() []float64 {
	xs := make([]float64, 30)
	for i := range xs {
		xs[i] = 1000 + 5*float64(1-2*(i%2))
	}
	return xs
}

func checks(ws []Warning, check string) []Warning {
	var out []Warning
	for _, w := range ws {
		if w.Check == check {
			out = append(out, w)
		}
	}
	return out
}

func group(t *testing.T, runs ...*result.Run) []*Group {
	t.Helper()
	gs, err := GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	return gs
}

func withSeries(r *result.Run, rates []float64, cpu float64) *result.Run {
	r.Series = series(rates, cpu)
	r.Duration = time.Duration(len(rates)) * time.Second
	return r
}

func TestDriftWarning(t *testing.T) {
	// Falls from 1000 to 800 tps in a straight line, noise ±5: first third
	// mean ≈ 969, last ≈ 831, far beyond 5 % and 3 standard errors.
	falling := steady()
	for i := range falling {
		falling[i] -= float64(i) * 200 / 29
	}
	ws := Warnings(group(t, withSeries(okRun(1, "a", 1, 900), falling, 0.1)), "")
	d := checks(ws, checkDrift)
	if len(d) != 1 || d[0].Runs[0] != 1 || !strings.Contains(d[0].Message, "run 1") {
		t.Fatalf("drift not raised for a falling series: %+v", ws)
	}
	if len(checks(Warnings(group(t, withSeries(okRun(1, "a", 1, 1000), steady(), 0.1)), ""), checkDrift)) != 0 {
		t.Errorf("drift raised for a steady series")
	}
	// A 4 % step is beyond the noise but under the 5 % floor.
	step := steady()
	for i := 15; i < 30; i++ {
		step[i] -= 40
	}
	if w := checks(Warnings(group(t, withSeries(okRun(1, "a", 1, 1000), step, 0.1)), ""), checkDrift); len(w) != 0 {
		t.Errorf("drift raised for a 4 %% change: %+v", w)
	}
}

func TestWarmupWarning(t *testing.T) {
	// 30 s: the first 3 s (10 %) at 500 tps, then steady 1000 ± 5.
	cold := steady()
	cold[0], cold[1], cold[2] = 500, 500, 500
	ws := Warnings(group(t, withSeries(okRun(1, "a", 1, 950), cold, 0.1)), "")
	w := checks(ws, checkWarmup)
	if len(w) != 1 || !strings.Contains(w[0].Message, "first 3 s") || !strings.Contains(w[0].Message, "-49.7 %") {
		t.Fatalf("warm-up not raised: %+v", ws)
	}
	// The warm-up seconds are then not counted as drift.
	if d := checks(ws, checkDrift); len(d) != 0 {
		t.Errorf("a short warm-up was also reported as drift: %+v", d)
	}
	if w := checks(Warnings(group(t, withSeries(okRun(1, "a", 1, 1000), steady(), 0.1)), ""), checkWarmup); len(w) != 0 {
		t.Errorf("warm-up raised for a steady series: %+v", w)
	}
}

func TestSaturationWarning(t *testing.T) {
	r := withSeries(okRun(1, "a", 8, 1000), steady(), 3.5) // 3.5 of 4 threads = 87.5 %
	r.Env = result.EnvironmentFromMap(map[string]any{"host": map[string]any{"threads": int64(4)}})
	w := checks(Warnings(group(t, r), ""), checkSaturation)
	if len(w) != 1 || !strings.Contains(w[0].Message, "3.50 cores") || !strings.Contains(w[0].Message, "88 %") {
		t.Fatalf("saturation not raised: %+v", w)
	}
	r2 := withSeries(okRun(1, "a", 8, 1000), steady(), 3.0) // 75 %
	r2.Env = result.EnvironmentFromMap(map[string]any{"host": map[string]any{"threads": int64(4)}})
	if w := checks(Warnings(group(t, r2), ""), checkSaturation); len(w) != 0 {
		t.Errorf("saturation raised at 75 %%: %+v", w)
	}
	// An embedded engine's work is fairbench's CPU: busy cores are the
	// database's, not a saturated load generator.
	r3 := withSeries(okRun(1, "a", 8, 1000), steady(), 3.5)
	r3.Env = result.EnvironmentFromMap(map[string]any{"host": map[string]any{"threads": int64(4)}, "engine_in_process": true})
	if w := checks(Warnings(group(t, r3), ""), checkSaturation); len(w) != 0 {
		t.Errorf("saturation raised for an embedded engine: %+v", w)
	}
	// A run of an embedded engine stored before engine_in_process was
	// recorded: its driver registered the engine as in-process.
	result.RegisterEngine(result.EngineFacts{Engine: "test-embedded", InProcess: true})
	r4 := withSeries(okRun(1, "a", 8, 1000), steady(), 3.5)
	r4.Env = result.EnvironmentFromMap(map[string]any{"host": map[string]any{"threads": int64(4)}, "database": map[string]any{"engine": "test-embedded"}})
	if w := checks(Warnings(group(t, r4), ""), checkSaturation); len(w) != 0 {
		t.Errorf("saturation raised for an older SQLite run: %+v", w)
	}
}

func TestRepetitionWarnings(t *testing.T) {
	// 900, 1000, 1200: mean 1033.3, sd 152.8, CV 14.8 % > 10 %.
	ws := Warnings(group(t, okRun(1, "a", 1, 900), okRun(2, "a", 1, 1000), okRun(3, "a", 1, 1200)), "")
	w := checks(ws, checkRepetitions)
	if len(w) != 1 || !strings.Contains(w[0].Message, "14.8 %") || len(w[0].Runs) != 3 {
		t.Fatalf("disagreeing repetitions not raised: %+v", ws)
	}
	// 990, 1000, 1010: CV 1 %.
	ws = Warnings(group(t, okRun(1, "a", 1, 990), okRun(2, "a", 1, 1000), okRun(3, "a", 1, 1010)), "")
	if w := checks(ws, checkRepetitions); len(w) != 0 {
		t.Errorf("agreeing repetitions raised: %+v", w)
	}
	if w := checks(ws, CheckSingleRun); len(w) != 0 {
		t.Errorf("single-run raised with 3 runs: %+v", w)
	}
	ws = Warnings(group(t, okRun(1, "a", 1, 990), okRun(2, "a", 2, 1000)), "")
	w = checks(ws, CheckSingleRun)
	if len(w) != 1 || !strings.Contains(w[0].Message, "2 cells") || !strings.Contains(w[0].Message, "runs 1–2") {
		t.Errorf("single runs not raised: %+v", ws)
	}
}

func TestConfigWarning(t *testing.T) {
	// The driver names the settings that identify an installation ("port"):
	// they always differ and say nothing.
	env := func(version, sb string) result.Environment {
		return result.Environment{Database: result.Database{ServerVersion: version,
			Settings:             map[string]string{"shared_buffers": sb, "port": "5432", "work_mem": "4096 kB"},
			InstallationSettings: []string{"port"}}}
	}
	a, b := okRun(1, "base", 1, 1000), okRun(2, "other", 1, 1000)
	a.Env, b.Env = env("17.2", "16384 8kB"), env("16.4", "524288 8kB")
	b.Env.Database.Settings["port"] = "5433"
	w := checks(Warnings(group(t, a, b), "base"), CheckConfig)
	if len(w) != 1 {
		t.Fatalf("config difference not raised: %+v", w)
	}
	msg := w[0].Message
	for _, want := range []string{`version "16.4" vs "17.2"`, "shared_buffers = 524288 8kB vs 16384 8kB"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "port") || strings.Contains(msg, "work_mem") {
		t.Errorf("message lists settings that do not matter or do not differ: %q", msg)
	}
	b.Env = env("17.2", "16384 8kB")
	if w := checks(Warnings(group(t, a, b), "base"), CheckConfig); len(w) != 0 {
		t.Errorf("config raised for equal settings: %+v", w)
	}
	// Two engines: one line naming them, not every setting of each as
	// "not reported" on the other side.
	a.Env = result.EnvironmentFromMap(map[string]any{"database": map[string]any{"engine": "bbolt", "version": "1.5.0", "settings": map[string]any{"nosync": "false"}}})
	b.Env = result.EnvironmentFromMap(map[string]any{"database": map[string]any{"engine": "pebble", "version": "2.1.7", "settings": map[string]any{"sync": "true"}}})
	w = checks(Warnings(group(t, a, b), "base"), CheckConfig)
	if len(w) != 1 || !strings.Contains(w[0].Message, "different engines") || !strings.Contains(w[0].Message, "pebble 2.1.7 vs bbolt 1.5.0") ||
		strings.Contains(w[0].Message, "not reported") {
		t.Errorf("engines that differ: %+v", w)
	}
}

// estimatedKind registers a kind whose working set is 15 MiB per scale unit
// (tpcb's estimate, which this package must not know by name).
var estimatedKind = sync.OnceFunc(func() {
	kinds.Register(kinds.Info{Kind: "test-estimated", WorkingSet: func(p params.Values) (int64, string, bool) {
		s, ok := p["scale"].(int64)
		return s * 15 << 20, fmt.Sprintf("scale %d × ~15 MB", s), ok && s > 0
	}})
})

func TestWorkingSet(t *testing.T) {
	estimatedKind()
	// The driver reports the engine's cache in bytes, under its own name.
	mk := func(id int64, target string, cache int64, size int64) *result.Run {
		r := okRun(id, target, 1, 1000)
		r.Workload, r.Kind = "test-estimated", "test-estimated"
		r.Env.Database = result.Database{SizeBytes: size, CacheBytes: cache, CacheSetting: "pool_size"}
		r.Env.Server.MemoryBytes = 4 << 30
		return r
	}
	// Scale 10 → ~150 MiB: fits a 1 GiB cache, not a 128 MiB one.
	gs := group(t, mk(1, "big", 1<<30, 0), mk(2, "small", 128<<20, 0))
	if l, detail := WorkingSet(gs[0]); l != "in the database cache" || !strings.Contains(detail, "pool_size 1.0 GiB") {
		t.Errorf("big: %q, %q", l, detail)
	}
	if l, _ := WorkingSet(gs[1]); l != "in RAM" {
		t.Errorf("small: %q", l)
	}
	w := checks(Warnings(gs, ""), checkWorkingSet)
	if len(w) != 1 || w[0].Info || !strings.Contains(w[0].Message, "memory with disk") {
		t.Fatalf("differing working-set labels not raised: %+v", w)
	}
	// A recorded 10 GiB database on 4 GiB of RAM is disk-bound on both: info only.
	gs = group(t, mk(1, "a", 128<<20, 10<<30), mk(2, "b", 128<<20, 10<<30))
	if l, _ := WorkingSet(gs[0]); l != "disk-bound" {
		t.Errorf("10 GiB on 4 GiB: %q", l)
	}
	for _, w := range checks(Warnings(gs, ""), checkWorkingSet) {
		if !w.Info {
			t.Errorf("equal labels raised a warning: %+v", w)
		}
	}
}

func TestErrorWarning(t *testing.T) {
	r := okRun(1, "a", 1, 1000)
	r.Summary.Transactions = 9980
	r.Ops = []result.Op{{Name: "tx", Count: 9980, Errors: map[result.ErrorClass]int64{result.ErrSerialization: 20}}}
	w := checks(Warnings(group(t, r), ""), checkErrors)
	// 20 of 10000 = 0.20 %
	if len(w) != 1 || !strings.Contains(w[0].Message, "0.20 %") || !strings.Contains(w[0].Message, "serialization 20") {
		t.Fatalf("errors not raised: %+v", w)
	}
	r.Summary.Transactions = 99990
	r.Ops[0].Errors[result.ErrSerialization] = 10 // 0.01 %
	if w := checks(Warnings(group(t, r), ""), checkErrors); len(w) != 0 {
		t.Errorf("0.01 %% errors raised: %+v", w)
	}
}

func TestSameHostWarning(t *testing.T) {
	a, b := okRun(1, "local", 1, 1000), okRun(2, "remote", 1, 1000)
	a.Env = result.EnvironmentFromMap(map[string]any{"client_server_same_host": true})
	b.Env = result.EnvironmentFromMap(map[string]any{"client_server_same_host": false})
	w := checks(Warnings(group(t, a, b), ""), checkSameHost)
	if len(w) != 1 || !strings.Contains(w[0].Message, "local") || strings.Contains(w[0].Message, "remote") {
		t.Fatalf("same host: %+v", w)
	}
	if w := checks(Warnings(group(t, b), ""), checkSameHost); len(w) != 0 {
		t.Errorf("same host raised for a remote target: %+v", w)
	}
	// Embedded: a note, not a warning, and never mixed into the warning's list.
	e := okRun(3, "embedded", 1, 1000)
	e.Env = result.EnvironmentFromMap(map[string]any{"client_server_same_host": true, "engine_in_process": true})
	w = checks(Warnings(group(t, a, e), ""), checkSameHost)
	if len(w) != 2 {
		t.Fatalf("want a warning for local and a note for embedded: %+v", w)
	}
	warn, note := w[0], w[1]
	if warn.Info || !strings.Contains(warn.Message, "local") || strings.Contains(warn.Message, "embedded") {
		t.Errorf("warning: %+v", warn)
	}
	if !note.Info || !strings.HasPrefix(note.Message, "embedded: embedded engine") || note.Runs[0] != 3 {
		t.Errorf("note: %+v", note)
	}
}

// A frequency governor other than performance on the load generator's host
// is named with its targets; performance, or a host without cpufreq (no
// governor recorded), raises nothing.
func TestGovernorWarning(t *testing.T) {
	scaled, fixed, unknown := okRun(1, "scaled", 1, 1000), okRun(2, "fixed", 1, 1000), okRun(3, "vm", 1, 1000)
	scaled.Env.Host.CPUGovernor = "powersave"
	fixed.Env.Host.CPUGovernor = "performance"
	w := checks(Warnings(group(t, scaled, fixed, unknown), ""), checkGovernor)
	if len(w) != 1 || w[0].Info || w[0].Runs[0] != 1 {
		t.Fatalf("governor: %+v", w)
	}
	if m := w[0].Message; !strings.Contains(m, "powersave") || !strings.Contains(m, "scaled") ||
		strings.Contains(m, "fixed") || strings.Contains(m, "vm") {
		t.Errorf("governor warning names the wrong targets or governor: %s", m)
	}
	if w := checks(Warnings(group(t, fixed, unknown), ""), checkGovernor); len(w) != 0 {
		t.Errorf("governor raised for performance or an unrecorded governor: %+v", w)
	}
}

func TestPeakEdgeWarning(t *testing.T) {
	rising := group(t, okRun(1, "a", 8, 100), okRun(2, "a", 16, 200), okRun(3, "a", 32, 300))
	w := checks(Warnings(rising, ""), CheckPeakEdge)
	if len(w) != 1 || !strings.Contains(w[0].Message, "32 clients") || w[0].Runs[0] != 3 {
		t.Fatalf("peak at the edge not raised: %+v", w)
	}
	knee := group(t, okRun(1, "a", 8, 100), okRun(2, "a", 16, 300), okRun(3, "a", 32, 200))
	if w := checks(Warnings(knee, ""), CheckPeakEdge); len(w) != 0 {
		t.Errorf("peak inside the sweep raised: %+v", w)
	}
	// Falling from the smallest level: fewer clients might do better, unless
	// the smallest level is one client already.
	falling := group(t, okRun(1, "a", 2, 300), okRun(2, "a", 4, 200), okRun(3, "a", 8, 100))
	w = checks(Warnings(falling, ""), CheckPeakEdge)
	if len(w) != 1 || !strings.Contains(w[0].Message, "at 2 clients") {
		t.Fatalf("peak at the lower edge not raised: %+v", w)
	}
	single := group(t, okRun(1, "a", 1, 300), okRun(2, "a", 2, 200), okRun(3, "a", 4, 100))
	if w := checks(Warnings(single, ""), CheckPeakEdge); len(w) != 0 {
		t.Errorf("peak at 1 client raised, though no sweep can go lower: %+v", w)
	}
}

// A bulk of documents is one request but each refused document one failure:
// the warning counts both in documents, the unit the headline counts, so
// 1 000 refused of 20 000 sent reads 5 %, not 1 000 of 1 020 "operations".
func TestErrorWarningCountsItemsOfAnItemsHeadline(t *testing.T) {
	r := okRun(1, "a", 1, 1000)
	docs := result.Headline{Name: "documents/s", Unit: "docs/s", HigherIsBetter: true, Field: result.FieldItems}
	r.Summary.Metric = &result.Metric{Headline: docs, Value: 1000}
	r.Summary.Transactions = 20 // 20 bulk requests of 950 accepted documents each
	r.Summary.Failed = 1000     // one failure per refused document
	r.Ops = []result.Op{{Name: "bulk", Count: 20, Items: 19000, Errors: map[result.ErrorClass]int64{result.ErrThrottled: 1000}}}
	w := checks(Warnings(group(t, r), ""), checkErrors)
	if len(w) != 1 || !strings.Contains(w[0].Message, "1000 errors in 20000 docs (5.00 %") {
		t.Fatalf("want 1000 errors in 20000 docs (5.00 %%), got %+v", w)
	}
}

// TLS on against off is a configuration difference (encryption costs CPU on
// both ends), read from what each driver records: an object, or ClickHouse's
// bare bool; not recorded on one side, it is not a difference.
func TestConfigWarningNamesTLSOnAgainstOff(t *testing.T) {
	env := func(tls any) result.Environment {
		db := map[string]any{"engine": "postgresql", "server_version": "17.2", "settings": map[string]any{"work_mem": "4096 kB"}}
		if tls != nil {
			db["tls"] = tls
		}
		return result.EnvironmentFromMap(map[string]any{"database": db})
	}
	for _, tc := range []struct {
		name      string
		base, oth any
		want      string // "" for no warning
	}{
		{"on against off", map[string]any{"enabled": false}, map[string]any{"enabled": true, "version": "TLS 1.3", "cipher": "TLS_AES_128_GCM_SHA256"},
			"TLS TLS 1.3 TLS_AES_128_GCM_SHA256 vs off"},
		{"a bare bool", false, true, "TLS on vs off"},
		{"protocol versions", map[string]any{"enabled": true, "version": "TLS 1.2"}, map[string]any{"enabled": true, "version": "TLS 1.3"}, "TLS TLS 1.3 vs TLS 1.2"},
		{"the same", map[string]any{"enabled": true}, true, ""},
		{"not recorded on one side", nil, true, ""},
	} {
		a, b := okRun(1, "base", 1, 1000), okRun(2, "other", 1, 1000)
		a.Env, b.Env = env(tc.base), env(tc.oth)
		w := checks(Warnings(group(t, a, b), "base"), CheckConfig)
		switch {
		case tc.want == "" && len(w) != 0:
			t.Errorf("%s: warned %+v", tc.name, w)
		case tc.want != "" && (len(w) != 1 || !strings.Contains(w[0].Message, tc.want)):
			t.Errorf("%s: %+v, want a configuration warning with %q", tc.name, w, tc.want)
		}
	}
}

// A connection pooler on one target and none on the other is a difference
// of configuration (a hop more, sessions shared), named with the pooler's
// version, whatever the engines; the same pooler on both is not.
func TestConfigWarningNamesAPoolerOnOneSideOnly(t *testing.T) {
	env := func(engine string, pooler map[string]any) result.Environment {
		db := map[string]any{"engine": engine, "server_version": "15.18"}
		if pooler != nil {
			db["pooler"] = pooler
		}
		return result.EnvironmentFromMap(map[string]any{"database": db})
	}
	bouncer := map[string]any{"name": "PgBouncer", "version": "1.18.0", "evidence": "SHOW VERSION on the console"}
	for _, tc := range []struct {
		name            string
		base, oth       map[string]any
		baseEng, othEng string
		want            string // "" for no warning
	}{
		{"through PgBouncer against straight", nil, bouncer, "postgresql", "postgresql", "connection pooler PgBouncer 1.18.0 vs none found"},
		{"the other way round", bouncer, nil, "postgresql", "postgresql", "connection pooler none found vs PgBouncer 1.18.0"},
		{"an unnamed one", map[string]any{"evidence": "pids differ"}, bouncer, "postgresql", "postgresql",
			"connection pooler PgBouncer 1.18.0 vs unidentified pooler or proxy"},
		{"different engines", nil, bouncer, "mysql", "postgresql", "connection pooler PgBouncer 1.18.0 vs none found"},
		{"both through PgBouncer", bouncer, bouncer, "postgresql", "postgresql", ""},
		{"neither", nil, nil, "postgresql", "postgresql", ""},
	} {
		a, b := okRun(1, "base", 1, 1000), okRun(2, "other", 1, 1000)
		a.Env, b.Env = env(tc.baseEng, tc.base), env(tc.othEng, tc.oth)
		w := checks(Warnings(group(t, a, b), "base"), CheckConfig)
		if tc.baseEng != tc.othEng && len(w) == 1 && !strings.Contains(w[0].Message, "different engines") {
			t.Errorf("%s: %+v does not say the engines differ", tc.name, w)
		}
		switch {
		case tc.want == "" && len(w) != 0:
			t.Errorf("%s: warned %+v", tc.name, w)
		case tc.want != "" && (len(w) != 1 || !strings.Contains(w[0].Message, tc.want)):
			t.Errorf("%s: %+v, want a configuration warning with %q", tc.name, w, tc.want)
		}
	}
}
