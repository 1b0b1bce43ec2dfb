package objstore_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/memstore"
)

// stallingBackend serves version objects whose body stops after half its
// bytes until it is closed, as a connection that stalls does.
type stallingBackend struct{ driver.Backend }

func (b stallingBackend) Get(ctx context.Context, key string, opts driver.GetOptions) (io.ReadCloser, driver.ObjectInfo, error) {
	rc, info, err := b.Backend.Get(ctx, key, opts)
	if err != nil || info.Size < 2<<20 {
		return rc, info, err
	}
	return &stallingBody{rc: rc, left: info.Size / 2, closed: make(chan struct{})}, info, nil
}

type stallingBody struct {
	rc     io.ReadCloser
	left   int64
	once   sync.Once
	closed chan struct{}
}

func (s *stallingBody) Read(p []byte) (int, error) {
	if s.left <= 0 {
		<-s.closed
		return 0, io.ErrClosedPipe
	}
	if int64(len(p)) > s.left {
		p = p[:s.left]
	}
	n, err := s.rc.Read(p)
	s.left -= int64(n)
	return n, err
}

func (s *stallingBody) Close() error {
	s.once.Do(func() { close(s.closed) })
	return s.rc.Close()
}

// TestLargeGetVerifiedAndClosable: a large version, read ahead of its
// reader, arrives whole and verified; and a reader closed while the body
// has stalled returns at once (the read-ahead goroutine is blocked on the
// body, so the body is closed first) instead of waiting on the network.
func TestLargeGetVerifiedAndClosable(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	data := make([]byte, 8<<20)
	_, _ = rand.Read(data)
	w := objstore.New(mem, nil)
	if _, err := w.Put(ctx, "d", "big", 1, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	got, _, err := objstore.New(mem, nil).ReadAll(ctx, "d", "big")
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, %v", len(got), err)
	}
	// Read ahead only when the check is SHA-256 (VerifySHA256, or an
	// entry without CRCs).
	r, err := objstore.New(stallingBackend{mem}, &objstore.Options{VerifySHA256: true}).Get(ctx, "d", "big")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(r, make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Close() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Close of a reader whose body stalled did not return")
	}
}
