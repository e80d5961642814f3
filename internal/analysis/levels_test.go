package analysis

import (
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// Two servers with different cores at the same shares of their threads run
// different counts (8 cores: 4 and 7; 4 cores: 2 and 3): compare pairs them
// by the share, so every level both ran is compared, not only the literal 1.
func TestCompareShareLevelsPairByShare(t *testing.T) {
	var runs []*result.Run
	id := int64(0)
	for _, l := range []struct {
		level    string
		x86, arm int
	}{{"", 1, 1}, {"50%", 4, 2}, {"99%", 7, 3}} {
		for _, side := range []struct {
			target  string
			clients int
		}{{"x86", l.x86}, {"arm", l.arm}} {
			for rep := 1; rep <= 3; rep++ {
				id++
				r := okRun(id, side.target, side.clients, float64(100*side.clients+rep))
				r.ClientLevel, r.Repetition = l.level, rep
				runs = append(runs, r)
			}
		}
	}
	groups, err := GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare(groups, "x86", DefaultAlpha)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Cells) != 3 {
		t.Fatalf("%d cells compared, want 3 (1 client, 50 %% and 99 %% of threads)", len(c.Cells))
	}
	for _, cc := range c.Cells {
		if cc.Base.Level != cc.Other.Level {
			t.Errorf("%s at %d clients (%q) paired with %s at %d (%q)", cc.Other.Target, cc.Other.Clients, cc.Other.Level, cc.Base.Target, cc.Base.Clients, cc.Base.Level)
		}
	}
}

// Two engines on two platforms each: --baseline pg-x86,my-x86 compares each
// ARM server with its own engine's x86 server (same URL scheme), never with
// the other engine; two baselines of one engine are refused.
func TestCompareBaselinePerEngine(t *testing.T) {
	var runs []*result.Run
	for i, tg := range []struct{ name, url string }{
		{"pg-x86", "postgres://h1/db"}, {"pg-arm", "postgres://h2/db"}, {"my-x86", "mysql://h1/db"}, {"my-arm", "mysql://h2/db"},
	} {
		r := okRun(int64(i+1), tg.name, 4, float64(100+i))
		r.TargetURL = tg.url
		runs = append(runs, r)
	}
	groups, err := GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare(groups, "pg-x86,my-x86", DefaultAlpha)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, cc := range c.Cells {
		got = append(got, cc.Other.Target+" vs "+cc.Base.Target)
	}
	if len(got) != 2 || got[0] != "pg-arm vs pg-x86" || got[1] != "my-arm vs my-x86" {
		t.Errorf("pairs %v, want [pg-arm vs pg-x86 my-arm vs my-x86]", got)
	}
	for _, w := range Warnings(groups, "pg-x86,my-x86") {
		if strings.Contains(w.Message, "different engines") {
			t.Errorf("warned across engines with a baseline per engine: %s", w.Message)
		}
	}
	if err := CheckBaseline(groups, "pg-x86,pg-arm"); err == nil || !strings.Contains(err.Error(), "one baseline per engine") {
		t.Errorf("two PostgreSQL baselines: %v", err)
	}
}

// A declared price gives per target its cost per hour, each scenario's peak
// per dollar and, over several scenarios of one rate, the total of the peaks.
func TestPricesPerTarget(t *testing.T) {
	var runs []*result.Run
	for i, x := range []struct {
		target, mode string
		tps, price   float64
	}{{"arm", "ro", 100, 0.5}, {"arm", "rw", 50, 0.5}, {"x86", "ro", 120, 0.0151}, {"x86", "rw", 60, 0.0151}} {
		r := okRun(int64(i+1), x.target, 4, x.tps)
		r.Params = map[string]any{"mode": x.mode}
		declarePrice(r, x.price)
		runs = append(runs, r)
	}
	groups, err := GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	ps := Prices(groups)
	if len(ps) != 2 || ps[0].Target != "arm" || !ps[0].HasTotal || ps[0].Total != 150 || ps[0].TotalPerDollar != 150*3600/0.5 {
		t.Fatalf("prices %+v", ps)
	}
	if len(ps[1].PerDollar) != 2 || ps[1].PerDollar[0] != 120*3600/0.0151 {
		t.Errorf("x86 per dollar %v", ps[1].PerDollar)
	}
}

// declarePrice records a price per hour in the run as the runner does from
// the study's target.
func declarePrice(r *result.Run, price float64) {
	r.Env.Declared.PricePerHour = price
}
