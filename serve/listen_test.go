package serve_test

import (
	"errors"
	"testing"

	"github.com/fencedstore/fence/serve"
)

// Only loopback is served unless remote access is allowed, and then with
// a warning.
func TestCheckAddr(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:8080", "localhost:80", "[::1]:8080", "127.0.0.2:1"} {
		if w, err := serve.CheckAddr(addr, false); err != nil || w != "" {
			t.Errorf("%s: %q, %v; want loopback accepted", addr, w, err)
		}
	}
	for _, addr := range []string{":8080", "0.0.0.0:8080", "10.1.2.3:80", "[::]:80", "example.com:80"} {
		if _, err := serve.CheckAddr(addr, false); !errors.Is(err, serve.ErrRemote) {
			t.Errorf("%s: %v, want ErrRemote", addr, err)
		}
		if w, err := serve.CheckAddr(addr, true); err != nil || w == "" {
			t.Errorf("%s with remote allowed: %q, %v; want a warning", addr, w, err)
		}
	}
	if _, err := serve.CheckAddr("nonsense", true); err == nil {
		t.Error("an address without a port was accepted")
	}
}
