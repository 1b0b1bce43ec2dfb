package s3test

import (
	"errors"
	"io"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
)

// Hasher is a backend that digests the bodies it puts.
type Hasher interface {
	driver.Backend
	driver.HashingPutter
}

// HashedCase is one body PutHashed puts: Data, read through Body(Data),
// declared as Size(Data) bytes.
type HashedCase struct {
	Name string
	Data []byte
	Body func([]byte) io.Reader
	Size func([]byte) int64
}

// Known is a body's length, as its declared size.
func Known(d []byte) int64 { return int64(len(d)) }

// Unknown declares no size (-1).
func Unknown([]byte) int64 { return -1 }

// Opaque hides every method of its reader but Read, as a pipe would: Put
// must read it into a buffer of its own.
type Opaque struct{ R io.Reader }

func (o Opaque) Read(p []byte) (int, error) { return o.R.Read(p) }

// PutHashed checks, for each case, that PutHashed creates the object with
// the case's bytes and reports their length, SHA-256 and CRCs, and that a
// second create of other bytes, refused by its precondition, reports the
// digest of the body it was refused (objstore compares it with the stored
// version after a 412 it cannot tell from its own retried write).
func PutHashed(t *testing.T, b Hasher, cases []HashedCase) {
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			key := "hashed/" + tc.Name
			want := driver.DigestOf(tc.Data)
			info, dg, err := b.PutHashed(t.Context(), key, tc.Body(tc.Data), tc.Size(tc.Data), driver.PutOptions{Mode: driver.Create{}})
			if err != nil {
				t.Fatal(err)
			}
			if dg != want || info.Size != want.Size {
				t.Fatalf("PutHashed = size %d, digest %+v; want %+v", info.Size, dg, want)
			}
			mustGet(t, b, key, tc.Data)
			other := append([]byte("other "), tc.Data...)
			_, dg, err = b.PutHashed(t.Context(), key, tc.Body(other), tc.Size(other), driver.PutOptions{Mode: driver.Create{}})
			if !errors.Is(err, driver.ErrPreconditionFailed) {
				t.Fatalf("second create = %v; want ErrPreconditionFailed", err)
			}
			if want := driver.DigestOf(other); dg != want {
				t.Fatalf("second create's digest = %+v; want %+v (the body it was refused)", dg, want)
			}
			mustGet(t, b, key, tc.Data)
		})
	}
}
