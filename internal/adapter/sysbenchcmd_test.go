package adapter

import (
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/oltpparams"
)

// TestBuildSysbenchEvents: the oltp kind's events parameter is sysbench's
// --events, given only when set (sysbench's 0 is no limit).
func TestBuildSysbenchEvents(t *testing.T) {
	for events, want := range map[int64]string{0: "", 40: " --events=40 "} {
		v := params.WithDefaults(oltpparams.Specs(), params.Values{oltpparams.Events: events})
		c, err := buildSysbench(Invocation{URL: "mysql://sb@127.0.0.1:3306/sbtest", Clients: 2, Duration: 3 * time.Second, Params: v})
		if err != nil {
			t.Fatal(err)
		}
		argv := strings.Join(c.Argv, " ") + " "
		if want != "" && !strings.Contains(argv, want) || want == "" && strings.Contains(argv, "--events") {
			t.Errorf("events %d: %s", events, argv)
		}
	}
}

// A mysql:// target's tls and ssl-ca (the MySQL driver's keys) reach
// mysqlslap, which ignored them and connected in plaintext: --ssl,
// --ssl-verify-server-cert and --ssl-ca. sysbench 1.0.20's --mysql-ssl=on
// needs client key, certificate and CA files of fixed names in its working
// directory, so a sysbench cell asking for TLS is refused, not run in
// plaintext.
func TestMySQLToolsTakeTheTargetsTLS(t *testing.T) {
	oltp := params.WithDefaults(oltpparams.Specs(), params.Values{})
	slap := params.WithDefaults(mysqlslapParams, params.Values{"schema": "slap"})
	for _, tc := range []struct {
		query, sysbench, mysqlslap string // a flag each must show, or "error: …"
	}{
		{"", "--mysql-db=db --tables", "--user=u --create-schema"},
		{"?tls=false", "--mysql-db=db --tables", "--user=u --create-schema"},
		{"?tls=skip-verify", "error: target URL: tls=skip-verify: sysbench 1.0.20's --mysql-ssl=on reads", "--user=u --ssl --create-schema"},
		{"?tls=preferred", "fairbench runs no sysbench over TLS", "--user=u --ssl --create-schema"},
		{"?tls=verify&ssl-ca=/etc/ca.pem", "fairbench runs no sysbench over TLS", "--ssl --ssl-verify-server-cert --ssl-ca=/etc/ca.pem --create-schema"},
		{"?tls=true", "fairbench runs no sysbench over TLS", "--ssl --ssl-verify-server-cert --create-schema"},
		{"?tls=skip-verify&ssl-ca=/etc/ca.pem", "error: target URL: ssl-ca needs tls=verify", "error: target URL: ssl-ca needs tls=verify"},
		{"?tls=maybe", "error: target URL: tls=maybe: sysbench cells understand", "error: target URL: tls=maybe: mysqlslap cells understand"},
	} {
		url := "mysql://u@127.0.0.1:3306/db" + tc.query
		for tool, want := range map[string]string{"sysbench": tc.sysbench, "mysqlslap": tc.mysqlslap} {
			build, p := buildSysbench, oltp
			if tool == "mysqlslap" {
				build, p = buildMysqlslap, slap
			}
			c, err := build(Invocation{URL: url, Clients: 2, Duration: time.Second, Params: p})
			got := strings.Join(c.Argv, " ")
			if err != nil {
				got = "error: " + err.Error()
			}
			if !strings.Contains(got, want) {
				t.Errorf("%s on %s: %s, want %s", tool, url, got, want)
			}
		}
	}
}
