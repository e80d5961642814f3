package runner

// The closed loop: a client starts its next operation as soon as its
// previous one ended, as pgbench does without -R; each latency counts from
// the operation's own start.

import "time"

type closedLoop struct{}

func (closedLoop) next(*worker) (time.Time, pace) { return time.Now(), paceRun }
