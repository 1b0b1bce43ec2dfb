package objstore

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/fencedstore/fence/objstore/memstore"
)

// TestHashKeptUnlocked: the kept parts are hashed with the upload's lock
// released, so another part lands meanwhile; a part uploaded again while
// its old bytes are being hashed replaces them, and those bytes are not
// taken into the value; and every buffer goes back to the budget.
// (Fails, by a part that cannot land, when the hashing holds the lock;
// and with a wrong value or a buffer not given back when a part dropped
// during its hashing is taken or kept.)
func TestHashKeptUnlocked(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const ps = MinPartSize
	part := func(c byte) []byte { return bytes.Repeat([]byte{c}, ps) }
	s := New(memstore.New(), &Options{PartBufferBytes: 3 * ps, InlineMax: -1})
	u, err := s.StageParts(ctx, "d", "k", 1)
	if err != nil {
		t.Fatal(err)
	}
	for n, c := range map[int]byte{2: 'b', 3: 'c'} { // ahead of their turn: kept
		if _, err := u.UploadPart(ctx, n, bytes.NewReader(part(c)), ps); err != nil {
			t.Fatal(err)
		}
	}
	hashing2, resume := make(chan struct{}), make(chan struct{})
	hashingKept = func(n int) {
		if n == 2 {
			close(hashing2)
			<-resume
		}
	}
	defer func() { hashingKept = nil }()
	one := make(chan error, 1)
	go func() { // lands, then hashes the kept parts 2 and 3
		_, err := u.UploadPart(ctx, 1, bytes.NewReader(part('a')), ps)
		one <- err
	}()
	<-hashing2
	landed := make(chan error, 2)
	go func() {
		_, err := u.UploadPart(ctx, 4, bytes.NewReader(part('d')), ps)
		landed <- err
	}()
	go func() { // part 2 again, while its first bytes are being hashed
		_, err := u.UploadPart(ctx, 2, bytes.NewReader(part('B')), ps)
		landed <- err
	}()
	for range 2 {
		select {
		case err := <-landed:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("a part could not land while kept parts were being hashed: the hashing holds the upload's lock")
		}
	}
	close(resume)
	if err := <-one; err != nil {
		t.Fatal(err)
	}
	r, err := u.Complete(ctx, []int{1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, "d", 1, []Change{PutReceipt(r)}, nil); err != nil {
		t.Fatal(err)
	}
	got, _, err := s.ReadAll(ctx, "d", "k")
	if want := bytes.Join([][]byte{part('a'), part('B'), part('c'), part('d')}, nil); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the value: %d bytes, %v; want part 2's second upload in it", len(got), err)
	}
	if used := s.partBuf.used; used != 0 {
		t.Fatalf("%d bytes of part buffers still in use after Complete", used)
	}
}
