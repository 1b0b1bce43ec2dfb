package objstore

import "sync"

// DefaultPartBufferBytes is Options.PartBufferBytes when it is zero.
const DefaultPartBufferBytes = 64 << 20

// partBudget counts the bytes that a Store's uploads in parts hold in
// memory for hashing later (Options.PartBufferBytes). The zero value is
// ready: its limit comes from the Store's options.
type partBudget struct {
	mu   sync.Mutex
	used int64
}

// reserve takes n bytes of s's budget and reports whether it could.
func (s *Store) reservePartBuffer(n int64) bool {
	limit := s.opts.PartBufferBytes
	switch {
	case limit == 0:
		limit = DefaultPartBufferBytes
	case limit < 0:
		return false
	}
	b := &s.partBuf
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > limit {
		return false
	}
	b.used += n
	return true
}

// releasePartBuffer returns n bytes to s's budget.
func (s *Store) releasePartBuffer(n int64) {
	b := &s.partBuf
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}
