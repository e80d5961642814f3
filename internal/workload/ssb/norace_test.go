//go:build !race

package ssb_test

const raceDetector = false
