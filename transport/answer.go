package transport

import (
	"errors"
	"net"
	"sync"
	"syscall"
	"time"
)

// answerFirst keeps a store's answer from being lost to the reset that
// follows it.
//
// A store may answer a request before it has read the body: a PutObject
// whose If-None-Match or If-Match fails, or whose signature is wrong, is
// refused with 412 or 403 from its headers. It then closes the
// connection with the rest of the body unread, and the peer's kernel
// resets it. The client, still sending the body, gets "connection reset
// by peer" from its write, while the answer it was sent has arrived or is
// arriving on the read side. Go's HTTP transport returns whichever of
// the two it sees first, so the caller (and the SDK, which retries the
// whole body) can get a network error where the store said 412. The
// "Expect: 100-continue" handshake avoids this when the store checks the
// headers before it answers 100 Continue (MinIO does), but not when it
// answers 100 Continue first and refuses while the body is coming in
// (versitygw does).
//
// So a write that fails because the peer reset or closed the connection
// does not report the failure at once: it waits until the read side has
// failed too (the answer, if there was one, has then been read and handed
// to the transport, which returns it) or the transport has closed the
// connection (after it returned an answer), and at most limit. Nothing
// else changes: a write error is still returned, and a read error too.
type answerFirst struct {
	net.Conn
	limit      time.Duration
	readFailed chan struct{}
	closed     chan struct{}
	readOnce   sync.Once
	closeOnce  sync.Once
}

func newAnswerFirst(c net.Conn, limit time.Duration) *answerFirst {
	return &answerFirst{Conn: c, limit: limit, readFailed: make(chan struct{}), closed: make(chan struct{})}
}

func (c *answerFirst) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if err != nil {
		c.readOnce.Do(func() { close(c.readFailed) })
	}
	return n, err
}

func (c *answerFirst) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if err != nil && peerGone(err) {
		t := time.NewTimer(c.limit)
		defer t.Stop()
		select {
		case <-c.readFailed:
		case <-c.closed:
		case <-t.C:
		}
	}
	return n, err
}

func (c *answerFirst) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

// peerGone reports whether a write failed because the peer reset or
// closed the connection.
func peerGone(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
