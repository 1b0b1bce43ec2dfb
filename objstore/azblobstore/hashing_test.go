package azblobstore

import (
	"bytes"
	"crypto/rand"
	"io"
	"runtime"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3test"
)

// TestPutHashed: PutHashed returns the digest of the body it stored, on
// each of Put's paths (a body held in memory and sent as it is, one read
// into a buffer for one Put Blob, one staged in blocks, of known and
// unknown size), and the digest of the body a create was refused.
func TestPutHashed(t *testing.T) {
	const part = 64 << 10
	b := newContainer(t, "", &Options{PartSize: part})
	small, big := make([]byte, 1000), make([]byte, 3*part+17)
	rand.Read(small)
	rand.Read(big)
	mem := func(d []byte) io.Reader { return bytes.NewReader(d) }
	pipe := func(d []byte) io.Reader { return s3test.Opaque{R: bytes.NewReader(d)} }
	s3test.PutHashed(t, b, []s3test.HashedCase{
		{Name: "in-memory", Data: small, Body: mem, Size: s3test.Known},
		{Name: "buffered", Data: small, Body: pipe, Size: s3test.Known},
		{Name: "buffered-unknown-size", Data: small, Body: pipe, Size: s3test.Unknown},
		{Name: "staged", Data: big, Body: mem, Size: s3test.Known},
		{Name: "staged-unknown-size", Data: big, Body: pipe, Size: s3test.Unknown},
	})
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
	mem, copied := put(bytes.NewReader(data)), put(s3test.Opaque{R: bytes.NewReader(data)})
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
