// Package fence ties a lease coordinator to a fenced store. Acquire is the
// takeover sequence every holder follows, and returns the holder's one
// object, a *coord.Session that renews the lease in the background;
// NewHolder binds it to a store, so that every write carries the lease's
// domain and token and stops when the session ends. The two halves live
// in their own packages: coord issues leases and fencing tokens, objstore
// enforces the tokens at the store; config.Open opens both from URLs.
//
//	o, err := config.Open(ctx, "file:///var/lib/reports", nil)
//	...
//	wctx, cancel := context.WithTimeout(ctx, 2*time.Second) // bounds the wait only
//	sess, err := fence.Acquire(wctx, o.Store, o.Coordinator, "reports/monthly", &fence.AcquireOptions{Wait: true})
//	cancel()
//	...
//	defer sess.Release(context.WithoutCancel(ctx))
//	h := fence.NewHolder(sess, o.Store)
//	_, err = h.Put(ctx, "summary.csv", body, size)
//
// # Waiting and living
//
// Acquire's ctx bounds the acquisition: the wait for a busy lease (with
// AcquireOptions.Wait), the floor reads and the fence. It never ends the
// session Acquire returns, which lives until Release, Orphan, the loss of
// the lease, or the end of AcquireOptions.Lifetime when one is given.
// AcquireToken takes the lease for a token that leaves the process (a
// script's, as `fence lease acquire` does), with no session.
//
// # Errors
//
// One test answers "was I fenced?", whatever the layer: errors.Is(err,
// fence.ErrStale). Test objstore.ErrOutcomeUnknown before it: a commit
// whose outcome is unknown may have landed, and its retry
// (*objstore.UnknownOutcomeError.Retry) settles it, even when the session
// has ended meanwhile. The situations, the error each layer returns (the
// same for Holder, HolderWriter, Store and objstore.Writer, where the
// layer can meet the situation), what it matches, and the exit code of
// the fence command:
//
//	situation | error                          | errors.Is                                     | exit
//	fenced    | *objstore.FencedError          | fence.ErrStale, objstore.ErrFenced            | 3
//	lost      | coord.ErrLeaseLost             | fence.ErrStale, coord.ErrLeaseLost            | 5
//	unknown   | *objstore.UnknownOutcomeError  | objstore.ErrOutcomeUnknown                    | 1
//	released  | coord.ErrReleased              | coord.ErrReleased                             | 1
//	held      | *coord.HeldError               | coord.ErrLeaseHeld                            | 4
//	invalid   | *objstore.InvalidError         | objstore.ErrInvalid                           | 2
//
// Where each situation arises:
//
//   - fenced: the store accepted a newer token in the domain (another
//     holder took over) and rejected this write; nothing of it is
//     visible. The *objstore.FencedError names both tokens. Holder,
//     HolderWriter (at Close), Store and objstore.Writer (at Close).
//   - lost: the session ended because the lease may be lost (a renewal
//     refused or not confirmed in time, or a Break), and a Holder or
//     HolderWriter refused the write, or abandoned it before anything was
//     published. The message names the domain and the token, then the
//     cause, the same from run to run. A Store has no session: its writes
//     with an old token land until a newer token is accepted (which is
//     safe: nobody else wrote), then are fenced.
//   - unknown: the commit may have landed; retry it with Retry's options.
//   - released: the holder's own Release ended the session; it is not
//     stale.
//   - held: Acquire without Wait found another holder's live lease.
//   - invalid: an argument was rejected before anything was sent, by
//     whichever package; coord.ErrInvalid is an alias of
//     objstore.ErrInvalid.
//
// TestErrorTable drives each layer into each situation and checks this
// table; cmd/fence's TestExitCodesMatchErrorTable checks its last column.
//
// # Injecting faults
//
// To see an unknown outcome and its Retry (or any other fault) on a real
// backend, wrap the backend config.Open opens with faulty, and name a
// domain's manifest with faulty.Manifest:
//
//	var fb *faulty.Backend
//	o, err := config.Open(ctx, url, &config.OpenOptions{WrapBackend: faulty.Into(&fb)})
//	...
//	fb.Add(faulty.Once(faulty.OpPut, faulty.Manifest("reports"), faulty.Fault{DropReply: true}))
//
// Example_unknownOutcome runs it to the end.
package fence
