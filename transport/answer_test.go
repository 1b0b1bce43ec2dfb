package transport

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// resetAfterAnswer is a connection to a store that refuses a request
// from its headers: it takes the first write (the headers and the start
// of the body), fails the next with "connection reset by peer", and
// only then, a little later, yields the answer on the read side, as a
// kernel does that read the answer before the reset but whose reader
// has not run yet.
type resetAfterAnswer struct {
	answer     []byte
	reset      chan struct{}
	resetOnce  sync.Once
	mu         sync.Mutex
	writes     int
	answered   bool
	closed     chan struct{}
	closedOnce sync.Once
}

func newResetAfterAnswer(answer string) *resetAfterAnswer {
	return &resetAfterAnswer{answer: []byte(answer), reset: make(chan struct{}), closed: make(chan struct{})}
}

func (c *resetAfterAnswer) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.writes++
	first := c.writes == 1
	c.mu.Unlock()
	if first {
		return len(p), nil
	}
	c.resetOnce.Do(func() { close(c.reset) })
	return 0, &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.ECONNRESET)}
}

func (c *resetAfterAnswer) Read(p []byte) (int, error) {
	select {
	case <-c.reset:
	case <-c.closed:
		return 0, net.ErrClosed
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.answered {
		c.answered = true
		time.Sleep(50 * time.Millisecond)
		return copy(p, c.answer), nil // the transport reads with a 4 KiB buffer
	}
	return 0, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
}

func (c *resetAfterAnswer) Close() error {
	c.closedOnce.Do(func() { close(c.closed) })
	return nil
}
func (c *resetAfterAnswer) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *resetAfterAnswer) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c *resetAfterAnswer) SetDeadline(time.Time) error      { return nil }
func (c *resetAfterAnswer) SetReadDeadline(time.Time) error  { return nil }
func (c *resetAfterAnswer) SetWriteDeadline(time.Time) error { return nil }

// TestAnswerBeforeReset: a store that answers 412 from a put's headers
// and resets the connection while the body is being sent gives the
// caller its 412, not the reset. It fails without answerFirst's wait.
func TestAnswerBeforeReset(t *testing.T) {
	const body = "<Error><Code>PreconditionFailed</Code></Error>"
	answer := "HTTP/1.1 412 Precondition Failed\r\nContent-Type: application/xml\r\nConnection: close\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body
	to := Timeouts{Connect: time.Second, FirstByte: 5 * time.Second, Idle: 5 * time.Second}
	tr := &http.Transport{}
	to.Apply(tr)
	for i := range 10 {
		conn := newResetAfterAnswer(answer)
		tr.DialContext = func(context.Context, string, string) (net.Conn, error) {
			return to.wrap(conn), nil
		}
		data := bytes.Repeat([]byte("f"), 1<<20)
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPut, "http://store.test/bucket/k", bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("If-None-Match", "*")
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatalf("put %d: %v; want the store's 412", i, err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusPreconditionFailed || string(got) != body {
			t.Fatalf("put %d: %d %q; want 412 %q", i, resp.StatusCode, got, body)
		}
	}
}
