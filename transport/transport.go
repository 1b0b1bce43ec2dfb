// Package transport bounds each round trip that fence's S3 and DynamoDB
// clients make, so that a store that stops answering fails a request
// instead of hanging it, without putting a deadline on a whole operation.
//
// A fence operation has no deadline of its own: a Put of a slow producer,
// or of many gigabytes, runs as long as the caller's context allows. What
// is bounded is each request: connecting, waiting for the first byte of
// the answer, and any pause in the transfer after that.
package transport

import (
	"context"
	"net"
	"net/http"
	"time"
)

// Timeouts bound one request. A zero field takes its default.
type Timeouts struct {
	// Connect bounds the TCP connection and the TLS handshake. Default
	// 10s.
	Connect time.Duration
	// FirstByte bounds the wait for the answer's headers once the
	// request has been sent. Default 60s.
	FirstByte time.Duration
	// Idle bounds any pause in reading or writing a connection during a
	// request: a transfer that makes no progress for Idle fails. Default
	// 60s; at least FirstByte.
	Idle time.Duration
}

// Defaults used for zero fields.
const (
	DefaultConnect   = 10 * time.Second
	DefaultFirstByte = 60 * time.Second
	DefaultIdle      = 60 * time.Second
)

// WithDefaults returns t with zero fields set to their defaults, and Idle
// raised to FirstByte (an idle limit below it would cut the wait for the
// first byte short).
func (t Timeouts) WithDefaults() Timeouts {
	if t.Connect <= 0 {
		t.Connect = DefaultConnect
	}
	if t.FirstByte <= 0 {
		t.FirstByte = DefaultFirstByte
	}
	if t.Idle <= 0 {
		t.Idle = DefaultIdle
	}
	t.Idle = max(t.Idle, t.FirstByte)
	return t
}

// Client returns an HTTP client whose requests are bounded by t (after
// WithDefaults). It has no overall timeout: a request lasts as long as
// its context allows while it makes progress.
func (t Timeouts) Client() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Apply(tr)
	return &http.Client{Transport: tr}
}

// Apply bounds the requests of tr by t (after WithDefaults), for clients
// that build their own transport (the AWS SDK's BuildableClient, which
// also adds a custom CA bundle to it).
func (t Timeouts) Apply(tr *http.Transport) {
	t = t.WithDefaults()
	dialer := &net.Dialer{Timeout: t.Connect, KeepAlive: 30 * time.Second}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return t.wrap(c), nil
	}
	tr.TLSHandshakeTimeout = t.Connect
	tr.ResponseHeaderTimeout = t.FirstByte
	tr.ExpectContinueTimeout = time.Second
	tr.MaxIdleConnsPerHost = max(tr.MaxIdleConnsPerHost, 64)
}

// wrap bounds c's pauses by t.Idle and makes its writes wait for the
// answer when the peer resets the connection (answerFirst).
func (t Timeouts) wrap(c net.Conn) net.Conn {
	return newAnswerFirst(&idleConn{Conn: c, idle: t.Idle}, t.Idle)
}

// idleConn fails a connection that makes no progress for idle: each Read
// pushes the read deadline idle into the future, and each Write pushes
// both, since the HTTP transport reads (waiting for the answer) while it
// still writes the request's body, and a long upload is progress.
type idleConn struct {
	net.Conn
	idle time.Duration
}

func (c *idleConn) Read(p []byte) (int, error) {
	if err := c.Conn.SetReadDeadline(time.Now().Add(c.idle)); err != nil {
		return 0, err
	}
	return c.Conn.Read(p)
}

func (c *idleConn) Write(p []byte) (int, error) {
	if err := c.Conn.SetDeadline(time.Now().Add(c.idle)); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}
