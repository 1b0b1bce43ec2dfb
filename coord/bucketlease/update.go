package bucketlease

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/internal/cas"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/rules"
)

// decideFunc returns the record to write in place of cur (the zero record
// when there is none), or an error that ends the update.
type decideFunc func(cur record, now time.Time) (record, error)

// update changes domain's record with the one conditional update that the
// manifest uses too (internal/cas): read the record and its ETag, decide,
// write with If-Match (If-None-Match when there is no record), and read
// and decide again when the write fails. Every write carries a fresh
// attempt id, so a write that failed but landed is recognised in the
// record read back; one that cannot be settled ends with a
// *coord.UnknownOutcomeError.
func (c *Driver) update(ctx context.Context, op, domain string, decide decideFunc) (record, error) {
	if !c.skipProbe {
		// Prove the backend honours conditional writes before the first
		// write to it (once per location and process).
		if _, err := driver.ProbeWith(ctx, c.b, c.probeCache); err != nil {
			return record{}, fmt.Errorf("bucketlease: %s %q: %w", op, domain, err)
		}
	}
	u := &recordUpdate{c: c, op: op, domain: domain, key: rules.SystemKey(domain, RecordName), attempt: rand.Text(), decide: decide}
	up := cas.Update{Key: u.key, ContentType: "application/json"}
	if cur, etag, ok := c.mem.get(u.key); ok {
		// Write on the record of our last write at once (see cache.go).
		u.remembered = true
		err := cas.Run(ctx, c.b, up, cas.Updater[record](u), cur, etag)
		if !errors.Is(err, errStale) {
			return u.next, err
		}
		u.remembered = false
	}
	cur, etag, err := u.Read(ctx)
	if err != nil {
		return record{}, err
	}
	err = cas.Run(ctx, c.b, up, cas.Updater[record](u), cur, etag)
	return u.next, err
}

// recordUpdate is one change's side of the conditional update of a lease
// record.
type recordUpdate struct {
	c               *Driver
	op, domain, key string
	attempt         string
	decide          decideFunc
	next            record
	ambiguous       error // the last write error that may hide a success
	// remembered: the record Decide is given is the Driver's memory of
	// it, not yet read (see cache.go).
	remembered bool
}

func (u *recordUpdate) Read(ctx context.Context) (record, string, error) {
	u.remembered = false
	u.c.mem.forget(u.key)
	cur, etag, err := u.c.read(ctx, u.domain, u.key)
	if err == nil {
		u.c.mem.put(u.key, cur, etag)
	}
	return cur, etag, err
}

func (u *recordUpdate) Decide(_ context.Context, cur record) (cas.Write, bool, error) {
	if cur.Attempt == u.attempt {
		u.next = cur // a write of ours that failed has landed
		return cas.Write{}, true, nil
	}
	next, err := u.decide(cur, u.c.clock.Now())
	if err != nil {
		if u.remembered {
			return cas.Write{}, true, errStale // decide again on the record as it is
		}
		return cas.Write{}, true, err
	}
	next.Domain, next.Attempt = u.domain, u.attempt
	data, err := encodeRecord(next)
	if err != nil {
		return cas.Write{}, true, err
	}
	u.next = next
	return cas.Bytes(data), false, nil
}

func (u *recordUpdate) Wrote(_ context.Context, etag string) { u.c.mem.put(u.key, u.next, etag) }

func (u *recordUpdate) Failed(_ record, err error) {
	u.ambiguous = err
	u.c.mem.forget(u.key)
}

func (u *recordUpdate) Stop(err error) error {
	if u.ambiguous != nil {
		return &coord.UnknownOutcomeError{Op: u.op, Domain: u.domain, Ambiguous: u.ambiguous, Err: err}
	}
	return fmt.Errorf("bucketlease: %s %q: %w", u.op, u.domain, err)
}
