package postgres

import (
	"strings"
	"testing"
)

func TestOneLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{
			"failed to connect to `user=x database=y`:\n\t127.0.0.1:1 (127.0.0.1): dial error: refused\n\t127.0.0.1:1 (127.0.0.1): dial error: refused",
			"failed to connect to `user=x database=y`: 127.0.0.1:1 (127.0.0.1): dial error: refused",
		},
		{
			// Two addresses (IPv6 and IPv4) each tried twice (TLS, then plain).
			"failed to connect to `user=x database=y`:\n\t[::1]:5432 (localhost): server error: FATAL: no pg_hba.conf entry\n" +
				"\t127.0.0.1:5432 (localhost): server error: FATAL: no pg_hba.conf entry\n" +
				"\t[::1]:5432 (localhost): server error: FATAL: no pg_hba.conf entry\n" +
				"\t127.0.0.1:5432 (localhost): server error: FATAL: no pg_hba.conf entry\n",
			"failed to connect to `user=x database=y`: [::1]:5432 (localhost): server error: FATAL: no pg_hba.conf entry: " +
				"127.0.0.1:5432 (localhost): server error: FATAL: no pg_hba.conf entry",
		},
		{"already one line", "already one line"},
		{"trailing colon:\n\n\n  reason  \n", "trailing colon: reason"},
		{"", ""},
	} {
		got := oneLine(tc.in)
		if got != tc.want {
			t.Errorf("oneLine(%q) =\n  %q\nwant\n  %q", tc.in, got, tc.want)
		}
		if strings.ContainsAny(got, "\n\r") {
			t.Errorf("oneLine(%q) = %q still spans lines", tc.in, got)
		}
	}
}
