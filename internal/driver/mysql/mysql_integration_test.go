package mysql_test

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/fairbench/fairbench/internal/driver"
	mysqldrv "github.com/fairbench/fairbench/internal/driver/mysql"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

func connect(t *testing.T, url string, mode string) (driver.SQL, error) {
	t.Helper()
	c, err := session(url, driver.Options{QueryMode: mode})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c.(driver.SQL), nil
}

// session opens a client and takes its one session (the client holds
// nothing else to close).
func session(url string, o driver.Options) (driver.Conn, error) {
	cl, err := (mysqldrv.Driver{}).Open(context.Background(), driver.Target{Name: "t", URL: url}, o)
	if err != nil {
		return nil, err
	}
	defer cl.Close(context.Background())
	return cl.Session(context.Background())
}

// Every query mode runs statements with $n placeholders; prepared mode really
// prepares on the server (Com_stmt_prepare grows), simple mode never does.
func TestQueryModesOnMariaDB(t *testing.T) {
	url := testenv.FreshMySQL(t)
	ctx := context.Background()
	for _, mode := range []string{"simple", "extended", "prepared"} {
		c, err := connect(t, url, mode)
		if err != nil {
			t.Fatal(err)
		}
		prepares := func() int64 {
			n, err := c.QueryInt64(ctx, "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'COM_STMT_PREPARE'")
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		if err := c.Exec(ctx, "CREATE TABLE IF NOT EXISTS t (id INT PRIMARY KEY, v VARCHAR(20))"); err != nil {
			t.Fatal(err)
		}
		before := prepares()
		ins, err := c.Prepare(ctx, "REPLACE INTO t (id, v) VALUES ($1, $2)")
		if err != nil {
			t.Fatal(err)
		}
		if err := ins.Exec(ctx, int64(1), "it's"); err != nil {
			t.Fatal(err)
		}
		sel, err := c.Prepare(ctx, "SELECT id FROM t WHERE id = $1 AND v = $2")
		if err != nil {
			t.Fatal(err)
		}
		if v, err := sel.QueryInt64(ctx, int64(1), "it's"); err != nil || v != 1 {
			t.Fatalf("%s: got %d, %v", mode, v, err)
		}
		begin, err := c.Prepare(ctx, "BEGIN")
		if err != nil {
			t.Fatalf("%s: BEGIN must be accepted (text fallback where the server cannot prepare it): %v", mode, err)
		}
		if err := begin.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		c.Exec(ctx, "COMMIT")
		got := prepares() - before
		// The prepares() query itself is text; the 2 or 3 statements above are the prepares.
		if mode == "simple" && got != 0 || mode != "simple" && got < 2 {
			t.Fatalf("%s: %d server-side prepares", mode, got)
		}
	}
}

func TestRewriteRejectsOutOfOrderPlaceholders(t *testing.T) {
	got, err := mysqldrv.Rewrite("UPDATE t SET c = $1 WHERE id = $2 AND s = '$3'")
	if err != nil || got != "UPDATE t SET c = ? WHERE id = ? AND s = '$3'" {
		t.Fatalf("got %q, %v", got, err)
	}
	if _, err := mysqldrv.Rewrite("UPDATE t SET c = $2 WHERE id = $1"); err == nil || !strings.Contains(err.Error(), "$2") {
		t.Fatalf("out-of-order placeholders must be rejected, got %v", err)
	}
}

func TestURLErrorsNameTheParameter(t *testing.T) {
	for raw, want := range map[string]string{
		"mysql://u:secretpw@h/db?sslmode=require":               `"sslmode"`,
		"mysql://u:secretpw@h/db?tls=maybe":                     "tls=maybe",
		"mysql://u:secretpw@h/db?tls=true&tls-version=1":        "tls-version=1",
		"mysql://u:secretpw@h/db?tls=true&tls-ciphers=TLS_NOPE": "TLS_NOPE",
		"mysql://u:secretpw@h/db?tls-version=TLSv1.3":           "tls-version needs TLS",
		"mysql://u:secretpw@h/db?autocommit=2":                  "autocommit=2",
		"mysql://u:secretpw@h/":                                 "database",
	} {
		_, err := mysqldrv.ParseURL(raw)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want an error containing %s, got %v", raw, want, err)
			continue
		}
		if strings.Contains(err.Error(), "secretpw") {
			t.Errorf("%s: error leaks the password: %v", raw, err)
		}
	}
}

