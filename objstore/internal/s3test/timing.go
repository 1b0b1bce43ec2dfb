package s3test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/transport"
)

// ShortTimeouts are per-request timeouts far below how long the slow
// producers of SlowProducer take.
var ShortTimeouts = transport.Timeouts{Connect: time.Second, FirstByte: 500 * time.Millisecond, Idle: 500 * time.Millisecond}

// slowReader yields chunks bytes of a pattern, pausing before each chunk.
type slowReader struct {
	chunks [][]byte
	pause  time.Duration
	cur    []byte
}

func newSlowReader(n, chunkSize int, pause time.Duration) *slowReader {
	data := bytes.Repeat([]byte("fence slow producer "), n/20+1)[:n]
	r := &slowReader{pause: pause}
	for len(data) > 0 {
		k := min(chunkSize, len(data))
		r.chunks, data = append(r.chunks, data[:k]), data[k:]
	}
	return r
}

func (r *slowReader) Read(p []byte) (int, error) {
	if len(r.cur) == 0 {
		if len(r.chunks) == 0 {
			return 0, io.EOF
		}
		time.Sleep(r.pause)
		r.cur, r.chunks = r.chunks[0], r.chunks[1:]
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

// SlowProducer checks that a Put whose producer takes several times the
// per-request timeouts (ShortTimeouts) succeeds, for a small body and
// for one that takes the multipart path, through a Store called with a
// context that has no deadline. newBackend returns a backend over a fresh
// bucket with ShortTimeouts and parts of MinPartSize.
func SlowProducer(t *testing.T, newBackend func(t *testing.T) driver.Backend) {
	store := objstore.New(newBackend(t), nil)
	ctx := context.WithoutCancel(t.Context()) // no deadline
	for _, tc := range []struct {
		name        string
		size, chunk int
	}{
		{"Small", 3000, 1000},
		{"Multipart", 2*MinPartSize + 1000, MinPartSize/2 + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := newSlowReader(tc.size, tc.chunk, 3*ShortTimeouts.Idle)
			want := sha256.Sum256(bytes.Repeat([]byte("fence slow producer "), tc.size/20+1)[:tc.size])
			start := time.Now()
			if _, err := store.Put(ctx, "slow", tc.name, 1, body, -1); err != nil {
				t.Fatalf("Put of a producer slower than every per-request timeout: %v", err)
			}
			if took := time.Since(start); took < 2*ShortTimeouts.Idle {
				t.Fatalf("the producer took %s, not longer than the timeouts it should outlast", took)
			}
			data, _, err := store.ReadAll(ctx, "slow", tc.name)
			if err != nil || sha256.Sum256(data) != want {
				t.Fatalf("read back: %d bytes, %v; want the %d bytes put", len(data), err, tc.size)
			}
		})
	}
}

// Unresponsive checks that a backend whose server accepts connections
// and never answers fails each call, called with a context that has no
// deadline, within its SDK's retries of ShortTimeouts rather than
// hanging. open returns a backend for endpoint with ShortTimeouts.
func Unresponsive(t *testing.T, open func(t *testing.T, endpoint string) driver.Backend) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go io.Copy(io.Discard, c) // read the request, never answer
			t.Cleanup(func() { c.Close() })
		}
	}()
	b := open(t, "http://"+ln.Addr().String())
	ctx := context.WithoutCancel(t.Context())
	for name, call := range map[string]func() error{
		"Get": func() error { _, _, err := b.Get(ctx, "k", driver.GetOptions{}); return err },
		"Put": func() error {
			_, err := b.Put(ctx, "k", bytes.NewReader([]byte("x")), 1, driver.PutOptions{Mode: driver.Create{}})
			return err
		},
	} {
		done := make(chan error, 1)
		start := time.Now()
		go func() { done <- call() }()
		select {
		case err := <-done:
			var ne net.Error
			if err == nil || !(errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded)) {
				t.Errorf("%s on a server that never answers: %v; want a timeout", name, err)
			}
			t.Logf("%s on a server that never answers failed after %s: %v", name, time.Since(start).Round(time.Millisecond), err)
		case <-time.After(2 * time.Minute):
			t.Fatalf("%s on a server that never answers is still waiting after 2 minutes", name)
		}
	}
}
