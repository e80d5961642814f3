package study

import (
	"strings"
	"testing"
)

// The study text travels inside results files, which people share: the
// passwords of its target and node_exporter URLs must not.
func TestStoredSourceHasNoSecrets(t *testing.T) {
	const pw, tok, exp = "S3cr3t-pw-914", "tok-77e1", "np-4410"
	doc := `[[target]]
name = "pg"
url = "postgres://bench:` + pw + `@db:5432/bench?sslmode=require"
node_exporter = "http://mon:` + exp + `@db:9100/metrics"
[[target]]
name = "os"
url = "postgres://db2/bench?password=` + tok + `"
[[workload]]
kind = "tpcb"
`
	s, err := Parse("s.toml", []byte(doc), cat)
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range []string{pw, tok, exp} {
		if strings.Contains(string(s.Source), sec) {
			t.Fatalf("stored study text holds the secret %q:\n%s", sec, s.Source)
		}
	}
	if !strings.Contains(string(s.Source), "postgres://bench:xxxxx@db:5432/bench") {
		t.Fatalf("the redacted study no longer reads as the study:\n%s", s.Source)
	}
	if s.Targets[0].URL != "postgres://bench:"+pw+"@db:5432/bench?sslmode=require" {
		t.Fatalf("the target URL to connect with lost its password: %s", s.Targets[0].URL)
	}
}

// A one-letter password is redacted in its URL, not in every word of the
// stored study: on main, the password "a" turned "name" into "nxxxxxme".
func TestStoredSourceRedactsAShortPasswordInItsPlace(t *testing.T) {
	doc := "[[target]]\nname = \"pg\"\nurl = \"postgres://bench:a@db:5432/bench\"\n[[workload]]\nkind = \"tpcb\"\n"
	s, err := Parse("s.toml", []byte(doc), cat)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(doc, "bench:a@", "bench:xxxxx@", 1)
	if string(s.Source) != want {
		t.Errorf("stored study text:\n%s\nwant:\n%s", s.Source, want)
	}
}
