package workload

import "github.com/fairbench/fairbench/internal/result"

// Deviator is an optional capability of an Instance whose figures follow a
// peer tool's definition except in cases only the measured run shows (YCSB
// counts failed operations in its throughput, fairbench does not; see
// docs/measurement.md): once a run is measured, Deviations names those the
// run hit, for its stored deviations. Each text is a fixed sentence, without
// the run's counts, so that the load generators of one cell name a deviation
// once in the merged run.
type Deviator interface {
	Deviations(s *result.Summary) []string
}
