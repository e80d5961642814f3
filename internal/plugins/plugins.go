// Package plugins registers every built-in plug-in, drivers and workloads
// alike: the one list a new one is added to. Commands, and the tests that
// need every engine or kind, import it for its side effects; a test of one
// workload imports that workload and the drivers it runs on instead.
package plugins

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
