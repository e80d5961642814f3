package ycsb

import "github.com/fairbench/fairbench/internal/result"

// failedNotCounted is the deviation of a run in which operations failed:
// YCSB counts every operation in [OVERALL] Throughput, failed ones too
// (ClientThread.java 120–126: the loop counts an operation whatever
// doTransaction returned), fairbench only the ones that succeeded.
const failedNotCounted = "throughput counts succeeded operations only: YCSB's [OVERALL] Throughput counts the failed ones too, so YCSB would print a higher figure for this run"

// Deviations implements workload.Deviator.
func (in *instance) Deviations(s *result.Summary) []string {
	if s.Failed > 0 {
		return []string{failedNotCounted}
	}
	return nil
}
