package objstore_test

import (
	"bytes"
	"context"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/memstore"
)

// countGets is a memstore that counts the reads of one key: the reads
// back of a value uploaded in parts.
type countGets struct {
	*memstore.Backend
	key  atomic.Value // string
	gets atomic.Int64
}

func (c *countGets) Get(ctx context.Context, key string, opts driver.GetOptions) (io.ReadCloser, driver.ObjectInfo, error) {
	if k, _ := c.key.Load().(string); k == key {
		c.gets.Add(1)
	}
	return c.Backend.Get(ctx, key, opts)
}

// firstRead closes its channel at the body's first Read.
type firstRead struct {
	r    io.Reader
	once sync.Once
	read chan struct{}
}

func (f *firstRead) Read(p []byte) (int, error) {
	f.once.Do(func() { close(f.read) })
	return f.r.Read(p)
}

// TestPartAheadWaitsForRoom: a part that arrives ahead of its turn when
// the Store's part buffers are full of parts kept behind the one being
// uploaded waits for that upload to end rather than stream unkept, so
// the value is hashed as its parts arrive and nothing is read back when
// it completes. (Fails when the part streams at once: it is then read
// back.) A part ahead of its turn while the part whose turn it is is not
// being uploaded does not wait: the client may never send that part
// before this one ends.
func TestPartAheadWaitsForRoom(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const ps = objstore.MinPartSize
	parts := make([][]byte, 4)
	for i := range parts {
		parts[i] = bytes.Repeat([]byte{byte('a' + i)}, ps)
	}
	whole := bytes.Join(parts, nil)

	t.Run("waits while the turn's part uploads", func(t *testing.T) {
		b := &countGets{Backend: memstore.New()}
		s := objstore.New(b, &objstore.Options{PartBufferBytes: 2 * ps, InlineMax: -1})
		u, err := s.StageParts(ctx, "d", "k", 1)
		if err != nil {
			t.Fatal(err)
		}
		b.key.Store(u.Object())
		// Part 1 streams slowly: half now, the rest once part 4 waits.
		pr, pw := io.Pipe()
		one := make(chan error, 1)
		go func() {
			_, err := u.UploadPart(ctx, 1, pr, ps)
			one <- err
		}()
		if _, err := pw.Write(parts[0][:ps/2]); err != nil {
			t.Fatal(err)
		}
		for n := 2; n <= 3; n++ { // kept: the budget is full
			if _, err := u.UploadPart(ctx, n, bytes.NewReader(parts[n-1]), ps); err != nil {
				t.Fatal(err)
			}
		}
		body := &firstRead{r: bytes.NewReader(parts[3]), read: make(chan struct{})}
		four := make(chan error, 1)
		go func() {
			_, err := u.UploadPart(ctx, 4, body, ps)
			four <- err
		}()
		select {
		case <-body.read:
			t.Fatal("part 4 streamed with no room to keep it while part 1 was uploading")
		case <-time.After(200 * time.Millisecond): // waiting, as it should
		}
		if _, err := pw.Write(parts[0][ps/2:]); err != nil {
			t.Fatal(err)
		}
		pw.Close()
		if err := <-one; err != nil {
			t.Fatal(err)
		}
		if err := <-four; err != nil {
			t.Fatal(err)
		}
		r, err := u.Complete(ctx, []int{1, 2, 3, 4})
		if err != nil {
			t.Fatal(err)
		}
		if n := b.gets.Load(); n != 0 {
			t.Fatalf("read back %d times at Complete, want 0", n)
		}
		if _, err := s.Commit(ctx, "d", 1, []objstore.Change{objstore.PutReceipt(r)}, nil); err != nil {
			t.Fatal(err)
		}
		wantValue(t, s, "d", "k", whole)
	})

	t.Run("no wait when the turn's part is not uploading", func(t *testing.T) {
		b := &countGets{Backend: memstore.New()}
		s := objstore.New(b, &objstore.Options{PartBufferBytes: 2 * ps, InlineMax: -1})
		u, err := s.StageParts(ctx, "d", "k", 1)
		if err != nil {
			t.Fatal(err)
		}
		b.key.Store(u.Object())
		for _, n := range []int{2, 3, 4, 1} { // 4 finds the budget full and part 1 not sent
			if _, err := u.UploadPart(ctx, n, bytes.NewReader(parts[n-1]), ps); err != nil {
				t.Fatal(err)
			}
		}
		r, err := u.Complete(ctx, []int{1, 2, 3, 4})
		if err != nil {
			t.Fatal(err)
		}
		if n := b.gets.Load(); n != 1 {
			t.Fatalf("read back %d times at Complete, want 1 (part 4)", n)
		}
		if _, err := s.Commit(ctx, "d", 1, []objstore.Change{objstore.PutReceipt(r)}, nil); err != nil {
			t.Fatal(err)
		}
		wantValue(t, s, "d", "k", whole)
	})

	t.Run("a waiting part's context ends", func(t *testing.T) {
		s := objstore.New(memstore.New(), &objstore.Options{PartBufferBytes: 2 * ps, InlineMax: -1})
		u, err := s.StageParts(ctx, "d", "k", 1)
		if err != nil {
			t.Fatal(err)
		}
		pr, pw := io.Pipe()
		defer pw.Close()
		go func() { _, _ = u.UploadPart(ctx, 1, pr, ps) }()
		for n := 2; n <= 3; n++ {
			if _, err := u.UploadPart(ctx, n, bytes.NewReader(parts[n-1]), ps); err != nil {
				t.Fatal(err)
			}
		}
		wctx, wcancel := context.WithCancel(ctx)
		four := make(chan error, 1)
		go func() {
			_, err := u.UploadPart(wctx, 4, bytes.NewReader(parts[3]), ps)
			four <- err
		}()
		time.Sleep(50 * time.Millisecond)
		wcancel()
		if err := <-four; err == nil {
			t.Fatal("part 4 uploaded after its context ended")
		}
	})
}
