//go:build race

package format

// raceEnabled: the race detector makes sync.Pool drop items at random.
const raceEnabled = true
