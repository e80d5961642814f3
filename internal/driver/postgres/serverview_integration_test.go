package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	pgdrv "github.com/fairbench/fairbench/internal/driver/postgres"
	"github.com/fairbench/fairbench/internal/testenv"
)

// The sampler sees another session's wait event (pg_sleep waits on
// Timeout:PgSleep), reads the cumulative views, and costs the server two
// statements per sample.
func TestServerViewSeesWaitsAndCounters(t *testing.T) {
	url := testenv.PostgresURL(t)
	ctx := context.Background()
	cl := testenv.Open(t, url, driver.Options{})
	viewer, ok := cl.(driver.ServerViewer)
	if !ok {
		t.Fatal("the PostgreSQL client has no server view")
	}
	smp, err := viewer.ServerView(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer smp.Close(ctx)
	sleeper := connect(t, url, "simple")
	done := make(chan error, 1)
	go func() { done <- sleeper.Exec(ctx, "SELECT pg_sleep(1.5)") }()

	opened := pgdrv.SamplerStatements(smp)
	deadline := time.Now().Add(10 * time.Second)
	samples := 0
	for {
		s, err := smp.Sample(ctx)
		if err != nil {
			t.Fatal(err)
		}
		samples++
		if s.Counters["pg_stat_database.xact_commit"] <= 0 {
			t.Fatalf("no pg_stat_database.xact_commit among the counters: %v", s.Counters)
		}
		if _, ok := s.Counters["pg_stat_bgwriter.buffers_alloc"]; !ok {
			t.Fatalf("no pg_stat_bgwriter counters: %v", s.Counters)
		}
		if s.Waits["Timeout:PgSleep"] >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sleeping session's wait never showed: %v", s.Waits)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := pgdrv.SamplerStatements(smp) - opened; got != 2*samples {
		t.Fatalf("%d statements for %d samples, want 2 per sample", got, samples)
	}
	if u := smp.Units()["pg_stat_wal.wal_bytes"]; u != "bytes" {
		t.Fatalf("wal_bytes unit %q, want bytes", u)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
