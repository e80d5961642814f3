// Package ownership holds, for key-value stores, which have no tables to
// mark, the numbered key ranges (keys.go) that the kv and ycsb workloads and
// the tool cells check for keys fairbench did not write, and delete. (On SQL
// targets fairbench's data-set markers are internal/workload/sqlwork's.)
package ownership
