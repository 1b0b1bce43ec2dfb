package bucketlease

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/fencedstore/fence/rules"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/internal/backoff"
	"github.com/fencedstore/fence/objstore/driver"
)

// Options tunes a Driver. nil or zero fields mean defaults.
type Options struct {
	// Clock judges expiry and stamps it. Default coord.SystemClock. All
	// holders of a domain should have clocks that agree within a small
	// fraction of the lease TTL.
	Clock coord.Clock
	// SkipProbe turns off the capability probe (driver.Probe) that runs
	// before the first write to the backend. Only for stores known to
	// honour conditional writes: on one that ignores them, two holders
	// can both take the lease.
	SkipProbe bool
	// ProbeCache keeps the probe's verdict beyond this process
	// (driver.ProbeWith). Default none.
	ProbeCache driver.VerdictCache
}

// Driver is a coord.Driver that keeps each domain's lease record as an
// object in a driver.Backend and changes it only with conditional writes.
// Wrap it with coord.New, which checks every argument before it reaches
// the driver. It is safe for concurrent use, also by many processes
// sharing the backend.
type Driver struct {
	b          driver.Backend
	clock      coord.Clock
	skipProbe  bool
	probeCache driver.VerdictCache
	mem        memory // the records of the last writes (cache.go)
}

var _ coord.Driver = (*Driver)(nil)

// New returns a Driver over b. opts may be nil. The Driver does not close
// b.
func New(b driver.Backend, opts *Options) *Driver {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Clock == nil {
		o.Clock = coord.SystemClock{}
	}
	return &Driver{b: b, clock: o.Clock, skipProbe: o.SkipProbe, probeCache: o.ProbeCache}
}

// Backend returns the backend the driver writes to.
func (c *Driver) Backend() driver.Backend { return c.b }

// TryAcquire makes one acquisition: it fails with a *coord.HeldError when
// another holder's lease is live (unless req.Force), and otherwise writes a new token,
// max(counter, req.Floor)+1, with req.Holder and an expiry of now+TTL.
// Lost races and conflicts are retried until ctx ends; so is a write whose
// outcome was ambiguous, until reading the record back tells whether it
// landed.
func (c *Driver) TryAcquire(ctx context.Context, req coord.Request) (coord.Lease, error) {
	r, err := c.update(ctx, "acquire", req.Domain, func(cur record, now time.Time) (record, error) {
		if !req.Force && cur.Holder != "" && cur.Holder != req.Holder && now.Before(cur.Expires) {
			return record{}, &coord.HeldError{Domain: req.Domain, Holder: cur.Holder, Token: cur.Token, Expires: cur.Expires}
		}
		base := max(cur.Token, req.Floor)
		if base >= rules.MaxToken {
			return record{}, fmt.Errorf("bucketlease: acquire %q: token %d is the maximum; no higher token can be issued", req.Domain, base)
		}
		return record{Token: base + 1, Holder: req.Holder, Expires: stamp(now, req.TTL)}, nil
	})
	if err != nil {
		return coord.Lease{}, err
	}
	return coord.Lease{Domain: req.Domain, Holder: r.Holder, Token: r.Token, Expires: r.Expires}, nil
}

// Renew extends l to now+ttl if l's holder still holds it with l's token
// and it has not expired; otherwise it fails with coord.ErrLeaseLost,
// saying who holds the lease now.
func (c *Driver) Renew(ctx context.Context, l coord.Lease, ttl time.Duration) (coord.Lease, error) {
	r, err := c.update(ctx, "renew", l.Domain, func(cur record, now time.Time) (record, error) {
		if err := owns(cur, l); err != nil {
			return record{}, err
		}
		if !now.Before(cur.Expires) {
			return record{}, lost(l, fmt.Sprintf("it expired at %s", formatTime(cur.Expires)))
		}
		cur.Expires = stamp(now, ttl)
		return cur, nil
	})
	if err != nil {
		return coord.Lease{}, err
	}
	l.Expires = r.Expires
	return l, nil
}

// Release clears l's holder and keeps the counter, so the next token is
// higher. A lease that expired but was not taken over is released too;
// one that was taken over or already released fails with
// coord.ErrLeaseLost.
func (c *Driver) Release(ctx context.Context, l coord.Lease) error {
	_, err := c.update(ctx, "release", l.Domain, func(cur record, _ time.Time) (record, error) {
		if err := owns(cur, l); err != nil {
			return record{}, err
		}
		cur.Holder, cur.Expires = "", time.Time{}
		return cur, nil
	})
	return err
}

// State reads domain's lease record. A domain without one has a zero
// Token.
func (c *Driver) State(ctx context.Context, domain string) (coord.State, error) {
	r, _, err := c.read(ctx, domain, rules.SystemKey(domain, RecordName))
	if err != nil {
		return coord.State{}, err
	}
	return coord.State{Domain: domain, Holder: r.Holder, Token: r.Token, Expires: r.Expires}, nil
}

// read returns domain's record and its ETag, or the zero record and ""
// when there is none. Transient errors are retried until ctx ends.
func (c *Driver) read(ctx context.Context, domain, key string) (record, string, error) {
	var bo backoff.Backoff
	for {
		r, etag, err := c.readOnce(ctx, domain, key)
		if err == nil || errors.Is(err, coord.ErrCorruptRecord) || ctx.Err() != nil {
			return r, etag, err
		}
		if werr := bo.Wait(ctx); werr != nil {
			return record{}, "", fmt.Errorf("bucketlease: read %q: %w (last error: %w)", key, werr, err)
		}
	}
}

func (c *Driver) readOnce(ctx context.Context, domain, key string) (record, string, error) {
	rc, info, err := c.b.Get(ctx, key, driver.GetOptions{})
	if errors.Is(err, driver.ErrNotFound) {
		return record{}, "", nil
	}
	if err != nil {
		return record{}, "", fmt.Errorf("bucketlease: read %q: %w", key, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxRecordSize+1))
	if err != nil {
		return record{}, "", fmt.Errorf("bucketlease: read %q: %w", key, err)
	}
	if len(data) > maxRecordSize {
		return record{}, "", &coord.CorruptRecordError{Key: key, Reason: fmt.Sprintf("larger than %d bytes", maxRecordSize)}
	}
	r, err := decodeRecord(domain, key, data)
	if err != nil {
		return record{}, "", err
	}
	if info.ETag == "" {
		// Without an ETag the next write could not be conditional.
		return record{}, "", fmt.Errorf("bucketlease: read %q: the backend returned no ETag, so the record cannot be updated safely", key)
	}
	return r, info.ETag, nil
}

// owns fails with coord.ErrLeaseLost unless cur is l's holder with l's
// token.
func owns(cur record, l coord.Lease) error {
	switch {
	case cur.Holder == l.Holder && cur.Token == l.Token:
		return nil
	case cur.Token == 0:
		return lost(l, "the domain has no lease record")
	case cur.Holder == "":
		return lost(l, fmt.Sprintf("it was released (last token %d)", cur.Token))
	default:
		return lost(l, fmt.Sprintf("it is held by %q with token %d until %s", cur.Holder, cur.Token, formatTime(cur.Expires)))
	}
}

func lost(l coord.Lease, detail string) error {
	return fmt.Errorf("bucketlease: lease on %q (holder %q, token %d): %w: %s", l.Domain, l.Holder, l.Token, coord.ErrLeaseLost, detail)
}

// stamp returns now+ttl as it reads back from a record: UTC, no monotonic
// reading.
func stamp(now time.Time, ttl time.Duration) time.Time { return now.Add(ttl).Round(0).UTC() }

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
