package s3store

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3test"
)

// TestPutHashed: every way Put sends a body (one buffered PutObject, one
// PutObject of a body held in memory, one streamed PutObject of a body
// read twice, a multipart upload of a body
// of known and of unknown size) reports the length, SHA-256 and CRCs of
// what it stored, on success and with a failed precondition.
func TestPutHashed(t *testing.T) {
	s3test.EachServer(t, "s3store", func(t *testing.T, srv s3test.Server) {
		opts := testOptions(srv)
		opts.PartSize, opts.MultipartThreshold, opts.SinglePutMax = MinPartSize, MinPartSize, 2*MinPartSize+1
		b := newBucket(t, "", opts)
		small, mid, big := make([]byte, 1000), make([]byte, MinPartSize+1), make([]byte, 2*MinPartSize+2)
		for _, d := range [][]byte{small, mid, big} {
			rand.Read(d)
		}
		mem := func(d []byte) io.Reader { return bytes.NewReader(d) }
		pipe := func(d []byte) io.Reader { return s3test.Opaque{R: bytes.NewReader(d)} }
		s3test.PutHashed(t, b, []s3test.HashedCase{
			{Name: "buffered", Data: small, Body: pipe, Size: s3test.Known},
			{Name: "in-memory", Data: small, Body: mem, Size: s3test.Known},
			{Name: "streamed", Data: mid, Body: mem, Size: s3test.Known},
			{Name: "multipart", Data: mid, Body: pipe, Size: s3test.Known},
			{Name: "multipart-seekable-past-SinglePutMax", Data: big, Body: mem, Size: s3test.Known},
			{Name: "multipart-unknown-size", Data: big, Body: pipe, Size: s3test.Unknown},
		})
	})
}

// changing reads one set of bytes the first time and another after it
// is rewound: a file rewritten between Put's two passes.
type changing struct {
	*bytes.Reader
	second []byte
	passes int
}

func (c *changing) Seek(off int64, whence int) (int64, error) {
	if whence == io.SeekStart && c.Reader.Len() == 0 {
		c.passes++
		c.Reader = bytes.NewReader(c.second)
	}
	return c.Reader.Seek(off, whence)
}

// TestStreamedPutSigned: a streamed body is signed with the hash of its
// first pass, so a body that changes before it is sent stores nothing.
func TestStreamedPutSigned(t *testing.T) {
	s3test.EachServer(t, "s3store", func(t *testing.T, srv s3test.Server) {
		opts := testOptions(srv)
		opts.PartSize, opts.MultipartThreshold = MinPartSize, MinPartSize
		b := newBucket(t, "", opts)
		first, second := make([]byte, MinPartSize+1), make([]byte, MinPartSize+1)
		rand.Read(first)
		rand.Read(second)
		body := &changing{Reader: bytes.NewReader(first), second: second}
		_, err := b.Put(t.Context(), "changed", body, int64(len(first)), driver.PutOptions{Mode: driver.Create{}})
		if err == nil {
			t.Fatal("Put of a body that changed between its hash and its send succeeded")
		}
		if body.passes == 0 {
			t.Fatal("the body was never rewound: not the streamed path")
		}
		if _, err := b.Head(t.Context(), "changed"); !errors.Is(err, driver.ErrNotFound) {
			t.Fatalf("Head after the refused put = %v; want ErrNotFound", err)
		}
		t.Logf("refused: %v", err)
	})
}
