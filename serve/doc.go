// Package serve is the operator's read-only view of a fenced store: an
// HTTP handler that renders its domains (holder, token, lease time left,
// last commit, fenced attempts), one domain (lease, keys, history and a
// timeline of token against time) and one commit, as HTML pages built
// with html/template and as JSON at the same paths.
//
// It only reads: the store's objects (GET, HEAD, LIST) and the
// coordinator's lease records (State). It never takes a lease, never
// commits and never deletes, so the reader role of package policy is
// enough to run it.
//
// The first page of domains is the index an operator opens first: it
// names the store and its render time, counts every domain by state
// (Summary) and lists the domains in trouble before the rest, says an
// error that every row shares once (Banner), attributes each last commit
// to the lease holder it was made under (Attribution), and leaves fence's
// own domains out (doctor's scratch domain).
//
// Every request does bounded work: the first page of domains reads at
// most Options.MaxSurvey domains and Options.MaxScan objects, a later
// page walks the store's objects only until it has a page of domains, a
// domain's keys come in pages, the scan for fenced attempts stops after
// a fixed number of version objects and reads at most the newest
// objstore.MaxFencedAttempts records, and each request runs under a
// timeout.
package serve
