package bucketlease_test

import (
	"errors"
	"testing"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/objstore/driver/faulty"
)

// TestRemembersItsLastWrite: a Driver that wrote a record changes it next
// with one conditional PUT, without reading it first: acquire, renew,
// release and acquire again cost one GET (the first acquisition's) and
// four PUTs.
func TestRemembersItsLastWrite(t *testing.T) {
	c, b, clk := newDriver(t)
	l := acquire(t, c, "A")
	clk.Advance(time.Second)
	l, err := c.Renew(ctx(t), l, ttl)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Release(ctx(t), l); err != nil {
		t.Fatal(err)
	}
	if l2 := acquire(t, c, "B"); l2.Token != 2 {
		t.Fatalf("second acquisition: token %d; want 2", l2.Token)
	}
	if gets, puts := b.Calls(faulty.OpGet), b.Calls(faulty.OpPut); gets != 1 || puts != 4 {
		t.Fatalf("%d GETs and %d PUTs; want 1 and 4", gets, puts)
	}
}

// TestRememberedRecordNotTrusted: what a Driver remembers of a record
// decides nothing on its own. Another driver (another process) changes
// the record in between, and each change is decided on the record as it
// is: a write on the remembered ETag fails and the record is read; a
// refusal on the remembered record is checked against a read.
func TestRememberedRecordNotTrusted(t *testing.T) {
	c1, b, clk := newDriver(t)
	c2 := bucketlease.New(b, &bucketlease.Options{Clock: clk, SkipProbe: true})

	// c1 remembers A's live lease; c2 releases it: c1 sees it free.
	la := acquire(t, c1, "A")
	if err := c2.Release(ctx(t), la); err != nil {
		t.Fatal(err)
	}
	lb, err := c1.TryAcquire(ctx(t), coord.Request{Domain: domain, Holder: "B", TTL: ttl})
	if err != nil || lb.Token != 2 {
		t.Fatalf("TryAcquire on a record c1 remembers held, released since by c2 = %+v, %v; want B with token 2", lb, err)
	}

	// c1 remembers B's lease; c2 takes it over: c1's renewal and release
	// are refused, and c1's acquisition sees C.
	lc, err := c2.TryAcquire(ctx(t), coord.Request{Domain: domain, Holder: "C", TTL: ttl, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c1.Renew(ctx(t), lb, ttl); !errors.Is(err, coord.ErrLeaseLost) {
		t.Fatalf("Renew of a lease taken over since c1 wrote it: %v; want ErrLeaseLost", err)
	}
	_, err = c1.TryAcquire(ctx(t), coord.Request{Domain: domain, Holder: "D", TTL: ttl})
	var he *coord.HeldError
	if !errors.As(err, &he) || he.Holder != "C" || he.Token != lc.Token {
		t.Fatalf("TryAcquire while C holds: %v; want a HeldError naming C with token %d", err, lc.Token)
	}

	// The record is deleted (a destructive reset): c1's write on the
	// ETag it remembers fails, and it acquires from the floor.
	if err := c2.Release(ctx(t), lc); err != nil {
		t.Fatal(err)
	}
	ld := acquire(t, c1, "D")
	if err := c1.Release(ctx(t), ld); err != nil {
		t.Fatal(err)
	}
	wipe(t, c1, domain)
	le, err := c1.TryAcquire(ctx(t), coord.Request{Domain: domain, Holder: "E", TTL: ttl, Floor: 10})
	if err != nil || le.Token != 11 {
		t.Fatalf("TryAcquire after the record was deleted = %+v, %v; want token 11", le, err)
	}
	st, err := c2.State(ctx(t), domain)
	if err != nil || st.Holder != "E" || st.Token != 11 {
		t.Fatalf("State = %+v, %v; want E with token 11", st, err)
	}
}
