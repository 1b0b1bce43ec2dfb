// Package bucketlease is a coord.Driver that keeps each domain's lease
// record as an object in the bucket itself, updated only by conditional
// writes. It needs nothing but a driver.Backend that honours If-Match and
// If-None-Match, which makes it the embedded default and the choice for
// MinIO without DynamoDB. Users wrap it with coord.New:
//
//	c := coord.New(bucketlease.New(backend, nil))
//
// # Record
//
// The record of domain d is the object rules.SystemKey(d, "lease.json"):
//
//	{"format":"fence.lease/v1","domain":"reports/monthly","token":42,
//	 "holder":"host-1/4711","expires":"2026-01-01T00:00:10.5Z","attempt":"..."}
//
// token is the domain's counter, the last token issued; it only grows.
// holder "" (with expires "") means released. attempt is a random id
// unique to each write: it lets a writer whose reply was lost recognise
// its own write, and makes every write's content (and so its ETag)
// different. Never delete a record to reset a domain: that resets the
// counter. If it happens, acquire with a Floor (the store's highest token)
// so the counter resumes above it.
//
// # Writes
//
// Every change reads the record and its ETag and writes the next record
// with If-Match (If-None-Match when there is none). A Driver remembers
// the record and ETag of its own last write, and its next change of that
// record writes on them at once, without the read: one request, when no
// other process wrote the record in between. A decision to refuse (a
// live holder, a lost lease) is only ever taken on a record just read.
// A lost race (412) re-reads and decides again; a 409 conflict backs off
// with jitter first. Any other write error may hide a write that landed:
// the driver reads the record back and counts the write as done if
// it carries the write's attempt id. When that cannot be settled before
// the caller's context ends or the retries run out (10 pauses, about 4 s)
// the error is a *coord.UnknownOutcomeError (coord.ErrOutcomeUnknown): an
// acquisition may then have landed, and its lease simply expires. No call has a deadline of its own; the
// backend's per-request timeouts bound each round trip.
//
// # Corrupt records
//
// A record that is empty, not JSON, of an unknown format, of another
// domain, with unknown fields, or with a holder but token 0, fails every
// call with an error matching coord.ErrCorruptRecord that names the
// object. Nothing is ever written over it; an operator must repair or
// remove it (and then acquire with a Floor).
package bucketlease
