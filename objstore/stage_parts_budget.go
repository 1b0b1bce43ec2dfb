package objstore

import "sync"

// DefaultPartBufferBytes is Options.PartBufferBytes when it is zero.
const DefaultPartBufferBytes = 64 << 20

// partBudget holds the buffers in which a Store's uploads in parts keep
// parts that arrived ahead of their turn, to hash them later
// (Options.PartBufferBytes): the ones in use and the ones free to be
// used again, never more than the limit in all. Reusing them, rather
// than leaving each to the garbage collector and allocating the next,
// keeps the process's memory near the limit: a 256 MiB upload in 16 MiB
// parts, 4 at a time, peaked at 1.7x the bound without (bench's gateway
// rows). The zero value is ready: its limit comes from the Store's
// options.
type partBudget struct {
	mu        sync.Mutex
	used      int64 // capacity of the buffers in use
	free      [][]byte
	freeBytes int64 // capacity of the free buffers
}

// takePartBuffer returns an empty buffer of capacity at least n from s's
// budget, a free one if one is large enough, and reports whether the
// budget had room.
func (s *Store) takePartBuffer(n int64) ([]byte, bool) {
	limit := s.opts.PartBufferBytes
	switch {
	case limit == 0:
		limit = DefaultPartBufferBytes
	case limit < 0:
		return nil, false
	}
	b := &s.partBuf
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, buf := range b.free {
		if c := int64(cap(buf)); c >= n && b.used+c <= limit {
			b.free = append(b.free[:i], b.free[i+1:]...)
			b.freeBytes -= c
			b.used += c
			return buf[:0], true
		}
	}
	if b.used+n > limit {
		return nil, false
	}
	// Free buffers too small for n make room for it.
	for len(b.free) > 0 && b.used+b.freeBytes+n > limit {
		b.freeBytes -= int64(cap(b.free[0]))
		b.free[0] = nil
		b.free = b.free[1:]
	}
	b.used += n
	return make([]byte, 0, n), true
}

// releasePartBuffer gives buf, taken with takePartBuffer, back to s's
// budget, to be used again. The caller keeps no reference to it.
func (s *Store) releasePartBuffer(buf []byte) {
	b := &s.partBuf
	b.mu.Lock()
	defer b.mu.Unlock()
	c := int64(cap(buf))
	b.used -= c
	b.free = append(b.free, buf[:0])
	b.freeBytes += c
}
