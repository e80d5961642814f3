package clickhouse

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestParseURL(t *testing.T) {
	cfg, err := parseURL("clickhouse://u:s3cret@db.example:9440/bench?dial_timeout=2s")
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.opts
	if o.Addr[0] != "db.example:9440" || o.Auth.Username != "u" || o.Auth.Password != "s3cret" || o.Auth.Database != "bench" ||
		o.DialTimeout != 2*time.Second || o.TLS != nil || cfg.database != "bench" {
		t.Fatalf("parsed %+v", o)
	}
	if strings.Contains(cfg.redacted, "s3cret") {
		t.Fatalf("redacted URL shows the password: %s", cfg.redacted)
	}
	cfg, err = parseURL("clickhouse://h/default")
	if err != nil || cfg.opts.Addr[0] != "h:9000" || cfg.opts.Auth.Username != "default" || cfg.opts.DialTimeout != defaultDialTimeout {
		t.Fatalf("defaults: %+v %v", cfg.opts, err)
	}
	for _, u := range []string{"clickhouses://h/db", "clickhouse://h/db?secure=true&skip_verify=true"} {
		cfg, err := parseURL(u)
		if err != nil || cfg.opts.TLS == nil || !cfg.tls {
			t.Fatalf("%s: TLS not set (%v)", u, err)
		}
	}
}

func TestParseURLErrors(t *testing.T) {
	for raw, want := range map[string]string{
		"clickhouse://u:s3cret@h":                       "no database",
		"clickhouse://u:s3cret@h/db?bogus=1":            "unsupported parameter",
		"clickhouse://u:s3cret@h/db?dial_timeout=soon":  "positive Go duration",
		"clickhouse://u:s3cret@h/db?skip_verify=true":   "need TLS",
		"clickhouse://u:s3cret@h/db?secure=maybe":       "true or false",
		"clickhouse://u:s3cret@h:99999/db":              "not a TCP port",
		"clickhouse://u:s3cret@/db":                     "no host",
		"http://u:s3cret@h/db":                          "scheme",
		"clickhouses://u:s3cret@h/db?ca_file=/nonexist": "ca_file",
	} {
		_, err := parseURL(raw)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", raw, err, want)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: error shows the password: %v", raw, err)
		}
		if !strings.Contains(err.Error(), "ClickHouse URL clickhouse") && !strings.Contains(err.Error(), "ClickHouse URL http") {
			t.Errorf("%s: error does not name the URL: %v", raw, err)
		}
	}
}

func TestPlaceholders(t *testing.T) {
	got := placeholders("SELECT '$1', x FROM t WHERE a = $1 AND b = $12")
	if got != "SELECT '$1', x FROM t WHERE a = ? AND b = ?" {
		t.Fatal(got)
	}
}

func TestConvert(t *testing.T) {
	for _, c := range []struct {
		v    any
		typ  string
		want string
	}{
		{int64(5), "UInt8", "5"}, {"7", "Int32", "7"}, {int64(3), "String", "3"}, {"1.25", "Float64", "1.25"},
		{"12.30", "Decimal(10, 2)", "12.3"}, {"2024-02-03", "Date", "2024-02-03 00:00:00 +0000 UTC"},
	} {
		got, err := convert(c.v, c.typ)
		if err != nil {
			t.Fatalf("%v as %s: %v", c.v, c.typ, err)
		}
		if s := strings.TrimSpace(fmtAny(got)); s != c.want {
			t.Errorf("%v as %s = %s, want %s", c.v, c.typ, s, c.want)
		}
	}
	if _, err := convert(nil, "Int64"); err == nil {
		t.Error("NULL into Int64 accepted")
	}
	if v, err := convert(nil, "Nullable(Int64)"); err != nil || v != nil {
		t.Errorf("NULL into Nullable: %v %v", v, err)
	}
}

func fmtAny(v any) string { return fmt.Sprint(v) }
