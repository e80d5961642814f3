package testenv

import "time"

// StopDeadline is how long a test waits for something fairbench must do
// promptly: stop after Ctrl-C, give up on a hung server, refuse an input.
// fairbench does those within a second on a quiet machine, but the suite must
// pass on a busy one (a CPU hog on every core slows a process start alone to
// seconds), so tests never assert the second itself. A test using this
// deadline makes the slow path, the one a bug would take, last at least
// three times as long (a 60 s run, a server that never answers), so a
// prompt stop and a missing one still fall on opposite sides of it.
const StopDeadline = 20 * time.Second