// TLS with verification against the test CA: the live connection's version and
// cipher are recorded; pinning TLS 1.3 with one suite either gets that suite or
// fails clearly, never silently runs on another.
func TestTLSVerifyAndPinning(t *testing.T) {
	base := testenv.MySQLURL(t)
	ca := testenv.MySQLCA(t)
	ctx := context.Background()
	c, err := connect(t, testenv.WithQuery(t, base, "tls", "verify", "ssl-ca", ca), "")
	if err != nil {
		t.Fatal(err)
	}
	env, err := c.(driver.Environment).Environment(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tlsFacts := env.Extra["tls"].(map[string]any)
	if tlsFacts["enabled"] != true || !strings.HasPrefix(tlsFacts["version"].(string), "TLSv1.") || tlsFacts["cipher"] == "" {
		t.Fatalf("tls facts: %v", tlsFacts)
	}
	settings := env.Settings
	for _, k := range []string{"innodb_buffer_pool_size", "max_connections", "innodb_flush_log_at_trx_commit"} {
		if settings[k] == "" {
			t.Fatalf("settings miss %s: %v", k, settings)
		}
	}
	if env.Engine != "mariadb" || !strings.Contains(env.Version, "MariaDB") {
		t.Fatalf("engine %v version %v", env.Engine, env.Version)
	}
	for k, v := range settings {
		if strings.Contains(v, "fairbench-test-pw") {
			t.Fatalf("setting %s carries the password", k)
		}
	}

	for _, suite := range []string{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384"} {
		c, err := connect(t, testenv.WithQuery(t, base, "tls", "verify", "ssl-ca", ca, "tls-version", "TLSv1.3", "tls-ciphers", suite), "")
		if err != nil {
			if !strings.Contains(err.Error(), "cannot restrict TLS 1.3") || !strings.Contains(err.Error(), suite) {
				t.Fatalf("pinned %s: unclear error %v", suite, err)
			}
			t.Logf("pinned %s: refused as expected: %v", suite, err)
			continue
		}
		env, err := c.(driver.Environment).Environment(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := env.Extra["tls"].(map[string]any)
		if got["version"] != "TLSv1.3" || got["cipher"] != suite {
			t.Fatalf("pinned TLSv1.3 %s, server reports %v", suite, got)
		}
	}
	// Verification against the system roots must fail for the test's private CA.
	if _, err := connect(t, testenv.WithQuery(t, base, "tls", "verify"), ""); err == nil || !strings.Contains(err.Error(), "TLS") {
		t.Fatalf("tls=verify without the CA must fail verification, got %v", err)
	}
	if _, err := connect(t, testenv.WithQuery(t, base, "tls", "skip-verify", "tls-version", "TLSv1.2"), ""); err != nil {
		t.Fatal(err)
	}
}

// A server that does not offer TLS (here a minimal MySQL handshake on loopback,
// because the test MariaDB has TLS enabled) fails with a clear error when the URL
// requires TLS, and is used in plaintext with tls=preferred.
func TestTLSRequiredButServerHasNone(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write(handshakeWithoutTLS())
			buf := make([]byte, 512)
			c.Read(buf)
			c.Close()
		}
	}()
	url := "mysql://bench:secretpw@" + ln.Addr().String() + "/db?tls=verify"
	_, err = session(url, driver.Options{})
	if err == nil || !strings.Contains(err.Error(), "does not offer TLS") || !strings.Contains(err.Error(), ln.Addr().String()) {
		t.Fatalf("want a clear no-TLS error, got %v", err)
	}
	if strings.Contains(err.Error(), "secretpw") {
		t.Fatal("error leaks the password")
	}
}

