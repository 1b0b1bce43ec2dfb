package wire

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
)

// pattern is an io.Reader of n bytes made on the fly, so that a test can
// send a large body without holding it.
type pattern struct{ n int64 }

func (p *pattern) Read(b []byte) (int, error) {
	if p.n == 0 {
		return 0, io.EOF
	}
	if int64(len(b)) > p.n {
		b = b[:p.n]
	}
	for i := range b {
		b[i] = byte(i*7 + 3)
	}
	p.n -= int64(len(b))
	return len(b), nil
}

// TestOneLargeChunkInBoundedMemory decodes a body of one 48 MiB chunk with
// a CRC32 trailer and checks that reading it allocated far less than the
// chunk: the decoder streams a chunk through and never holds it.
func TestOneLargeChunkInBoundedMemory(t *testing.T) {
	const size = 48 << 20
	h := CRC32.New()
	if _, err := io.CopyBuffer(h, &pattern{n: size}, make([]byte, 32<<10)); err != nil {
		t.Fatal(err)
	}
	src := io.MultiReader(
		strings.NewReader(fmt.Sprintf("%x\r\n", size)),
		&pattern{n: size},
		strings.NewReader("\r\n0\r\nx-amz-checksum-crc32:"+b64(h.Sum(nil))+"\r\n\r\n"))
	r, _ := http.NewRequest("PUT", "http://localhost/b/k", src)
	r.Header.Set("X-Amz-Trailer", "x-amz-checksum-crc32")
	r.Header.Set("X-Amz-Decoded-Content-Length", fmt.Sprint(size))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b, err := OpenBody(r, &Auth{PayloadHash: StreamingUnsignedTrailer}, BodyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.CopyBuffer(io.Discard, b, make([]byte, 32<<10))
	runtime.ReadMemStats(&after)
	if err != nil || n != size {
		t.Fatalf("read %d bytes, %v", n, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Fatalf("decoding a %d MiB chunk allocated %d bytes; want under 1 MiB", size>>20, alloc)
	} else {
		t.Logf("decoding a %d MiB chunk allocated %d bytes", size>>20, alloc)
	}
}
