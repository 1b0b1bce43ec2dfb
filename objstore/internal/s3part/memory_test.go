package s3part

import (
	"bytes"
	"crypto/sha256"
	"io"
	"strings"
	"testing"
)

// InMemory takes a *bytes.Reader or *strings.Reader at its start holding
// exactly the declared size, and nothing else: a reader part-read, a
// size that differs, or another type go through Read, which reads what
// is left and checks its length.
func TestInMemory(t *testing.T) {
	data := []byte("0123456789")
	partRead := bytes.NewReader(data)
	partRead.Seek(3, io.SeekStart)
	for _, tc := range []struct {
		name string
		body io.Reader
		size int64
		want bool
	}{
		{"bytes", bytes.NewReader(data), 10, true},
		{"string", strings.NewReader(string(data)), 10, true},
		{"empty", bytes.NewReader(nil), 0, true},
		{"part read", partRead, 7, false},
		{"shorter than its size", bytes.NewReader(data), 11, false},
		{"longer than its size", strings.NewReader(string(data)), 9, false},
		{"unknown size", bytes.NewReader(data), -1, false},
		{"another reader", io.LimitReader(bytes.NewReader(data), 10), 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, ok := InMemory(tc.body, tc.size)
			if ok != tc.want {
				t.Fatalf("InMemory = %v; want %v", ok, tc.want)
			}
			if !ok {
				return
			}
			sum, err := Sum256(m)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(m)
			if sum != sha256.Sum256(got) || int64(len(got)) != tc.size {
				t.Fatalf("Sum256 did not leave the body at its start, or hashed other bytes: read %q after it", got)
			}
		})
	}
}
