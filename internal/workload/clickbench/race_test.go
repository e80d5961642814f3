//go:build race

package clickbench_test

const raceDetector = true
