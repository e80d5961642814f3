package mysql_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	mysqldrv "github.com/fairbench/fairbench/internal/driver/mysql"
	"github.com/fairbench/fairbench/internal/testenv"
)

// The sampler reads InnoDB's counters, sees another session at work (SLEEP
// shows as its process-list state), says what performance_schema would add
// when it is off, and costs the server two statements per sample without it.
func TestServerViewSeesInnoDBAndSessions(t *testing.T) {
	url := testenv.MySQLURL(t)
	ctx := context.Background()
	cl := testenv.Open(t, url, driver.Options{})
	viewer, ok := cl.(driver.ServerViewer)
	if !ok {
		t.Fatal("the MySQL client has no server view")
	}
	smp, err := viewer.ServerView(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer smp.Close(ctx)
	sleeper, err := connect(t, url, "simple")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- sleeper.Exec(ctx, "DO SLEEP(1.5)") }()

	opened := mysqldrv.SamplerStatements(smp)
	deadline := time.Now().Add(10 * time.Second)
	samples := 0
	for {
		s, err := smp.Sample(ctx)
		if err != nil {
			t.Fatal(err)
		}
		samples++
		if s.Counters["status.Innodb_buffer_pool_read_requests"] <= 0 {
			t.Fatalf("no InnoDB buffer pool counter: %v", s.Counters)
		}
		if _, ok := s.Counters["status.Innodb_os_log_written"]; !ok {
			t.Fatalf("no InnoDB log counter: %v", s.Counters)
		}
		if s.Waits["User sleep"] >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sleeping session never showed: %v", s.Waits)
		}
		time.Sleep(50 * time.Millisecond)
	}
	perStatement := 2
	psOff := false
	for _, u := range smp.Unavailable() {
		psOff = psOff || strings.Contains(u, "performance_schema=ON")
	}
	if !psOff {
		perStatement = 3
	}
	if got := mysqldrv.SamplerStatements(smp) - opened; got != perStatement*samples {
		t.Fatalf("%d statements for %d samples, want %d per sample", got, samples, perStatement)
	}
	if u := smp.Units()["status.Innodb_os_log_written"]; u != "bytes" {
		t.Fatalf("Innodb_os_log_written unit %q, want bytes", u)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
