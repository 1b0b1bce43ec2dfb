// Package scenario runs fence's demonstrations as ordinary library calls,
// so that the CLI, tests and users run exactly the same code.
//
// StaleHolder is the scenario of the reference document "Fencing and
// Leases": holder A takes a lease and pauses past its expiry, holder B
// takes the lease with a higher token, fences the domain and writes, A
// wakes and writes with its old token, the store rejects A, and a reader
// sees B's bytes.
//
//	b := memstore.New()
//	store := objstore.New(b, nil)
//	res, err := scenario.StaleHolder(ctx, store, coord.New(bucketlease.New(b, nil)), nil)
//	if err != nil { ... }
//	fmt.Print(res.Table())
//	if !res.OK() { ... } // the store accepted a stale write: fencing failed
package scenario
