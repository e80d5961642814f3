package runner

// Reconnect backoff: a client that lost its connection waits before each
// attempt to replace it, 10 ms doubling up to a second (or one progress
// interval, if shorter, so that a server back from an outage is seen within
// a tick), each wait drawn in its upper half so that clients which lost
// their connections together do not come back in step. The wait starts over
// once an operation succeeds on a replacement. Without it, a driver whose
// sessions are handles on a pool (ClickHouse, MongoDB, OpenSearch) "reconnects"
// without touching the network, and a dead server made 96 052 attempts in
// 4 s (docs/reliability.md).

import (
	"math/rand/v2"
	"time"
)

const (
	firstReconnectWait = 10 * time.Millisecond
	maxReconnectWait   = time.Second
)

// reconnectWait is the wait before the attempt after one that waited d
// (0: the first attempt, which does not wait): doubled, at most limit.
func reconnectWait(d, limit time.Duration) time.Duration {
	if d == 0 {
		return min(firstReconnectWait, limit)
	}
	return min(2*d, limit)
}

// jittered draws a wait in [d/2, d].
func jittered(d time.Duration) time.Duration {
	if d <= 1 {
		return d
	}
	return d - rand.N(d/2)
}
