package runner

// Self-ending clients: a client whose workload returns
// workload.ErrClientDone has sent all its requests (memtier's --requests, a
// YCSB operationcount, a corpus indexed once) and stops; once every client
// has, the phase in progress ends (allDone). A run whose clients all end
// within the warm-up has nothing left to measure and fails. A workload whose
// shape's End is workload.EndSelf ends every run so: the End's bound
// replaces the cell's duration (setupCell), and it runs on several load
// generators only when its work is split among them (splittable); so does
// one of workload.EndPerClient, whose clients the loop stops after their
// count (schedule.go), on any number of generators.

import "fmt"

// clientDone counts a client that has sent all its requests.
func (m *executor) clientDone() {
	if m.doneClients.Add(1) == int64(len(m.workers)) {
		close(m.allDone)
	}
}

// endedInWarmUp fails a run whose every client finished its work during the
// warm-up.
func (m *executor) endedInWarmUp() error {
	select {
	case <-m.allDone:
		return fmt.Errorf("every client finished its work during the %s warm-up: nothing was left to measure; shorten the warm-up or give the workload more work", m.cell.Warmup)
	default:
		return nil
	}
}
