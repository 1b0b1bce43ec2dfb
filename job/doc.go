// Package job runs a command under a lease, for batch jobs that are not
// written in Go: what `fence exec` does.
//
// Run takes the domain's lease with fencing on takeover (fence.Acquire),
// keeps it alive in the background, and runs the command in its own
// process group with FENCE_DOMAIN, FENCE_TOKEN and FENCE_HOLDER set, so
// that the command's own `fence put` calls carry the token and are fenced
// too. The command's parent is not Run's process but a supervisor, a
// second instance of the running program (os.Executable, re-executed with
// arguments that package job's init recognises, so that any program that
// imports job can run one without a hook in its main): when Run's process
// ends for any reason, SIGKILL included, the supervisor sees a pipe close
// and kills the command's whole process group.
// When the lease can no longer be proven live while the command runs
// (the coordinator refused a renewal, or none was confirmed in time), or
// a read of the lease record (one every Options.CheckEvery, whatever the
// TTL) shows it broken or taken over, the whole group gets SIGTERM, then
// SIGKILL after a grace period, nothing is published, and the
// *LostError says what happened and who did it.
// Signals given to Run are forwarded to the group; the first one starts
// the grace period, after which what still runs in the group gets
// SIGKILL, and once one has come nothing is published. When the command exits
// 0, Run can publish a directory as one fenced commit, so that a report
// set appears whole or not at all; the store, not the lease's clock,
// decides that commit: it lands unless a newer holder has fenced the
// domain, which is a *objstore.FencedError and publishes nothing.
// Finally the lease is released.
//
// # Timing
//
// Safety never depends on a clock: a command that outlives its lease (a
// stopped VM, a paused process group) can still only write through the
// store, which rejects its token once a newer holder has fenced the
// domain. Liveness does: the session gives a lease up a tenth of its TTL
// before it could expire, and the command is then stopped; a break or a
// takeover is noticed at the next check, CheckEvery at most after it.
package job
