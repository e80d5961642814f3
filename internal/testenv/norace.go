//go:build !race

package testenv

// RaceDetector reports whether the tests were built with -race (race.go).
const RaceDetector = false
