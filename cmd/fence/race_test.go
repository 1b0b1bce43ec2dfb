//go:build race

package main

// raceEnabled makes TestMain build the binary with the race detector when
// the tests run with it.
const raceEnabled = true
