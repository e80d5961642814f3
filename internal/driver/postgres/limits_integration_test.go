package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/testenv"
)

// More clients than the server accepts are refused before anything runs,
// naming the target, the number and the limit with how it was reached.
func TestCheckClientsAgainstMaxConnections(t *testing.T) {
	url := testenv.PostgresURL(t)
	ctx := context.Background()
	c := testenv.Connect(t, url, driver.Options{})
	maxConn, err := c.(driver.SQL).QueryInt64(ctx, "SELECT current_setting('max_connections')::bigint")
	if err != nil {
		t.Fatal(err)
	}
	tg := driver.Target{Name: "pg", URL: url}
	if err := driver.CheckClients(ctx, tg, 4); err != nil {
		t.Fatalf("4 clients: %v", err)
	}
	asked := int(maxConn) + 1
	err = driver.CheckClients(ctx, tg, asked)
	if err == nil {
		t.Fatalf("%d clients accepted with max_connections %d", asked, maxConn)
	}
	t.Log(err)
	for _, want := range []string{`target "pg"`, " clients", "max_connections", "reserved", "in use", "lower clients to at most"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