// handshakeWithoutTLS is a protocol-10 initial handshake packet whose capability
// flags lack CLIENT_SSL.
func handshakeWithoutTLS() []byte {
	var p []byte
	p = append(p, 10)
	p = append(p, "5.5.5-10.11.0-fake"...)
	p = append(p, 0)
	p = binary.LittleEndian.AppendUint32(p, 1)
	p = append(p, "abcdefgh"...)
	p = append(p, 0)
	p = binary.LittleEndian.AppendUint16(p, 0x0200|0x8000) // PROTOCOL_41 | SECURE_CONNECTION, no SSL (0x0800)
	p = append(p, 0x21)
	p = binary.LittleEndian.AppendUint16(p, 2)
	p = binary.LittleEndian.AppendUint16(p, 0x0008) // PLUGIN_AUTH
	p = append(p, 21)
	p = append(p, make([]byte, 10)...)
	p = append(p, "ijklmnopqrst"...)
	p = append(p, 0)
	p = append(p, "mysql_native_password"...)
	p = append(p, 0)
	hdr := []byte{byte(len(p)), byte(len(p) >> 8), byte(len(p) >> 16), 0}
	return append(hdr, p...)
}

func TestClassify(t *testing.T) {
	c, err := connect(t, testenv.MySQLURL(t), "")
	if err != nil {
		t.Fatal(err)
	}
	for num, want := range map[uint16]result.ErrorClass{1213: result.ErrDeadlock, 1205: result.ErrBusy, 1062: result.ErrConstraint,
		1452: result.ErrConstraint, 1969: result.ErrTimeout, 3024: result.ErrTimeout, 2013: result.ErrConnection, 1064: result.ErrOther,
		1040: result.ErrThrottled, 1226: result.ErrThrottled} {
		if got := c.Classify(&gomysql.MySQLError{Number: num}); got != want {
			t.Errorf("error %d: %s, want %s", num, got, want)
		}
	}
	if got := c.Classify(gomysql.ErrInvalidConn); got != result.ErrConnection {
		t.Errorf("ErrInvalidConn: %s", got)
	}
	// A real duplicate key from the server.
	ctx := context.Background()
	c.Exec(ctx, "CREATE TEMPORARY TABLE d (id INT PRIMARY KEY)")
	c.Exec(ctx, "INSERT INTO d VALUES (1)")
	err = c.Exec(ctx, "INSERT INTO d VALUES (1)")
	var me *gomysql.MySQLError
	if !errors.As(err, &me) || c.Classify(err) != result.ErrConstraint {
		t.Fatalf("duplicate key: %v classified %s", err, c.Classify(err))
	}
}

// autocommit=0 from the URL reaches the session.
func TestAutocommitParameter(t *testing.T) {
	for _, v := range []string{"0", "1"} {
		c, err := connect(t, testenv.WithQuery(t, testenv.MySQLURL(t), "autocommit", v), "")
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.QueryInt64(context.Background(), "SELECT @@autocommit")
		if err != nil || got != map[string]int64{"0": 0, "1": 1}[v] {
			t.Fatalf("autocommit=%s: session has %d (%v)", v, got, err)
		}
	}
}

// A cancelled context interrupts a running statement (the runner relies on it
// to stop a hung client), although the driver never sees the cancellable context.
func TestCancelInterruptsStatement(t *testing.T) {
	c, err := connect(t, testenv.MySQLURL(t), "prepared")
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Prepare(context.Background(), "SELECT SLEEP($1)")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = s.Exec(ctx, int64(5))
	if err == nil || time.Since(start) > 2*time.Second {
		t.Fatalf("statement not interrupted: %v after %s", err, time.Since(start))
	}
	if cl := c.Classify(err); cl != result.ErrConnection && cl != result.ErrTimeout {
		t.Fatalf("interrupted statement classified %s (%v)", cl, err)
	}
}

// A real server's environment gives its buffer pool as the cache.
func TestEnvironmentReportsTheBufferPool(t *testing.T) {
	c, err := connect(t, testenv.MySQLURL(t), "")
	if err != nil {
		t.Fatal(err)
	}
	db, err := c.(driver.Environment).Environment(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if b, name := db.WithEngineFacts().Cache(); b < 1<<20 || name != "innodb_buffer_pool_size" {
		t.Fatalf("cache %d bytes of %q from settings %v", b, name, db.Settings)
	}
}
