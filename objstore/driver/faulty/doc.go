// Package faulty wraps any driver.Backend so that tests can make it
// misbehave on purpose: delay or pause a call, fail it, or apply it and
// then lose or replace its reply. It makes races and lost replies
// deterministic, over memstore as over MinIO or S3, and a backend
// author's own tests can use it with drivertest and objstoretest.
//
//	b := faulty.New(memstore.New())
//	b.Add(faulty.Once(faulty.OpPut, faulty.Manifest("d"),
//		faulty.Fault{DropReply: true}))
//
// Manifest names a domain's manifest without knowing fence's layout. To
// put a Backend under the Store that config.Open returns, pass Into as
// config.OpenOptions.WrapBackend:
//
//	var fb *faulty.Backend
//	o, err := config.Open(ctx, url, &config.OpenOptions{WrapBackend: faulty.Into(&fb)})
//
// # Rules
//
// Add installs rules. Each call to the Backend is checked against the
// rules in the order they were added, and the first that matches and
// has not run out decides the call's Fault; a call no rule matches runs
// normally. A rule matches by operation, key, put mode and an optional
// predicate, can let its first Skip matches through, and fires once
// unless Every is set. A rule with Func decides the fault of each call
// it matches with arbitrary code, which may call the Backend itself
// (Add or Clear included).
//
// # Faults
//
// The parts of a Fault take effect in this order, and what the caller
// sees tells it whether the call was applied:
//
//   - Delay waits, then Pause blocks until its channel is closed. If the
//     call's context ends first, the call returns the context's error
//     and is not applied.
//   - Err fails the call without applying it.
//   - The call runs on the wrapped backend. If it fails, its own error is
//     returned and nothing below happens.
//   - Then runs: the call was applied, its reply not yet returned.
//   - DropReply returns an error matching ErrReplyDropped, and ErrAfter
//     returns its error, instead of the reply. Either way the call was
//     applied: a caller that gets ErrReplyDropped, or an ErrAfter such
//     as a 503 (HTTPError), cannot tell from the error alone, and must
//     read back to learn the outcome.
//
// # Errors
//
// Injected errors, and a context's error during Delay or Pause, are
// returned wrapped with the operation and key, so errors.Is and errors.As
// still see them. ErrReplyDropped matches none of the driver error
// classes, so a Store treats it as ambiguous; HTTPError matches the class
// its status stands for.
//
// A Backend is safe for concurrent use, and so are its rules: Match and
// Func are called from every goroutine that calls the Backend.
package faulty
