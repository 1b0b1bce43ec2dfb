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

// opaque hides a body's Seek, as a pipe would.
type opaque struct{ r io.Reader }

func (o opaque) Read(p []byte) (int, error) { return o.r.Read(p) }

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
		cases := []struct {
			name string
			data []byte
			body func([]byte) io.Reader
			size func([]byte) int64
		}{
			{"buffered", small, func(d []byte) io.Reader { return opaque{bytes.NewReader(d)} }, known},
			{"in-memory", small, func(d []byte) io.Reader { return bytes.NewReader(d) }, known},
			{"streamed", mid, func(d []byte) io.Reader { return bytes.NewReader(d) }, known},
			{"multipart", mid, func(d []byte) io.Reader { return opaque{bytes.NewReader(d)} }, known},
			{"multipart-seekable-past-SinglePutMax", big, func(d []byte) io.Reader { return bytes.NewReader(d) }, known},
			{"multipart-unknown-size", big, func(d []byte) io.Reader { return opaque{bytes.NewReader(d)} }, func([]byte) int64 { return -1 }},
		}
		for _, tc := range cases {
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
				mustRead(t, b, key, tc.data)
				other := append([]byte("other "), tc.data...)
				_, dg, err = b.PutHashed(t.Context(), key, tc.body(other), tc.size(other), driver.PutOptions{Mode: driver.Create{}})
				if !errors.Is(err, driver.ErrPreconditionFailed) {
					t.Fatalf("second create = %v; want ErrPreconditionFailed", err)
				}
				if want := driver.DigestOf(other); dg != want {
					t.Fatalf("second create's digest = %+v; want %+v (the body it was refused)", dg, want)
				}
				mustRead(t, b, key, tc.data)
			})
		}
	})
}

func known(d []byte) int64 { return int64(len(d)) }

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

func mustRead(t *testing.T, b *Backend, key string, want []byte) {
	t.Helper()
	rc, _, err := b.Get(t.Context(), key, driver.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s holds %d bytes, not the %d put", key, len(got), len(want))
	}
}
