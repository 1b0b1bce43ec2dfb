package main

import (
	"context"
	"io"
)

// interruptible returns r wrapped so that a read fails with readErr once
// ctx ends. A seekable r (a regular file, whose reads do not block)
// is checked before each read and keeps its io.Seeker, which the store
// needs to retry an upload from the start. Any other r (standard input
// from an idle producer) is read on a goroutine of its own, so that a
// read blocked in r still returns when ctx ends; that goroutine is left
// blocked, and ends with the process.
func interruptible(ctx context.Context, r io.Reader) io.Reader {
	if s, ok := r.(io.Seeker); ok {
		return struct {
			ctxReader
			io.Seeker
		}{ctxReader{ctx, r}, s}
	}
	a := &asyncReader{ctx: ctx, chunks: make(chan chunk)}
	go a.pump(r)
	return a
}

// readErr is the error of a read that ctx ended: the *interrupted of a
// signal, else ctx.Err() (which run explains for --timeout).
func readErr(ctx context.Context) error {
	if in := interruption(ctx); in != nil {
		return in
	}
	return ctx.Err()
}

// ctxReader reads from r until ctx ends, then fails with readErr, so
// that a copy stops within one read of a signal even when r itself does
// not watch ctx.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, readErr(c.ctx)
	}
	return c.r.Read(p)
}

// asyncReader hands on what pump reads, one chunk at a time, and stops
// waiting for it when ctx ends.
type asyncReader struct {
	ctx     context.Context
	chunks  chan chunk
	pending []byte
	err     error
}

type chunk struct {
	b   []byte
	err error
}

func (a *asyncReader) pump(r io.Reader) {
	for {
		b := make([]byte, 32<<10)
		n, err := r.Read(b)
		select {
		case a.chunks <- chunk{b[:n], err}:
		case <-a.ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

func (a *asyncReader) Read(p []byte) (int, error) {
	for len(a.pending) == 0 && a.err == nil {
		select {
		case <-a.ctx.Done():
			return 0, readErr(a.ctx)
		case c := <-a.chunks:
			a.pending, a.err = c.b, c.err
		}
	}
	if a.ctx.Err() != nil {
		return 0, readErr(a.ctx)
	}
	n := copy(p, a.pending)
	a.pending = a.pending[n:]
	if n > 0 {
		return n, nil
	}
	return 0, a.err
}

// ctxWriter writes to w on a goroutine of its own and stops waiting for
// the write when ctx ends, failing with readErr: a write blocked on a
// full pipe that nobody reads still returns. The goroutine is left
// blocked, and ends with the process; the caller must not reuse the
// buffer after such a failure (io.Copy does not).
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, readErr(c.ctx)
	}
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := c.w.Write(p)
		done <- result{n, err}
	}()
	select {
	case r := <-done:
		return r.n, r.err
	case <-c.ctx.Done():
		return 0, readErr(c.ctx)
	}
}
