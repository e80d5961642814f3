package mysql

import "testing"

// ParseURL takes any string without panicking, and what it accepts builds a
// driver configuration.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"mysql://bench:pw@127.0.0.1:3306/bench",
		"mysql://bench@localhost/bench?tls=true",
		"mariadb://u:p@[::1]:3307/db?tls=skip-verify&charset=utf8mb4",
		"mysql://u:p@h/db?tls_ca=/etc/ca.pem&tls_min=1.2",
		"mysql://u@/db?socket=/run/mysqld/mysqld.sock",
		"mysql://u:p@h:99999/db",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		cfg, err := ParseURL(raw)
		if err != nil {
			return
		}
		_, _ = cfg.driverConfig(false)
		_, _ = cfg.driverConfig(true)
	})
}
