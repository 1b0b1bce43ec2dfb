//go:build !unix

package bench

import "time"

// processCPU returns 0: only Unix systems have getrusage, so the CPU
// columns stay empty elsewhere.
func processCPU() time.Duration { return 0 }
