package driver_test

import (
	"context"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/redact"
)

func TestRedactedHidesUserInfoPassword(t *testing.T) {
	in := "postgres://bench:s3cr3t-pw@db.example.com:5433/fair?sslmode=require&application_name=fb"
	got := driver.Redacted(in)
	if strings.Contains(got, "s3cr3t-pw") {
		t.Fatalf("Redacted(%q) = %q still holds the password", in, got)
	}
	u, err := url.Parse(got)
	if err != nil {
		t.Fatalf("Redacted output %q does not parse: %v", got, err)
	}
	if pw, has := u.User.Password(); !has || pw != "xxxxx" {
		t.Errorf("password in %q = %q (set %v), want xxxxx", got, pw, has)
	}
	if u.Scheme != "postgres" || u.User.Username() != "bench" || u.Host != "db.example.com:5433" || u.Path != "/fair" {
		t.Errorf("Redacted changed scheme/user/host/path: %q", got)
	}
	// No query parameter was secret, so the query is left exactly as written.
	if u.RawQuery != "sslmode=require&application_name=fb" {
		t.Errorf("query = %q, want it unchanged", u.RawQuery)
	}
	if want := "postgres://bench:xxxxx@db.example.com:5433/fair?sslmode=require&application_name=fb"; got != want {
		t.Errorf("Redacted = %q, want %q", got, want)
	}
}

func TestRedactedHidesSecretQueryParameters(t *testing.T) {
	in := "postgres://bench@db.example.com/fair?sslmode=verify-full&password=qp-one&sslpassword=qp-two&token=qp-three&application_name=fb&connect_timeout=3"
	got := driver.Redacted(in)
	for _, secret := range []string{"qp-one", "qp-two", "qp-three"} {
		if strings.Contains(got, secret) {
			t.Errorf("Redacted output %q holds %q", got, secret)
		}
	}
	u, err := url.Parse(got)
	if err != nil {
		t.Fatalf("Redacted output %q does not parse: %v", got, err)
	}
	want := url.Values{
		"sslmode":          {"verify-full"},
		"password":         {"xxxxx"},
		"sslpassword":      {"xxxxx"},
		"token":            {"xxxxx"},
		"application_name": {"fb"},
		"connect_timeout":  {"3"},
	}
	if q := u.Query(); !reflect.DeepEqual(q, want) {
		t.Errorf("query after Redacted = %v, want %v", q, want)
	}
	if u.User.Username() != "bench" || u.Host != "db.example.com" || u.Path != "/fair" {
		t.Errorf("Redacted changed user/host/path: %q", got)
	}
	if _, has := u.User.Password(); has {
		t.Errorf("Redacted added a password to %q", got)
	}
}

// API keys (OpenSearch's and Elasticsearch's ?api_key=) are secrets too,
// in URLs net/url parses and in those it refuses (a list of hosts).
func TestRedactedHidesAPIKeys(t *testing.T) {
	for _, in := range []string{
		"opensearch://admin@127.0.0.1:9200/?api_key=ak-secret-1&tls=true",
		"elasticsearchs://h1:9200,h2:x/?apiKey=ak-secret-1",
		"opensearch://h1:9200,h2:9200?API_KEY=ak-secret-1",
	} {
		if got := driver.Redacted(in); strings.Contains(got, "ak-secret-1") {
			t.Errorf("Redacted(%q) = %q leaks the API key", in, got)
		}
		found := false
		for _, s := range driver.Secrets(in) {
			found = found || s == "ak-secret-1"
		}
		if !found {
			t.Errorf("Secrets(%q) = %q misses the API key", in, driver.Secrets(in))
		}
	}
}

