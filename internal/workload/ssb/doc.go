// Package ssb is the foundation of fairbench's Star Schema Benchmark workload
// (issue 25): a deterministic, parallel generator of SSB's five tables
// (gen.go), their CREATE TABLE statements and the flattened lineorder_flat
// per dialect (schema.go), and the 13 queries Q1.1…Q4.3 in their join and
// flattened forms (queries.go). It is not registered as a workload yet: the
// loader and the runner that use it come in a second step, as they did for
// package ycsb.
//
// The facts — row counts, value domains and the relations between columns —
// come from ssb-dbgen (github.com/vadimtk/ssb-dbgen: dss.h, shared.h,
// build.c, driver.c, bm_utils.c and dists.dss, the SSBM branches), and the
// queries from the ClickHouse documentation's SSB page with qgen's default
// substitutions. No code is taken from dbgen: its random streams are not
// reproduced, so the rows differ from dbgen's, but not their counts, domains
// or relations. Where this package deliberately differs from dbgen, the
// comment at the place says so (see also the Differences list in gen.go).
package ssb
