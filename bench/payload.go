package bench

import (
	"errors"
	"io"
	"math/rand/v2"
	"sync"
)

// blockSize is the length of the random block that payloads repeat.
const blockSize = 1 << 20

// block is 1 MiB of pseudo-random, incompressible bytes, the same in
// every process.
var block = sync.OnceValue(func() []byte {
	b := make([]byte, blockSize)
	rng := rand.NewChaCha8([32]byte{'f', 'e', 'n', 'c', 'e', '-', 'b', 'e', 'n', 'c', 'h'})
	_, _ = rng.Read(b)
	return b
})

// payloads hands out byte slices of random content, sharing one buffer
// per size so that a run holds each size once.
type payloads struct {
	mu  sync.Mutex
	buf map[int64][]byte
}

// get returns n bytes of random content. The caller must not modify them.
func (p *payloads) get(n int64) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if b, ok := p.buf[n]; ok {
		return b
	}
	b := make([]byte, n)
	src := block()
	for off := 0; off < len(b); off += copy(b[off:], src) {
	}
	// Make each size's content differ from the others' prefixes.
	if n > 0 {
		b[0] ^= byte(len(p.buf) + 1)
	}
	if p.buf == nil {
		p.buf = make(map[int64][]byte)
	}
	p.buf[n] = b
	return b
}

// streamReader yields size bytes of the repeated random block without
// holding them: a large body for the memory rows. It is an io.Seeker, so
// a failed upload can be retried from the start.
type streamReader struct {
	size, off int64
}

func newStream(size int64) *streamReader { return &streamReader{size: size} }

func (s *streamReader) Read(p []byte) (int, error) {
	if s.off >= s.size {
		return 0, io.EOF
	}
	src := block()
	p = p[:min(int64(len(p)), s.size-s.off)]
	n := 0
	for n < len(p) {
		n += copy(p[n:], src[(s.off+int64(n))%blockSize:])
	}
	s.off += int64(n)
	return n, nil
}

func (s *streamReader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += s.off
	case io.SeekEnd:
		offset += s.size
	default:
		return s.off, errors.New("bench: seek: invalid whence")
	}
	if offset < 0 {
		return s.off, errors.New("bench: seek: negative position")
	}
	s.off = offset
	return offset, nil
}
