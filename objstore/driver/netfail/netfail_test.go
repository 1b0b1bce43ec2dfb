package netfail_test

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/netfail"
)

// closedPort returns the address of a port that nothing listens on: one
// just listened on and closed.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestUnreachable: the transport errors no retry can fix, as net/http
// reports them, are ErrUnreachable (and ErrPermanent) naming the
// endpoint and the cause; a reset connection and a server's 500 are not.
func TestUnreachable(t *testing.T) {
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	defer tlsSrv.Close()
	get := func(url string) error {
		resp, err := http.Get(url)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 512)
		n, _ := resp.Body.Read(buf)
		b.Write(buf[:n])
		return fmt.Errorf("status %d: %s", resp.StatusCode, b.String())
	}
	for _, tc := range []struct {
		name, want string
		err        error
	}{
		{"connection refused", "connection refused", get("http://" + closedPort(t) + "/")},
		{"unknown host", `unknown host "nosuch.invalid"`, fmt.Errorf("sdk: %w", &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "nosuch.invalid", IsNotFound: true}})},
		{"https to a plain server", "use an http:// endpoint", get(strings.Replace(plain.URL, "http://", "https://", 1) + "/")},
		{"http to a TLS server", "use an https:// endpoint", get(strings.Replace(tlsSrv.URL, "https://", "http://", 1) + "/")},
		{"untrusted certificate", "not trusted", get(tlsSrv.URL + "/")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := netfail.Unreachable("http://store.example:9000", tc.err)
			if err == nil {
				t.Fatalf("Unreachable(%v) = nil", tc.err)
			}
			if !errors.Is(err, driver.ErrUnreachable) || !errors.Is(err, driver.ErrPermanent) || !netfail.IsUnreachable(tc.err) {
				t.Errorf("%v: not ErrUnreachable and ErrPermanent", err)
			}
			if msg := err.Error(); !strings.Contains(msg, "http://store.example:9000") || !strings.Contains(msg, tc.want) {
				t.Errorf("message %q: want the endpoint and %q", msg, tc.want)
			}
		})
	}
	for _, err := range []error{
		errors.New("read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer"),
		errors.New("status 500: internal error"),
		&net.DNSError{Err: "server misbehaving", Name: "x", IsTemporary: true},
		nil,
	} {
		if got := netfail.Unreachable("e", err); got != nil {
			t.Errorf("Unreachable(%v) = %v, want nil: a retry may succeed", err, got)
		}
	}
}
