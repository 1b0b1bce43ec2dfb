// Package outbox delivers side effects of fenced commits (an email, a
// webhook, a payment request) at least once, with an idempotency key.
//
// Fencing protects only what checks the token: a webhook sent by a holder
// that has lost its lease cannot be taken back by a later rejection. So a
// holder does not send it: it commits an outbox record (a destination and
// a payload) in the same fenced commit as the data it goes with, and
// the record exists exactly when that commit landed. A dispatcher (Dispatch,
// or fence outbox dispatch) takes the domain's lease, delivers each
// pending record, and records the delivery with a fenced commit that
// removes the record. A dispatcher killed at any step loses no record:
// one that was not recorded as delivered is delivered again, by the next
// dispatcher, with the same idempotency key (Record.Key), so a receiver
// that honours the key (an Idempotency-Key header) applies it once.
//
// Records live in the domain as keys under _outbox/pending/, deliveries
// under _outbox/delivered/ (reserved by this package: do not write keys
// there yourself). A record's key sorts by its token, then by the time
// it was added, so records are delivered in that order (not a guarantee
// across failures: a record that fails is retried by a later dispatch).
package outbox
