package objstore

import (
	"testing"

	"github.com/fencedstore/fence/objstore/memstore"
)

// TestPartBufferReuse: a part buffer given back is used again for the
// next part that fits in it, the budget never holds more than its limit
// in buffers in use and free, and free buffers too small for a request
// make room for it.
func TestPartBufferReuse(t *testing.T) {
	s := New(memstore.New(), &Options{PartBufferBytes: 100})
	a, ok := s.takePartBuffer(40)
	if !ok || cap(a) != 40 {
		t.Fatalf("take 40: cap %d, %v", cap(a), ok)
	}
	b, ok := s.takePartBuffer(40)
	if !ok {
		t.Fatal("take 40 more: refused")
	}
	if _, ok := s.takePartBuffer(30); ok {
		t.Fatal("take 30 with 80 of 100 in use: accepted")
	}
	a = append(a, "some bytes"...)
	s.releasePartBuffer(a)
	c, ok := s.takePartBuffer(35)
	if !ok || len(c) != 0 || cap(c) != 40 || &c[:1][0] != &a[:1][0] {
		t.Fatalf("take 35 after giving 40 back: len %d cap %d, %v, the same array: %v", len(c), cap(c), ok, ok && &c[:1][0] == &a[:1][0])
	}
	s.releasePartBuffer(c)
	s.releasePartBuffer(b)
	// Two free buffers of 40: a request of 90 drops them to make room.
	d, ok := s.takePartBuffer(90)
	if !ok || cap(d) != 90 {
		t.Fatalf("take 90 with two free buffers of 40: cap %d, %v", cap(d), ok)
	}
	if pb := &s.partBuf; pb.used+pb.freeBytes > 100 {
		t.Fatalf("the budget holds %d in use and %d free, over its limit of 100", pb.used, pb.freeBytes)
	}
}
