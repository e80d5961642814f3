package postgres

import "testing"

func TestParsePoolerVersion(t *testing.T) {
	for _, tc := range []struct{ in, name, version string }{
		{"PgBouncer 1.18.0", "PgBouncer", "1.18.0"},
		{"PgBouncer 1.23.1 ", "PgBouncer", "1.23.1"},
		{"PgBouncer", "PgBouncer", ""},
		{"some pooler beta", "some pooler beta", ""},
	} {
		if n, v := parsePoolerVersion(tc.in); n != tc.name || v != tc.version {
			t.Errorf("%q: %q %q, want %q %q", tc.in, n, v, tc.name, tc.version)
		}
	}
}
