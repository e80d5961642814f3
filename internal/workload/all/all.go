// Package all registers every built-in workload and driver: the one place a new
// one is added. Commands import it for its side effects.
package all

import (
	_ "github.com/fairbench/fairbench/internal/driver/bbolt"        // bbolt: targets (embedded KV, B+tree)
	_ "github.com/fairbench/fairbench/internal/driver/clickhouse"   // clickhouse:// targets (ClickHouse)
	_ "github.com/fairbench/fairbench/internal/driver/mongodb"      // mongodb:// targets (MongoDB, FerretDB)
	_ "github.com/fairbench/fairbench/internal/driver/mysql"        // mysql:// targets (MySQL, MariaDB)
	_ "github.com/fairbench/fairbench/internal/driver/opensearch"   // opensearch://, elasticsearch:// targets
	_ "github.com/fairbench/fairbench/internal/driver/pebble"       // pebble: targets (embedded KV, LSM tree)
	_ "github.com/fairbench/fairbench/internal/driver/postgres"     // postgres:// targets
	_ "github.com/fairbench/fairbench/internal/driver/redis"        // redis://, valkey:// targets (Redis, Valkey)
	_ "github.com/fairbench/fairbench/internal/driver/sqlite"       // sqlite: targets (embedded default)
	_ "github.com/fairbench/fairbench/internal/workload/bulkindex"  // OSB-style bulk indexing and searches
	_ "github.com/fairbench/fairbench/internal/workload/clickbench" // ClickBench
	_ "github.com/fairbench/fairbench/internal/workload/kv"         // memtier-compatible key-value
	_ "github.com/fairbench/fairbench/internal/workload/oltp"       // sysbench-compatible OLTP
	_ "github.com/fairbench/fairbench/internal/workload/ssb"        // Star Schema Benchmark
	_ "github.com/fairbench/fairbench/internal/workload/tpcb"       // pgbench-compatible TPC-B
	_ "github.com/fairbench/fairbench/internal/workload/tpcc"       // HammerDB-comparable TPC-C
	_ "github.com/fairbench/fairbench/internal/workload/ycsb"       // YCSB core workloads A–F
)
