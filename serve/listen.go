package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// ErrRemote: an address other than loopback was given without allowing
// remote access.
var ErrRemote = errors.New("serve: address is not loopback")

// CheckAddr reports whether addr (host:port) listens on loopback only.
// Any other address (an interface's address, a host name, or an empty
// host, which means every interface) fails with ErrRemote unless
// allowRemote; with allowRemote it returns a warning to print.
func CheckAddr(addr string, allowRemote bool) (warning string, err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("serve: address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
		return "", nil
	}
	if !allowRemote {
		return "", fmt.Errorf("%w: %q can be reached from other machines; pass --allow-remote to serve there (and set FENCE_SERVE_TOKEN)", ErrRemote, addr)
	}
	return fmt.Sprintf("WARNING: serving on %s, reachable from other machines: anyone who can reach it reads every domain's holders, tokens and key names unless FENCE_SERVE_TOKEN is set", addr), nil
}

// Listen opens addr for Serve.
func Listen(ctx context.Context, addr string) (net.Listener, error) {
	var lc net.ListenConfig
	return lc.Listen(ctx, "tcp", addr)
}

// Serve serves h on ln until ctx ends, then shuts down, giving requests
// in flight up to 5 seconds.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 2 * time.Minute, IdleTimeout: 2 * time.Minute}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
