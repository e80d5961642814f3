package sqlite

import (
	"strings"
	"testing"
)

// ParseURL takes any string without panicking; what it accepts names a file
// without a NUL byte and only pragma values SQLite accepts.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"sqlite:bench.db", "sqlite:///tmp/bench.db?journal_mode=WAL&synchronous=NORMAL",
		"sqlite3://rel/path.db?cache_size=-64000&busy_timeout=10000", "sqlite:b.db?journal_mode=NOPE",
		"sqlite:b.db\x00x", "sqlite:b.db?page_size=4096&foreign_keys=on",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		cfg, err := ParseURL(raw)
		if err != nil {
			return
		}
		if strings.IndexByte(cfg.Path, 0) >= 0 {
			t.Fatalf("ParseURL(%q) accepted a path with a NUL byte", raw)
		}
		for _, p := range cfg.Pragmas {
			if d, ok := pragmas[p[0]]; !ok || !d.check(p[1]) {
				t.Fatalf("ParseURL(%q) accepted pragma %s=%q", raw, p[0], p[1])
			}
		}
	})
}
