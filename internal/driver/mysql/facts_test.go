package mysql

import (
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// InnoDB's buffer pool is MySQL's and MariaDB's cache; paths and ports are
// installation-only.
func TestEngineFacts(t *testing.T) {
	for _, engine := range []string{"mysql", "mariadb"} {
		db := result.Database{Engine: engine, Settings: map[string]string{"innodb_buffer_pool_size": "134217728", "datadir": "/var/lib/mysql/"}}
		if b, name := db.Cache(); b != 128<<20 || name != "innodb_buffer_pool_size" {
			t.Errorf("%s: cache %d %q", engine, b, name)
		}
		if !db.InstallationOnly("datadir") || db.InstallationOnly("innodb_buffer_pool_size") {
			t.Errorf("%s: installation-only settings wrong", engine)
		}
	}
}