func TestRedactedLeavesURLsWithoutSecretsAlone(t *testing.T) {
	for _, in := range []string{
		"postgres://bench@db.example.com:5432/fair?sslmode=disable",
		"postgres://localhost/fair",
		"postgresql:///fair?host=/var/run/postgresql",
		"sqlite:bench.db?journal_mode=WAL&synchronous=NORMAL",
		"sqlite:///abs/path/bench.db",
	} {
		if got := driver.Redacted(in); got != in {
			t.Errorf("Redacted(%q) = %q, want it unchanged", in, got)
		}
	}
	if got := driver.Redacted("postgres://bob:pw@host:port-is-not-a-number/db"); strings.Contains(got, "pw") {
		t.Errorf("Redacted of an unparseable URL = %q, leaks the password", got)
	}
}

func TestRedactedKeywordValueConnectionString(t *testing.T) {
	in := "host=db.example.com user=bench password=kv-secret-1 dbname=fair"
	if got := driver.Redacted(in); strings.Contains(got, "kv-secret-1") {
		t.Errorf("Redacted(%q) = %q leaks the password", in, got)
	}
	if _, err := driver.ForURL(in); err == nil {
		t.Errorf("ForURL(%q) succeeded", in)
	} else if strings.Contains(err.Error(), "kv-secret-1") {
		t.Errorf("ForURL error %q leaks the password", err)
	}
}

func TestLocal(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"sqlite:bench.db", true},
		{"sqlite:///abs/bench.db?journal_mode=WAL", true},
		{"sqlite3:bench.db", true},
		{"postgres://bench@127.0.0.1:5432/fair", true},
		{"postgres://127.5.5.5/fair", true},
		{"postgres://bench:pw@localhost/fair", true},
		{"postgres://localhost:6432/fair", true},
		{"postgres://[::1]:5432/fair", true},
		{"postgres:///fair", true},                               // no host: libpq's Unix socket
		{"postgresql://bench@/fair", true},                       // no host, with a user
		{"postgres:///fair?host=/var/run/postgresql", true},      // socket directory in the query
		{"postgresql:///fair?host=%2Ftmp&sslmode=disable", true}, // encoded socket directory
		{"postgres:///fair?host=localhost", true},
		{"postgres:///fair?host=db.example.com", false}, // host in the query string counts
		{"postgres://db.example.com/fair", false},
		{"postgres://bench:pw@10.0.0.7:5432/fair", false},
		{"postgres://[2001:db8::1]:5432/fair", false},
		{"postgres://128.0.0.1/fair", false},
		{"postgres://localhost.example.com/fair", false},
		{"postgres://bob:pw@host:notaport/fair", false}, // unparseable: not assumed local
	} {
		if got := driver.Local(tc.url); got != tc.want {
			t.Errorf("Local(%q) = %v, want %v", tc.url, got, tc.want)
		}
	}
}

func TestLocalPercentEncodedSocketHost(t *testing.T) {
	for _, u := range []string{
		"postgresql://%2Fvar%2Frun%2Fpostgresql/fair",
		"postgres://bench@%2Ftmp:5432/fair",
	} {
		if !driver.Local(u) {
			t.Errorf("Local(%q) = false, want true (Unix socket)", u)
		}
	}
}

func TestLocalHostNameLookalikes(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"postgres://127.example.com/fair", false},
		{"postgres://LOCALHOST/fair", true},
	} {
		if got := driver.Local(tc.url); got != tc.want {
			t.Errorf("Local(%q) = %v, want %v", tc.url, got, tc.want)
		}
	}
}

type stubDriver struct{ name string }

func (d stubDriver) Name() string { return d.name }
func (d stubDriver) Open(context.Context, driver.Target, driver.Options) (driver.Client, error) {
	return nil, nil
}

