package mysql

import (
	"strconv"

	"github.com/fairbench/fairbench/internal/result"
)

// What reading a recorded MySQL or MariaDB environment needs to know of the
// engine.
func init() {
	for _, engine := range []string{"mysql", "mariadb"} {
		result.RegisterEngine(result.EngineFacts{Engine: engine, Cache: bufferPool, CacheSetting: bufferPoolSetting, InstallationSettings: installationSettings})
	}
}

// installationSettings identify an installation (its paths, port, identity)
// rather than configure it.
var installationSettings = []string{
	"basedir", "datadir", "tmpdir", "socket", "port", "pid_file", "hostname", "server_id", "server_uuid",
	"log_error", "general_log_file", "slow_query_log_file", "plugin_dir", "character_sets_dir", "lc_messages_dir",
	"ssl_cert", "ssl_key", "ssl_ca", "bind_address", "report_host", "report_port",
}

const bufferPoolSetting = "innodb_buffer_pool_size"

// bufferPool is InnoDB's cache, innodb_buffer_pool_size (in bytes).
func bufferPool(d result.Database) (int64, string) {
	const name = bufferPoolSetting
	b, err := strconv.ParseInt(d.Settings[name], 10, 64)
	if err != nil || b <= 0 {
		return 0, ""
	}
	return b, name
}
