package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// interrupted is the cause of a command's context when SIGINT or SIGTERM
// arrived: the command stops, and the process exits 128 plus the signal's
// number, as shells report a process killed by it.
type interrupted struct{ sig syscall.Signal }

func (e *interrupted) Error() string { return "interrupted by " + signalName(e.sig) }

// exitCode is 128 plus the signal's number: 130 for SIGINT, 143 for
// SIGTERM (129 for SIGHUP and 131 for SIGQUIT, which exec handles).
func (e *interrupted) exitCode() int { return 128 + int(e.sig) }

// signalContext returns a context that the first SIGINT or SIGTERM
// cancels with an *interrupted cause. The subscription is never
// stopped, so a later signal does not kill the process (Go's default)
// while the command cleans up; a command that subscribes to the same
// signals itself (signal.Notify on its own channel) gets them too.
func signalContext(parent context.Context) context.Context {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		for s := range sigs {
			if sig, ok := s.(syscall.Signal); ok {
				cancel(&interrupted{sig: sig}) // only the first one counts
			}
		}
	}()
	return ctx
}

// interruption returns the signal that cancelled ctx, or nil.
func interruption(ctx context.Context) *interrupted {
	var in *interrupted
	if errors.As(context.Cause(ctx), &in) {
		return in
	}
	return nil
}
