// Package clickbench is the foundation of fairbench's ClickBench workload
// (issue 25): the hits table's schema per dialect (schema.go), ClickBench's
// 43 queries per dialect with the deviations each rewrite makes
// (queries.go), a deterministic, parallel generator of synthetic hits rows
// for tests and demos (gen.go), and readers of the real dataset's TSV, CSV
// and Parquet files, local or over HTTP (source.go). It is not registered as
// a workload: the query-set runner and the workload that use it come
// separately, as they did for package ssb.
//
// The facts come from ClickBench's repository (github.com/ClickHouse/ClickBench,
// commit faa7e582cf7f2be943d11e5340fdc8a274671f2f): the schema from
// clickhouse/create.sql, which postgresql/ and sqlite/ repeat with their own
// keys and engines, the queries from clickhouse/, postgresql/ and
// sqlite/queries.sql (copies in testdata/, which the tests compare the
// texts with), the file formats from lib/download-hits-* and the systems'
// load scripts. What ClickHouse 18.16 — the only ClickHouse the test
// machines can install — needs instead was measured on it
// (shared/peers/recipes/C-clickhouse.sh and its clickbench-create-18.16.sql)
// and is recorded per statement as a deviation. The synthetic rows are
// fairbench's own, not ClickBench's data: results on them are named
// synthetic and are not comparable with ClickBench's published results.
package clickbench
