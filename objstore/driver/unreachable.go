package driver

import "fmt"

// ErrUnreachable: no request reached the store, and sending it again
// cannot change that: nothing listens on the endpoint's port (connection
// refused), its host name does not resolve, it speaks plain HTTP to an
// https:// endpoint or TLS to an http:// one, or its certificate is not
// trusted. Matches ErrPermanent: neither the Store nor the backends' SDKs
// retry it. Its *UnreachableError names the endpoint.
var ErrUnreachable error = permanent("objstore: store unreachable")

// UnreachableError reports a request that could not reach the store at
// Endpoint, and why.
type UnreachableError struct {
	Endpoint string // the store's URL, without credentials
	Reason   string // what to fix, in words
	Err      error  // the transport's error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach the store at %s: %s: %v", e.Endpoint, e.Reason, e.Err)
}

// Is makes errors.Is(err, ErrUnreachable) and errors.Is(err,
// ErrPermanent) true.
func (e *UnreachableError) Is(target error) bool {
	return target == ErrUnreachable || target == ErrPermanent
}
func (e *UnreachableError) Unwrap() error { return e.Err }
