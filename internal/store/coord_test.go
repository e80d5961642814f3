package store

import (
	"context"
	"math"
	"testing"
	"time"
)

// The coordination tables on both dialects: a newer coordinator's session
// replaces an older open one, generators register and beat, parts round-trip
// with their histograms, and a merged run finds its parts.
func TestCoordinationOnBothDialects(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.name, func(t *testing.T) {
			s, err := Open(d.fresh(t))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			clock, err := s.Clock(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if clock.RTT < 0 || clock.Offset > time.Second || clock.Offset < -time.Second {
				t.Errorf("clock against a store on this machine: %+v", clock)
			}
			old, err := s.OpenSession(ctx, "h1", "study", 42, 2, clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			sid, err := s.OpenSession(ctx, "h1", "study", 43, 2, clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			if got, _, _ := s.FindSession(ctx, old, ""); got.Status != SessionAbandoned {
				t.Errorf("the older open session is %q, want abandoned", got.Status)
			}
			got, ok, err := s.FindSession(ctx, 0, "h1")
			if err != nil || !ok || got.ID != sid || got.Seed != 43 || got.Generators != 2 {
				t.Fatalf("FindSession = %+v %v %v, want session %d with seed 43", got, ok, err, sid)
			}
			if _, ok, _ := s.FindSession(ctx, 0, "other"); ok {
				t.Errorf("another study's generators found this session")
			}
			t0 := clock.Now()
			for i := range 2 {
				if err := s.Register(ctx, sid, Generator{Index: i, Host: "h", PID: 100 + i, RegisteredAt: t0, SeenAt: t0, Clock: clock}); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Heartbeat(ctx, sid, 1, t0.Add(5*time.Second)); err != nil {
				t.Fatal(err)
			}
			gens, err := s.Generators(ctx, sid)
			if err != nil || len(gens) != 2 {
				t.Fatalf("generators %v %v", gens, err)
			}
			if d := gens[1].SeenAt.Sub(gens[0].SeenAt); d != 5*time.Second {
				t.Errorf("heartbeat moved seen_at by %s, want 5s", d)
			}
			if err := s.PublishCell(ctx, sid, 1, "k1"); err != nil {
				t.Fatal(err)
			}
			cc, ok, err := s.NextCell(ctx, sid, 0)
			if err != nil || !ok || cc.CellKey != "k1" || cc.Status != CellAssigned {
				t.Fatalf("NextCell = %+v %v %v", cc, ok, err)
			}
			if _, ok, _ := s.NextCell(ctx, sid, 1); ok {
				t.Errorf("a cell after the last one")
			}
			at := t0.Add(time.Second).Truncate(time.Microsecond)
			if err := s.StartCell(ctx, sid, 1, at); err != nil {
				t.Fatal(err)
			}
			if cc, _, _ := s.Cell(ctx, sid, 1); cc.Status != CellStarted || !cc.StartAt.Equal(at) {
				t.Errorf("started cell %+v, want start %s", cc, at)
			}
			part := sampleRun(t, 1)
			part.Clients = 3
			if err := s.SetPart(ctx, sid, 1, 0, PartReady, nil, "", t0); err != nil {
				t.Fatal(err)
			}
			// The generator's progress readings while it measures: the
			// newest MaxPartTicks of them, with their interval histograms,
			// and the part still ready; gone once the part is done.
			var ticks []PartTick
			for i := range MaxPartTicks + 2 {
				pt := part.Series[0]
				pt.Second = i
				ticks = append(ticks, PartTick{Slot: i, Warmup: i < 2, Elapsed: time.Duration(i+1) * time.Second, Window: time.Second, Point: pt})
			}
			ticks[len(ticks)-1].Point.Rate = math.NaN()
			if err := s.SetPartProgress(ctx, sid, 1, 0, ticks, t0); err != nil {
				t.Fatal(err)
			}
			if now, _ := s.Parts(ctx, sid, 1); len(now) != 1 || now[0].Progress != nil {
				t.Errorf("Parts reads the progress too: %+v", now)
			}
			now, err := s.PartProgress(ctx, sid, 1)
			if err != nil || len(now) != 1 {
				t.Fatalf("Parts while measuring = %v %v", now, err)
			}
			if got := now[0].Progress; now[0].Status != PartReady || len(got) != MaxPartTicks || got[0].Slot != 2 || got[0].Warmup ||
				got[MaxPartTicks-1].Slot != MaxPartTicks+1 || got[0].Elapsed != 3*time.Second || got[MaxPartTicks-1].Point.Rate != 0 {
				t.Errorf("progress read back as %+v (status %s), want slots 2 to %d, the NaN rate as 0", got, now[0].Status, MaxPartTicks+1)
			} else if got[0].Point.Ops != part.Series[0].Ops || len(got[0].Point.Hists) == 0 || got[0].Point.Hists[0].Histogram != part.Series[0].Hists[0].Histogram {
				t.Errorf("a reading's point changed on the way through the store: %+v, want %+v", got[0].Point, part.Series[0])
			}
			if _, err := s.db.Exec(s.q("UPDATE coord_parts SET progress = '[{' WHERE session_id = ?"), sid); err != nil {
				t.Fatal(err)
			}
			if now, err := s.PartProgress(ctx, sid, 1); err != nil || len(now) != 1 || now[0].Progress != nil {
				t.Errorf("a progress that does not decode: %+v, %v; want the part without it, no error", now, err)
			}
			if err := s.SetPart(ctx, sid, 1, 0, PartDone, part, "", t0); err != nil {
				t.Fatal(err)
			}
			if now, _ := s.PartProgress(ctx, sid, 1); len(now) != 1 || now[0].Progress != nil {
				t.Errorf("a done part keeps its progress readings: %+v", now)
			}
			if err := s.SetPart(ctx, sid, 1, 1, PartFailed, nil, "boom", t0); err != nil {
				t.Fatal(err)
			}
			id, err := s.AppendRun(sampleRun(t, 1))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.EndCell(ctx, sid, 1, CellFailed, id, "generator 1: boom"); err != nil {
				t.Fatal(err)
			}
			parts, ok, err := s.PartsOfRun(ctx, id)
			if err != nil || !ok || len(parts) != 2 {
				t.Fatalf("PartsOfRun = %v %v %v", parts, ok, err)
			}
			p := parts[0]
			if p.Status != PartDone || p.Run == nil || p.Run.Clients != 3 || p.Run.Summary.Transactions != part.Summary.Transactions {
				t.Errorf("part 0 = %+v", p)
			}
			if string(p.Run.Ops[0].Histogram) != string(part.Ops[0].Histogram) {
				t.Errorf("part 0's histogram changed on the way through the store")
			}
			if parts[1].Status != PartFailed || parts[1].Error != "boom" || parts[1].Run != nil {
				t.Errorf("part 1 = %+v", parts[1])
			}
			if _, ok, _ := s.PartsOfRun(ctx, id+1000); ok {
				t.Errorf("parts for a run no generator made")
			}
			runs, err := s.Runs(Filter{})
			if err != nil || len(runs) != 1 {
				t.Errorf("runs %d %v: partial runs must not be runs", len(runs), err)
			}
			if err := s.EndSession(ctx, sid, SessionDone, clock.Now()); err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := s.FindSession(ctx, 0, "h1"); ok {
				t.Errorf("a closed session is still found")
			}
		})
	}
}
