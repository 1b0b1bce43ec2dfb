//go:build !unix

package cost

import "time"

// CPUMeasured reports whether Usage.CPU is measured on this system.
const CPUMeasured = false

// processCPU returns 0: this system has no getrusage.
func processCPU() time.Duration { return 0 }
