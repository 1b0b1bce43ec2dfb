// Package coord issues leases and fencing tokens.
//
// A Coordinator serializes acquisitions of a domain's lease and issues
// each a token greater than every token issued before in that domain,
// across release, expiry, restart and (given a Floor) the loss of its
// records. The token is public: attach (domain, token) to every protected
// write, and let the store reject writes whose token is below the highest
// it has accepted (objstore.Store does). Checking the lease before a write
// is not enough, because the holder can pause between the check and the
// write.
//
// A holder is a Session: it keeps a lease alive in the background and
// cancels its Ctx before the lease can expire, so the holder stops
// starting new work; fencing covers what was already under way.
// fence.Acquire is how a holder gets one: it reads the store's highest
// token as the floor, takes the lease, fences the store and starts the
// Session. Coordinator.TakeLease and NewSession are the two halves
// without the store, for coordinators' own tests and tools.
//
// Waiting and living are separate, as in etcd (Mutex.Lock(ctx) waits,
// concurrency.WithContext bounds the session): TakeLease's ctx bounds the
// wait for a busy lease and nothing else, while NewSession's ctx is the
// session's lifetime. fence.Acquire's ctx is a wait, like TakeLease's;
// its session's lifetime is fence.AcquireOptions.Lifetime.
//
// A Coordinator is a concrete type over a narrow Driver, as objstore.Store
// is over a driver.Backend: the Coordinator checks arguments and applies
// defaults once, and the driver only keeps the records. Drivers:
// coord/bucketlease keeps the lease record as an object in the bucket
// itself, coord/dynamocoord an item in a DynamoDB table. coord/coordtest
// is the conformance suite every driver passes.
//
// # Timing
//
// Expiry is judged by the coordinator's clock (a Clock), so holders need
// clocks that agree within a small fraction of the TTL. Safety never
// depends on it: a holder whose clock lies can only lose liveness, because
// the store rejects its stale writes. The defaults follow the reference:
// a 10s lease (DefaultTTL), renewed every third of it, given up a tenth
// of it before expiry.
//
// # Errors
//
// Test with errors.Is: ErrLeaseHeld (*HeldError names the holder, its
// token and expiry), ErrLeaseLost (the holder must stop writing; it
// matches fence.ErrStale, the one test for "was I fenced?", as
// objstore.ErrFenced does: see the fence package's error table),
// ErrReleased, objstore.ErrInvalid (*InvalidError names the value;
// coord.ErrInvalid is an alias of it, kept for old code), ErrCorruptRecord
// (*CorruptRecordError names the record; nothing is written over it) and
// ErrOutcomeUnknown (*UnknownOutcomeError: a change to a record may have
// applied, and reading it back could not tell).
package coord
