package driver_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	_ "github.com/fairbench/fairbench/internal/driver/clickhouse"
	_ "github.com/fairbench/fairbench/internal/driver/mongodb"
	_ "github.com/fairbench/fairbench/internal/driver/mysql"
	_ "github.com/fairbench/fairbench/internal/driver/opensearch"
	_ "github.com/fairbench/fairbench/internal/driver/postgres"
	_ "github.com/fairbench/fairbench/internal/driver/redis"
	"github.com/fairbench/fairbench/internal/testenv"
)

// silentTargets are the network drivers' URLs for a server at addr, with
// their connect timeout set to timeout (seconds) by the setting each names.
var silentTargets = []struct {
	name    string
	url     func(addr, timeout string) string
	setting string // what the timeout message must name
}{
	{"postgres", func(a, s string) string { return "postgres://u:pw@" + a + "/db?sslmode=disable&connect_timeout=" + s }, "connect_timeout"},
	{"mysql", func(a, s string) string { return "mysql://u:pw@" + a + "/db?timeout=" + s + "s" }, "timeout"},
	{"redis", func(a, s string) string { return "redis://" + a + "/0?timeout=" + s + "s" }, "timeout"},
	{"mongodb", func(a, s string) string {
		return "mongodb://" + a + "/db?directConnection=true&connectTimeoutMS=" + s + "000&serverSelectionTimeoutMS=" + s + "000"
	}, "serverSelectionTimeoutMS"},
	{"clickhouse", func(a, s string) string {
		return "clickhouse://" + a + "/db?dial_timeout=" + s + "s&read_timeout=" + s + "s"
	}, "read_timeout"},
	{"opensearch", func(a, s string) string { return "opensearch://" + a + "?timeout=" + s + "s" }, "timeout"},
}

// connect opens the target, takes a session and asks its first request (the
// environment, as a run's capture does), returning the first error.
func connect(ctx context.Context, url string) error {
	d, err := driver.ForURL(url)
	if err != nil {
		return err
	}
	c, err := d.Open(ctx, driver.Target{URL: url}, driver.Options{})
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	s, err := c.Session(ctx)
	if err != nil {
		return err
	}
	defer s.Close(context.Background())
	if e, ok := c.(driver.Environment); ok {
		if _, err := e.Environment(ctx); err != nil {
			return err
		}
	}
	if sq, ok := s.(driver.SQL); ok {
		return sq.Exec(ctx, "SELECT 1")
	}
	return errors.New("connected to a server that never answers")
}

// Ctrl-C while a driver connects to a server that accepts TCP but never
// answers stops it at once, whatever its connect timeout (60 s here).
func TestCtrlCWhileConnectingToASilentServer(t *testing.T) {
	for _, tc := range silentTargets {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			addr, accepted := testenv.SilentServer(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				<-accepted
				cancel()
			}()
			start := time.Now()
			err := connect(ctx, tc.url(addr, "60"))
			if took := time.Since(start); took > testenv.StopDeadline {
				t.Fatalf("took %v to stop after Ctrl-C (%v)", took, err)
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("want a context error, got %v", err)
			}
		})
	}
}

// A server that accepts and never answers fails the connect once the
// timeout passed, saying it timed out, after how long and which setting
// changes it (PostgreSQL said "unexpected EOF").
func TestSilentServerTimesOutNamingTheSetting(t *testing.T) {
	for _, tc := range silentTargets {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			addr, _ := testenv.SilentServer(t)
			start := time.Now()
			err := connect(context.Background(), tc.url(addr, "1"))
			if took := time.Since(start); took > testenv.StopDeadline {
				t.Fatalf("took %v with a 1 s timeout (%v)", took, err)
			}
			if err == nil {
				t.Fatal("connected to a server that never answers")
			}
			msg := err.Error()
			for _, want := range []string{"timed out", "1s", tc.setting} {
				if !strings.Contains(msg, want) {
					t.Errorf("%q does not say %q", msg, want)
				}
			}
			if strings.Contains(msg, "pw") {
				t.Errorf("%q shows the password", msg)
			}
		})
	}
}
