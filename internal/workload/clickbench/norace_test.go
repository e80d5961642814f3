//go:build !race

package clickbench_test

const raceDetector = false
