package s3test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
)

// InMemoryBodies checks the puts of bodies held in memory, which the
// backends send as they are, without a buffer (s3part.InMemory): a
// *bytes.Reader and a *strings.Reader are stored whole; one already read
// part of the way stores what is left of it; and one whose declared size
// differs from its length stores nothing.
func InMemoryBodies(t *testing.T, b driver.Backend) {
	ctx := t.Context()
	data := bytes.Repeat([]byte("0123456789"), 100)
	partRead := bytes.NewReader(data)
	partRead.Seek(10, io.SeekStart)
	for _, tc := range []struct {
		name string
		body io.Reader
		size int64
		want []byte // nil: refused
	}{
		{"bytes", bytes.NewReader(data), 1000, data},
		{"string", strings.NewReader(string(data)), 1000, data},
		{"part read", partRead, 990, data[10:]},
		{"shorter than its size", bytes.NewReader(data), 1001, nil},
		{"longer than its size", strings.NewReader(string(data)), 999, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := "memory/" + tc.name
			_, err := b.Put(ctx, key, tc.body, tc.size, driver.PutOptions{Mode: driver.Create{}})
			if tc.want == nil {
				if err == nil {
					t.Fatal("Put of a body whose length differs from its size succeeded")
				}
				if _, err := b.Head(ctx, key); !errors.Is(err, driver.ErrNotFound) {
					t.Fatalf("Head after the refused put = %v; want ErrNotFound", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			mustGet(t, b, key, tc.want)
		})
	}
}
