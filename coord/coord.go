package coord

import (
	"context"
	"time"
)

// Lease is one holder's time-limited right to write a domain. Token is the
// fencing token: greater than every token issued before in the same domain,
// public so that callers can log it, pass it on and attach it to writes.
type Lease struct {
	Domain  string
	Holder  string
	Token   uint64
	Expires time.Time // by the coordinator's clock; assume bounded skew
}

// State is what a coordinator records for one domain.
type State struct {
	Domain  string
	Holder  string    // empty when nobody holds the lease
	Token   uint64    // the last token issued (0: never acquired)
	Expires time.Time // the holder's expiry; zero when released
}

// Held reports whether a live holder exists at now.
func (s State) Held(now time.Time) bool { return s.Holder != "" && now.Before(s.Expires) }

// Request asks for one acquisition attempt.
type Request struct {
	Domain string
	Holder string
	TTL    time.Duration
	// Floor makes the new token greater than Floor as well as greater than
	// every token the coordinator issued before. Pass the store's highest
	// token so that a wiped coordinator resumes above it.
	Floor uint64
	// Force takes the lease even while another holder's lease is live,
	// with a new token as for any acquisition: that holder's lease ends,
	// and its Renew and Release fail with ErrLeaseLost. Forcing does not
	// stop the old holder's writes: only fencing the store with the new
	// token does, which fence.Break does.
	Force bool
}

// Driver is the narrow interface a lease coordinator's backend
// implements (bucketlease, dynamocoord); users call the Coordinator over
// it. A driver serializes acquisitions per domain and never issues a
// token twice in a domain, across release, expiry, restart and deletion
// of its records (with a Floor). A lease is live while its holder is set
// and the driver's clock is before its Expires; at Expires it is over.
//
// Input is checked: the Coordinator validates every request, lease, TTL
// and domain (ValidateRequest, ValidateLease, ValidateTTL,
// ValidateDomain) before it calls the driver, so drivers must not check
// them again. They keep the checks only they can make, such as refusing
// to go past rules.MaxToken. coordtest.Run is the suite every driver
// passes.
type Driver interface {
	// TryAcquire makes one attempt. It fails with a *HeldError when another
	// holder's lease is live, unless req.Force. A request from the lease's
	// current holder, or one with Force, takes it over with a new token. The returned Expires is exactly what
	// the driver recorded.
	TryAcquire(ctx context.Context, req Request) (Lease, error)
	// Renew extends a live lease to now+ttl, keeping its token. It fails
	// with ErrLeaseLost when the lease expired, was released or was taken
	// over.
	Renew(ctx context.Context, l Lease, ttl time.Duration) (Lease, error)
	// Release ends the lease and keeps the token counter. Releasing a lease
	// that is no longer held (taken over, or already released) fails with
	// ErrLeaseLost; releasing one that expired but was not taken over
	// succeeds.
	Release(ctx context.Context, l Lease) error
	// State reads the domain's current record with a consistent read. A
	// domain never acquired has a zero Token.
	State(ctx context.Context, domain string) (State, error)
}
