package observe

import (
	"time"
)

// Outcome is how a commit ended.
type Outcome string

// Commit outcomes.
const (
	// Accepted: the commit landed (Seq says where).
	Accepted Outcome = "accepted"
	// Fenced: the domain's highest token is above the commit's (or equal
	// to it and raised by another commit); nothing was written.
	Fenced Outcome = "fenced"
	// Unknown: the commit may or may not have landed, and could not be
	// settled; retry it with its ID (objstore.UnknownOutcomeError).
	Unknown Outcome = "unknown"
	// Failed: the commit did not land, for another reason (Err).
	Failed Outcome = "failed"
)

// Commit is the end of one Store.Commit (a put, a delete, a fence).
type Commit struct {
	Domain string
	ID     string // the commit id; a retry carries the first attempt's
	Token  uint64
	Holder string
	// Outcome is how it ended; Err is why when it is not Accepted.
	Outcome Outcome
	Err     error
	// Seq is the accepted commit's place in the domain's log.
	Seq uint64
	// Highest is the domain's highest token as the commit found it: the
	// commit's own token once accepted, the newer one when fenced.
	Highest uint64
	// Puts and Deletes count the commit's changes; both are 0 for a
	// fence.
	Puts, Deletes int
	// Fence: a commit without changes that raises the domain's highest
	// token (Store.Fence, and the takeover of fence.Acquire).
	Fence bool
	// Retry: the commit was a retry of an earlier attempt whose outcome
	// was unknown (CommitOptions.ID).
	Retry bool
	// Settled: a write whose outcome was in doubt (a lost reply, a 5xx,
	// or the first attempt of a retry) was settled by reading the
	// manifest back, as landed (Outcome Accepted) or as not landed.
	Settled bool
	// LeaseRemaining is how long the caller's lease had left when the
	// commit started, by the caller's clock (WithLeaseDeadline); 0 when
	// the caller did not say.
	LeaseRemaining time.Duration
	Duration       time.Duration
}

// LeaseEvent names what happened to a lease.
type LeaseEvent string

// Lease events.
const (
	Acquired LeaseEvent = "acquired"
	// Held: another holder's lease is live; Other names it.
	Held     LeaseEvent = "held"
	Renewed  LeaseEvent = "renewed"
	Released LeaseEvent = "released"
	// Lost: the coordinator refused a renewal or release (another holder
	// took over, or the lease expired), or the session could not confirm
	// a renewal in time. Other names the new holder when known.
	Lost LeaseEvent = "lost"
	// CallFailed: the call failed without deciding anything (Err), for
	// example the coordinator did not answer.
	CallFailed LeaseEvent = "failed"
)

// Lease is one lease event at the coordinator.
type Lease struct {
	Event   LeaseEvent
	Domain  string
	Holder  string
	Token   uint64
	Expires time.Time // by the coordinator's clock
	// OtherHolder and OtherToken name the holder whose lease was found
	// live (Held), or the one that holds the lease now (Lost), when
	// known.
	OtherHolder string
	OtherToken  uint64
	Err         error
	Duration    time.Duration
}

// Collect is the end of one Store.Collect.
type Collect struct {
	Domain string
	// Deleted and DeletedBytes count the objects Collect deleted;
	// Scanned, Live, Pending and Kept are as in objstore.CollectResult.
	Deleted                      int
	DeletedBytes                 int64
	Scanned, Live, Pending, Kept int
	Err                          error
	Duration                     time.Duration
}

// System names what a Call went to.
type System string

// Systems.
const (
	Store       System = "store"
	Coordinator System = "coordinator"
)

// Call is one call to the store's backend (get, head, put, delete, list)
// or to the coordinator (acquire, renew, release, state): a round trip,
// or a few for a multipart upload or a paged list.
type Call struct {
	System   System
	Op       string
	Duration time.Duration
	Err      error
}
