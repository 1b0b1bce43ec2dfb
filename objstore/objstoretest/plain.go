package objstoretest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/driver/faulty"
)

// plainStore returns a Store with plain copies over b, or skips the test
// when b keeps no object metadata.
func plainStore(t *testing.T, b *faulty.Backend) *objstore.Store {
	t.Helper()
	if !driver.CapabilitiesOf(b).Metadata {
		t.Skip("the backend keeps no object metadata: no plain copies")
	}
	return newStore(b, &objstore.Options{Holder: "suite", PlainCopies: true})
}

// plainSeq returns the plain object's bytes and the commit seq its
// metadata names.
func plainSeq(t *testing.T, b driver.Backend, key string) (string, uint64) {
	t.Helper()
	info, err := b.Head(tctx(t), key)
	if err != nil {
		t.Fatalf("plain copy %q: %v", key, err)
	}
	seq, _ := strconv.ParseUint(info.Metadata["fence-seq"], 10, 64)
	return drivertest.ReadString(t, b, key), seq
}

// A holder paused between its commit and its plain copy, resumed after a
// newer holder's commit and copy, leaves the newer copy in place, and the
// plain object never goes back to an older commit, not even for a moment.
func testPlainCopyStaleHolder(t *testing.T, _ *objstore.Store, b *faulty.Backend) {
	ctx := tctx(t)
	s := plainStore(t, b)
	paused, gate := make(chan struct{}), make(chan struct{})
	var (
		mu      sync.Mutex
		applied []uint64 // the commit seq of every plain write that landed, in order
		first   = true
	)
	b.Add(faulty.Rule{Op: faulty.OpPut, Key: "d/k", Every: true, Func: func(_ context.Context, c faulty.Call) faulty.Fault {
		seq, _ := strconv.ParseUint(c.Opts.Metadata["fence-seq"], 10, 64)
		f := faulty.Fault{Then: func() {
			mu.Lock()
			applied = append(applied, seq)
			mu.Unlock()
		}}
		mu.Lock()
		defer mu.Unlock()
		if first {
			first = false
			close(paused)
			f.Pause = gate
		}
		return f
	}})
	done := make(chan error, 1)
	go func() {
		_, err := s.Commit(ctx, "d", 1, []objstore.Change{objstore.PutBytes("k", []byte("old"))}, nil)
		done <- err
	}()
	<-paused
	newer, err := s.Commit(ctx, "d", 2, []objstore.Change{objstore.PutBytes("k", []byte("new"))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatalf("the older commit: %v", err)
	}
	if got, seq := plainSeq(t, b, "d/k"); got != "new" || seq != newer.Seq {
		t.Fatalf("plain d/k = %q at seq %d; want the newer holder's \"new\" at %d", got, seq, newer.Seq)
	}
	mu.Lock()
	defer mu.Unlock()
	for i := 1; i < len(applied); i++ {
		if applied[i] < applied[i-1] {
			t.Fatalf("plain writes landed at seqs %v: the plain object went back", applied)
		}
	}
}

// The race If-Match cannot see: a newer copy with the same bytes as the
// object an older copy read. The older copy lands over it, and its
// commit's check puts the newest back before Commit returns.
func testPlainCopySameBytesRace(t *testing.T, _ *objstore.Store, b *faulty.Backend) {
	ctx := tctx(t)
	s := plainStore(t, b)
	if _, err := s.Commit(ctx, "d", 1, []objstore.Change{objstore.PutBytes("k", []byte("same"))}, nil); err != nil {
		t.Fatal(err)
	}
	paused, gate := make(chan struct{}), make(chan struct{})
	b.Add(faulty.Rule{Op: faulty.OpPut, Key: "d/k", Func: func(context.Context, faulty.Call) faulty.Fault {
		close(paused)
		return faulty.Fault{Pause: gate}
	}})
	done := make(chan error, 1)
	go func() {
		_, err := s.Commit(ctx, "d", 1, []objstore.Change{objstore.PutBytes("k", []byte("older"))}, nil)
		done <- err
	}()
	<-paused
	newer, err := s.Commit(ctx, "d", 2, []objstore.Change{objstore.PutBytes("k", []byte("same"))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatalf("the older commit: %v", err)
	}
	got, seq := plainSeq(t, b, "d/k")
	if got != "same" || seq < newer.Seq {
		t.Fatalf("plain d/k = %q at seq %d; want the newer \"same\" at seq %d or later", got, seq, newer.Seq)
	}
}

// A plain copy of a version whose bytes no longer match the manifest (a
// byte flipped, or the object cut short) fails with ErrIntegrity after
// one attempt, since sending the same bytes again cannot succeed, and
// leaves no plain object: a client that does not speak fence never reads
// bytes that fence's own readers refuse. Over a version object read
// directly and one large enough to be sent in parts; and over an inline
// value, in the mode that keeps one.
func testPlainCopyCorrupt(t *testing.T, _ *objstore.Store, b *faulty.Backend) {
	ctx := tctx(t)
	s := plainStore(t, b)
	raw := b.Unwrap()
	n := 0
	for _, size := range []int{100, 64 << 10, 6<<20 + 3} {
		for _, damage := range []string{"flip", "truncate"} {
			n++
			t.Run(fmt.Sprintf("%d/%s", size, damage), func(t *testing.T) {
				domain := fmt.Sprintf("pc%d", n)
				data := make([]byte, size)
				rand.Read(data)
				v := commitPut(t, s, domain, "k", 1, string(data)).Versions[0]
				bad := append([]byte(nil), data...)
				switch {
				case damage == "flip":
					bad[len(bad)/2] ^= 0x10
				case v.Inline:
					t.Skip("an inline value cut short is a corrupt manifest")
				default:
					bad = bad[:len(bad)-1]
				}
				tamper(t, raw, domain, v, string(bad))
				plain := domain + "/k"
				if err := raw.Delete(ctx, plain); err != nil {
					t.Fatal(err)
				}
				puts := b.Calls(faulty.OpPut)
				err := plainStore(t, b).SyncPlain(ctx, domain)
				if !errors.Is(err, objstore.ErrIntegrity) {
					t.Fatalf("plain copy of a version whose bytes were damaged (%s): %v; want ErrIntegrity", damage, err)
				}
				if got := b.Calls(faulty.OpPut) - puts; got > 1 {
					t.Fatalf("%d writes of the plain copy; want one, not retried (%v)", got, err)
				}
				if _, err := raw.Head(ctx, plain); !errors.Is(err, driver.ErrNotFound) {
					t.Fatalf("plain object %q after a copy of damaged bytes: %v; want none", plain, err)
				}
			})
		}
	}
}
