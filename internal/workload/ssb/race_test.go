//go:build race

package ssb_test

// raceDetector: modernc's SQLite runs SSB's queries about ten times slower
// under the race detector; the SQLite-only tests leave that run to the one
// without it (see skipSQLiteUnderRace).
const raceDetector = true
