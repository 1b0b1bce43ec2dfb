// Package netfail tells the network failures that no retry can fix
// (driver.ErrUnreachable: connection refused, an unknown host, plain HTTP
// against TLS or the reverse, an untrusted certificate) from those a
// retry may fix. Only the backends that speak to a network import it, so
// a program that opens only file:// or mem:// does not link net/http.
package netfail

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"

	"github.com/fencedstore/fence/objstore/driver"
)

// Unreachable wraps err in an *UnreachableError naming endpoint when err
// is a failure that no retry can fix (see driver.ErrUnreachable), and returns
// nil otherwise.
func Unreachable(endpoint string, err error) error {
	reason := unreachableReason(err)
	if reason == "" {
		return nil
	}
	var ue *driver.UnreachableError
	if errors.As(err, &ue) {
		return nil // already said
	}
	return &driver.UnreachableError{Endpoint: endpoint, Reason: reason, Err: err}
}

// IsUnreachable reports whether err is a failure that no retry can fix
// (see driver.ErrUnreachable), for the backends' SDK retry policies.
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
