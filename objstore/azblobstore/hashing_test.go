package azblobstore

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"runtime"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3test"
)

// opaque hides every method of its reader but Read, so that Put must
// read it into a buffer.
type opaque struct{ io.Reader }

// TestPutHashed: PutHashed returns the digest of the body it stored, on
// each of Put's paths (a body held in memory and sent as it is, one read
// into a buffer for one Put Blob, one staged in blocks, of known and
// unknown size), and the digest of the body a create was refused, which
// objstore compares with the stored version after a 412.
func TestPutHashed(t *testing.T) {
	const part = 64 << 10
	b := newContainer(t, "", &Options{PartSize: part})
	small, big := make([]byte, 1000), make([]byte, 3*part+17)
	rand.Read(small)
	rand.Read(big)
	known := func(d []byte) int64 { return int64(len(d)) }
	for _, tc := range []struct {
		name string
		data []byte
		body func([]byte) io.Reader
		size func([]byte) int64
	}{
		{"in-memory", small, func(d []byte) io.Reader { return bytes.NewReader(d) }, known},
		{"buffered", small, func(d []byte) io.Reader { return opaque{bytes.NewReader(d)} }, known},
		{"buffered-unknown-size", small, func(d []byte) io.Reader { return opaque{bytes.NewReader(d)} }, func([]byte) int64 { return -1 }},
		{"staged", big, func(d []byte) io.Reader { return bytes.NewReader(d) }, known},
		{"staged-unknown-size", big, func(d []byte) io.Reader { return opaque{bytes.NewReader(d)} }, func([]byte) int64 { return -1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := "hashed/" + tc.name
			want := driver.DigestOf(tc.data)
			info, dg, err := b.PutHashed(t.Context(), key, tc.body(tc.data), tc.size(tc.data), driver.PutOptions{Mode: driver.Create{}})
			if err != nil {
				t.Fatal(err)
			}
			if dg != want || info.Size != want.Size {
				t.Fatalf("PutHashed = size %d, digest %+v; want %+v", info.Size, dg, want)
			}
			rc, _, err := b.Get(t.Context(), key, driver.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || !bytes.Equal(got, tc.data) {
				t.Fatalf("read back %d bytes (%v); want the %d put", len(got), err, len(tc.data))
			}
			other := append([]byte("other "), tc.data...)
			_, dg, err = b.PutHashed(t.Context(), key, tc.body(other), tc.size(other), driver.PutOptions{Mode: driver.Create{}})
			if !errors.Is(err, driver.ErrPreconditionFailed) {
				t.Fatalf("second create = %v; want ErrPreconditionFailed", err)
			}
			if want := driver.DigestOf(other); dg != want {
				t.Fatalf("second create's digest = %+v; want %+v (the body it was refused)", dg, want)
			}
		})
	}
}

// TestInMemoryBodies: bodies held in memory are sent as they are, and one
// whose length differs from its size stores nothing.
func TestInMemoryBodies(t *testing.T) {
	s3test.InMemoryBodies(t, newContainer(t, "", nil))
}

// TestInMemoryBodyNotCopied: a Put of a body held in memory sends it
// without reading it into a buffer of its own: objstore's manifest
// writes and the version uploads of values in memory cost no copy.
// Counted by the bytes allocated beside the request: a copy of the 4 MiB
// body would at least double them.
func TestInMemoryBodyNotCopied(t *testing.T) {
	b := newContainer(t, "", nil)
	data := make([]byte, 4<<20)
	rand.Read(data)
	put := func(body io.Reader) uint64 {
		t.Helper()
		before := allocated()
		if _, _, err := b.PutHashed(t.Context(), "mem", body, int64(len(data)), driver.PutOptions{}); err != nil {
			t.Fatal(err)
		}
		return allocated() - before
	}
	mem, copied := put(bytes.NewReader(data)), put(opaque{bytes.NewReader(data)})
	if copied < uint64(len(data)) {
		t.Fatalf("a buffered put allocated %d bytes, less than its %d-byte body: the count does not see the copy", copied, len(data))
	}
	if mem > uint64(len(data))/2 {
		t.Errorf("a put of a *bytes.Reader allocated %d bytes for a %d-byte body (a buffered one %d): it was copied", mem, len(data), copied)
	}
}

// allocated is the bytes the process has allocated so far.
func allocated() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}