func TestForURL(t *testing.T) {
	d := stubDriver{name: "test-only"}
	driver.Register(d, "testscheme://", "testscheme2:")

	for _, u := range []string{"testscheme://host/db", "TESTSCHEME://host/db", "testscheme2:file"} {
		got, err := driver.ForURL(u)
		if err != nil {
			t.Errorf("ForURL(%q): %v", u, err)
			continue
		}
		if got.Name() != "test-only" {
			t.Errorf("ForURL(%q) = driver %q, want test-only", u, got.Name())
		}
	}

	schemes := driver.Schemes()
	for _, want := range []string{"testscheme://", "testscheme2:"} {
		found := false
		for _, s := range schemes {
			found = found || s == want
		}
		if !found {
			t.Errorf("Schemes() = %v, lacks %q", schemes, want)
		}
	}
	for i := 1; i < len(schemes); i++ {
		if schemes[i-1] > schemes[i] {
			t.Errorf("Schemes() = %v is not sorted", schemes)
		}
	}

	_, err := driver.ForURL("nosuchdb://bob:pw-unknown@host/db")
	if err == nil {
		t.Fatal("ForURL of an unregistered scheme succeeded")
	}
	for _, want := range []string{"nosuchdb", "testscheme://", "testscheme2:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("ForURL error %q does not mention %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "pw-unknown") {
		t.Errorf("ForURL error %q leaks the password", err)
	}

	for _, u := range []string{"bench.db", ":nothing", ""} {
		_, err := driver.ForURL(u)
		if err == nil {
			t.Errorf("ForURL(%q) succeeded, want a no-scheme error", u)
			continue
		}
		if !strings.Contains(err.Error(), "testscheme://") {
			t.Errorf("ForURL(%q) error %q does not list the supported prefixes", u, err)
		}
	}
}

func TestSecretsFindsPasswordsInEveryForm(t *testing.T) {
	cases := map[string][]string{
		"postgres://u:p%40ss-1@h/db":                            {"p@ss-1"},
		"postgres://u@h/db?password=qp-2&sslmode=require":       {"qp-2"},
		"host=db user=u password=kv-3 dbname=x":                 {"kv-3"},
		"host=db password='quoted secret-4'":                    {"quoted secret-4"},
		"postgresql://u:sock-5@%2Fvar%2Frun%2Fpostgresql/db":    {"sock-5"},
		"mysql://u:my-6@tcp(127.0.0.1:3306)/db?tls=skip-verify": {"my-6"},
	}
	for raw, want := range cases {
		got := driver.Secrets(raw)
		for _, w := range want {
			found := false
			for _, g := range got {
				if g == w {
					found = true
				}
			}
			if !found {
				t.Errorf("Secrets(%q) = %q, missing %q", raw, got, w)
			}
			if red := driver.Redacted(raw); strings.Contains(red, w) {
				t.Errorf("Redacted(%q) = %q still shows %q", raw, red, w)
			}
		}
	}
}

// A short password is redacted where it stands (a URL's password field, a
// password= value) and not inside every word: with the password "p", a
// connection error read "unexxxxxexxxxxected" on main. A password long
// enough to mean something is replaced wherever it occurs.
func TestScrubShortPasswordOnlyWhereItStands(t *testing.T) {
	for _, tc := range []struct {
		secrets   redact.List
		msg, want string
	}{
		{driver.Secrets("postgres://bench:p@127.0.0.1:1/x"),
			"connect postgres://bench:p@127.0.0.1:1/x: unexpected EOF, password=p",
			"connect postgres://bench:xxxxx@127.0.0.1:1/x: unexpected EOF, password=xxxxx"},
		{redact.List{"on"}, "connection lost on //u:on@h", "connection lost on //u:xxxxx@h"},
		{redact.List{"s3cr3t-pw"}, "auth failed for s3cr3t-pw and S3CR3T", "auth failed for xxxxx and S3CR3T"},
		{redact.List{"abcd", "abcdef"}, "abcdefg abcd", "xxxxxg xxxxx"},
	} {
		if got := tc.secrets.Scrub(tc.msg); got != tc.want {
			t.Errorf("Scrub(%q) with %q = %q, want %q", tc.msg, tc.secrets, got, tc.want)
		}
	}
}
