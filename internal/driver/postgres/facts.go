package postgres

import (
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/result"
)

// What reading a recorded PostgreSQL environment needs to know of the engine.
func init() {
	result.RegisterEngine(result.EngineFacts{
		Engine:               engineName,
		Cache:                sharedBuffers,
		CacheSetting:         "shared_buffers",
		InstallationSettings: installationSettings,
	})
}

const engineName = "postgresql"

// installationSettings identify an installation rather than configure it:
// they always differ between two servers and say nothing about performance.
var installationSettings = []string{
	"data_directory", "config_file", "hba_file", "ident_file",
	"external_pid_file", "listen_addresses", "port", "cluster_name",
	"unix_socket_directories", "ssl_cert_file", "ssl_key_file", "ssl_ca_file",
	"log_directory", "log_filename", "application_name", "TimeZone",
	"log_timezone", "transaction_deferrable", "transaction_isolation", "transaction_read_only",
}

// sharedBuffers is PostgreSQL's cache: shared_buffers, as pg_settings
// reports it.
func sharedBuffers(d result.Database) (int64, string) {
	b := settingBytes(d.Settings["shared_buffers"])
	if b <= 0 {
		return 0, ""
	}
	return int64(b), "shared_buffers"
}

// settingBytes reads a PostgreSQL setting as pg_settings gives it, the value
// followed by its unit ("16384 8kB", "4096 MB", "128MB"), as bytes; 0 when it
// is not a size.
func settingBytes(s string) float64 {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	n, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0
	}
	unit := strings.TrimSpace(s[i:])
	mult := 1.0
	j := 0
	for j < len(unit) && unit[j] >= '0' && unit[j] <= '9' {
		j++
	}
	if j > 0 { // "8kB": a block count in units of 8 kB
		m, _ := strconv.ParseFloat(unit[:j], 64)
		mult, unit = m, unit[j:]
	}
	switch unit {
	case "B", "":
		if unit == "" {
			return 0 // a bare number is not a size
		}
	case "kB":
		mult *= 1 << 10
	case "MB":
		mult *= 1 << 20
	case "GB":
		mult *= 1 << 30
	case "TB":
		mult *= 1 << 40
	default:
		return 0
	}
	return n * mult
}
