//go:build aix || darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris

package main

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// signalName returns the signal's name as kill(1) and shells write it:
// SIGTERM, SIGUSR1.
func signalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return "signal " + s.String()
}
