package driver

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
)

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

// Unreachable wraps err in an *UnreachableError naming endpoint when err
// is a failure that no retry can fix (see ErrUnreachable), and returns
// nil otherwise.
func Unreachable(endpoint string, err error) error {
	reason := unreachableReason(err)
	if reason == "" {
		return nil
	}
	var ue *UnreachableError
	if errors.As(err, &ue) {
		return nil // already said
	}
	return &UnreachableError{Endpoint: endpoint, Reason: reason, Err: err}
}

// IsUnreachable reports whether err is a failure that no retry can fix
// (see ErrUnreachable), for the backends' SDK retry policies.
func IsUnreachable(err error) bool { return unreachableReason(err) != "" }

// plainToTLS are the answers of servers that speak TLS to a request sent
// in plain HTTP: Go's net/http, and nginx.
var plainToTLS = []string{"Client sent an HTTP request to an HTTPS server", "The plain HTTP request was sent to HTTPS port"}

// unreachableReason says why err cannot reach the store, or "" when it
// may be a passing failure.
func unreachableReason(err error) string {
	if err == nil {
		return ""
	}
	var (
		dns  *net.DNSError
		rec  tls.RecordHeaderError
		cert *tls.CertificateVerificationError
	)
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused (nothing is listening on that port: is the server running, and is the port right?)"
	case errors.As(err, &dns) && dns.IsNotFound:
		return fmt.Sprintf("unknown host %q", dns.Name)
	case errors.Is(err, http.ErrSchemeMismatch):
		return "the server answered in plain HTTP (use an http:// endpoint)"
	case errors.As(err, &rec):
		return "the server's answer is not TLS (use an http:// endpoint)"
	case errors.As(err, &cert):
		return "its TLS certificate is not trusted"
	}
	msg := err.Error()
	for _, s := range plainToTLS {
		if strings.Contains(msg, s) {
			return "the server expects TLS (use an https:// endpoint)"
		}
	}
	return ""
}
