// Package model holds a Promela model of fence's commit protocol and a
// test that checks it exhaustively with the spin model checker.
//
// The model (fence.pml, gc.pml, group.pml, and the scenarios commit.pml,
// takeover.pml and merged.pml) covers one domain's manifest, conditional
// writes whose replies may be lost or ambiguous and whose requests may
// still land later, commit attempts with their read-back, retries
// carrying After, group commit's merged writes (several commits of one
// Store in one conditional write, each settled on its own), takeovers
// (fences) with the equal-token rule, the coordinator's token counter
// and its wipe, and garbage collection working from a stale manifest. The invariants are: no stale write lands, no acknowledged
// write is lost (the manifest only names objects that exist), no commit
// is applied twice, every outcome is honest, and at most one holder takes
// over at any token.
//
// The test runs spin on the correct model, which must pass with a
// complete search, and on controls (today's GC, a retry without After,
// the old equal-token fence, a 409 taken as "nothing applied", a merged
// write that mixes tokens, and others), each of which must fail. It skips when spin is not installed,
// unless FENCE_TEST_SPIN=1. See docs/model.md.
package model
