package s3test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencedstore/fence/objstore/driver"
)

// EarlyRefusalSize is the body EarlyRefusal sends: above the 2 MiB from
// which the AWS SDK asks for 100 Continue, below the default multipart
// threshold, so it goes as one PutObject.
const EarlyRefusalSize = 3 << 20

// EarlyRefusal tests that a backend learns a refusal the store gives
// from a PutObject's headers alone (a failed If-None-Match or If-Match)
// instead of a network error. MinIO, like most stores, answers such a
// request at once with 412 and "Connection: close", without reading the
// body; a client that is still sending the body can then find the
// connection reset before it reads the answer, and its SDK retries the
// whole body and reports "connection reset by peer". It is a race that
// a loaded machine loses a few times in a hundred against MinIO. The
// cure is the client's side of "Expect: 100-continue": send the
// headers, wait for the answer, and send the body only on 100 Continue.
//
// The server here makes the race deterministic: after the headers it
// waits a moment, and if any byte of the body has come by then it
// resets the connection without an answer (the outcome of losing the
// race); otherwise it answers 412 and closes. open returns a backend for
// endpoint whose puts of EarlyRefusalSize bytes go as one PutObject.
func EarlyRefusal(t *testing.T, open func(t *testing.T, endpoint string) driver.Backend) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		early int // requests whose body came before the answer
		asked int // requests that asked for 100 Continue
		total int
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go refuseEarly(c, func(sentEarly, expect bool) {
				mu.Lock()
				defer mu.Unlock()
				total++
				if sentEarly {
					early++
				}
				if expect {
					asked++
				}
			})
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })

	b := open(t, "http://"+ln.Addr().String())
	body := bytes.Repeat([]byte("f"), EarlyRefusalSize)
	for _, mode := range []driver.PutMode{driver.Create{}, driver.Update{ETag: `"0123456789abcdef0123456789abcdef"`}} {
		t.Run(fmt.Sprintf("%T", mode), func(t *testing.T) {
			_, err := b.Put(context.WithoutCancel(t.Context()), "k", bytes.NewReader(body), int64(len(body)), driver.PutOptions{Mode: mode})
			if !errors.Is(err, driver.ErrPreconditionFailed) {
				t.Fatalf("put refused from its headers = %v; want ErrPreconditionFailed", err)
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if early > 0 || total != 2 {
		t.Fatalf("%d of %d requests sent their body before the store answered (%d asked for 100 Continue); want 0 of 2", early, total, asked)
	}
}

// refuseEarly serves one request on c as EarlyRefusal describes. Before
// it answers it records whether body bytes came before the answer, and
// whether the request carried "Expect: 100-continue".
func refuseEarly(c net.Conn, record func(sentEarly, expect bool)) {
	defer c.Close()
	br := bufio.NewReader(c)
	tp := textproto.NewReader(br)
	if _, err := tp.ReadLine(); err != nil {
		return
	}
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		return
	}
	expect := strings.EqualFold(h.Get("Expect"), "100-continue")
	c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if _, err := br.Peek(1); err == nil {
		record(true, expect)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0) // close with a reset, as a lost race ends
		}
		return
	}
	record(false, expect)
	const reply = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message><Key>k</Key><BucketName>bucket</BucketName><Resource>/bucket/k</Resource><RequestId>1</RequestId><HostId>1</HostId></Error>`
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: application/xml\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		http.StatusPreconditionFailed, http.StatusText(http.StatusPreconditionFailed), len(reply), reply)
}
