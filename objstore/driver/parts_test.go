package driver_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
)

// TestExactReader: the Read that returns a body's last declared byte
// already says whether the body goes on, since an upload of a known size
// may read no further; a shorter body fails at its end.
func TestExactReader(t *testing.T) {
	buf := make([]byte, 100)
	n, err := driver.ExactReader(bytes.NewReader(make([]byte, 200)), 100).Read(buf)
	if n != 100 || err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("a longer body, read to its declared size at once: %d, %v; want 100 and an error", n, err)
	}
	n, err = driver.ExactReader(bytes.NewReader(make([]byte, 100)), 100).Read(buf)
	if n != 100 || err != io.EOF {
		t.Fatalf("a body of its size, read at once: %d, %v; want 100, EOF", n, err)
	}
	if _, err := io.ReadAll(driver.ExactReader(bytes.NewReader(make([]byte, 50)), 100)); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("a shorter body: %v, want ErrUnexpectedEOF", err)
	}
	if got, err := io.ReadAll(driver.ExactReader(bytes.NewReader(make([]byte, 100)), 100)); err != nil || len(got) != 100 {
		t.Fatalf("ReadAll of a body of its size: %d bytes, %v", len(got), err)
	}
}
