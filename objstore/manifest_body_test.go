package objstore

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"testing"

	"github.com/fencedstore/fence/internal/format"
)

func bodyManifest(seq uint64) *format.Manifest {
	return &format.Manifest{Domain: "d", Highest: 1, Seq: seq, Keys: map[string]format.Entry{}, Log: []format.LogEntry{{Seq: seq, ID: "a", Token: 1}}}
}

// A manifest body reads, seeks and writes itself as a bytes.Reader of
// the manifest's encoding does.
func TestManifestBodyReads(t *testing.T) {
	m := bodyManifest(1)
	want, err := format.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	b, err := newManifestBody(m)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Size() != int64(len(want)) || b.Len() != len(want) {
		t.Fatalf("Size %d, Len %d; want %d", b.Size(), b.Len(), len(want))
	}
	h := sha256.New()
	if n, err := b.WriteTo(h); err != nil || n != int64(len(want)) {
		t.Fatalf("WriteTo = %d, %v", n, err)
	}
	if got := sha256.Sum256(want); !bytes.Equal(h.Sum(nil), got[:]) {
		t.Fatal("WriteTo wrote other bytes than the encoding")
	}
	if b.Len() != 0 {
		t.Fatalf("Len after WriteTo = %d", b.Len())
	}
	if _, err := b.Seek(5, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(b)
	if err != nil || !bytes.Equal(got, want[5:]) {
		t.Fatalf("read after Seek(5) = %q, %v; want %q", got, err, want[5:])
	}
}

// Once its write has ended (Close), a manifest body reads nothing, so
// that a transport still reading it then cannot read the bytes of the
// next manifest, which reuses its buffer.
func TestManifestBodyClosed(t *testing.T) {
	first, err := newManifestBody(bodyManifest(1))
	if err != nil {
		t.Fatal(err)
	}
	p := make([]byte, 10)
	if _, err := first.Read(p); err != nil {
		t.Fatal(err)
	}
	first.Close()
	next, err := newManifestBody(bodyManifest(2))
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if n, err := first.Read(p); n != 0 || !errors.Is(err, errBodyClosed) {
		t.Fatalf("Read after Close = %d, %v; want errBodyClosed", n, err)
	}
	if n, err := first.WriteTo(io.Discard); n != 0 || !errors.Is(err, errBodyClosed) {
		t.Fatalf("WriteTo after Close = %d, %v; want errBodyClosed", n, err)
	}
	if _, err := first.Seek(0, io.SeekStart); !errors.Is(err, errBodyClosed) {
		t.Fatalf("Seek after Close = %v; want errBodyClosed", err)
	}
	first.Close() // a second Close does nothing
}
