package main

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/fencedstore/fence/config"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
)

// Exit codes; scripts rely on them. A command stopped by SIGINT or
// SIGTERM exits 128 plus the signal's number (130, 143), and exec also by
// SIGHUP or SIGQUIT (129, 131): see interrupted.
const (
	exitOK     = 0
	exitError  = 1
	exitUsage  = 2 // bad flags or arguments
	exitFenced = 3 // the store rejected a write's token
	exitHeld   = 4 // another holder's lease is live
	exitLost   = 5 // the lease was lost: it expired, was released, broken or taken over
)

// exitError carries the exit code a command's failure maps to. Every error
// a command returns is one; anything else comes from cobra's own argument
// and flag parsing and is a usage error.
type exitErr struct {
	code int
	err  error
}

func (e *exitErr) Error() string { return e.err.Error() }
func (e *exitErr) Unwrap() error { return e.err }

// usage reports a bad argument (exit 2).
func usage(format string, args ...any) error {
	return &exitErr{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// fail classifies err by what the library says it is.
func fail(err error) error {
	if err == nil {
		return nil
	}
	var ee *exitErr
	if errors.As(err, &ee) {
		return err
	}
	code := exitError
	switch {
	case errors.Is(err, objstore.ErrFenced):
		code = exitFenced
	case errors.Is(err, coord.ErrLeaseHeld):
		code = exitHeld
	case errors.Is(err, coord.ErrLeaseLost):
		code = exitLost
	case errors.Is(err, objstore.ErrInvalid), errors.Is(err, coord.ErrInvalid), errors.Is(err, config.ErrBadURL):
		code = exitUsage
	}
	return &exitErr{code: code, err: err}
}

// exitCode returns the process exit code for err.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitErr
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitUsage
}

// parseToken parses a fencing token given by source ("--token" or
// "FENCE_TOKEN"). A token that is not a number, is 0 or is above
// objstore.MaxToken is a usage error.
func parseToken(s, source string) (uint64, error) {
	t, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return 0, usage("%s %q: out of range (the maximum token is %d)", source, s, uint64(objstore.MaxToken))
		}
		return 0, usage("%s %q: not a token (a decimal number from 1 to %d)", source, s, uint64(objstore.MaxToken))
	}
	if err := objstore.ValidateToken(t); err != nil {
		var ie *objstore.InvalidError
		if errors.As(err, &ie) {
			return 0, usage("%s %q: %s", source, s, ie.Reason)
		}
		return 0, usage("%s %q: %v", source, s, err)
	}
	return t, nil
}
