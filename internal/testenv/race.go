//go:build race

package testenv

// RaceDetector reports whether the tests were built with -race. The race
// pass (scripts/test.sh) skips, under -short, what the detector cannot look
// into and only slows down: arithmetic on one goroutine, SQL engines ten
// times slower, a peer tool's own run.
const RaceDetector = true
