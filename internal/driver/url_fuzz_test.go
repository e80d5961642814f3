package driver

import (
	"strings"
	"testing"
)

// Redacted and Secrets take any string a user may write as a target or a
// results path without panicking, and a password they find is not in what
// Redacted returns.
func FuzzRedacted(f *testing.F) {
	for _, s := range []string{
		"postgres://bench:s3cret-pass@127.0.0.1:5432/bench?sslmode=disable",
		"mysql://root:pw@tcp(127.0.0.1:3306)/db?tls=custom&password=x",
		"host=localhost user=bench password='se cret' dbname=bench",
		"redis://:tok3n@localhost:6379/0",
		"sqlite:bench.db?journal_mode=WAL",
		"http://user:p%40ss@[::1]:9200/?api_token=abc",
		"postgres://u:p@h:badport/db",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		red := Redacted(raw)
		for _, s := range Secrets(raw) {
			// Long enough to be a password rather than a fragment of the
			// URL's other parts, and not "xxxxx" itself.
			if len(s) >= 12 && !strings.Contains(s, "xxxxx") && strings.Contains(red, s) && !strings.Contains(strings.Replace(raw, s, "", 1), s) {
				t.Fatalf("Redacted(%q) = %q still holds the secret %q", raw, red, s)
			}
		}
		_ = Local(raw)
		_ = EngineInProcess(raw)
	})
}
