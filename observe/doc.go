// Package observe carries fence's decisions to whoever watches them: every
// commit's outcome, every lease event, every collection, and every call to
// the store and the coordinator with its latency.
//
// The Store (objstore.Options.Observer) and the Coordinator
// (coord.WithObserver) report events to an Observer. Log turns them into
// log/slog records, and the promobs package into Prometheus metrics; Multi
// sends them to several. An Observer is called on the goroutine that made
// the decision, after it was made, so it must be quick and safe for
// concurrent use; it cannot change the outcome.
//
// No event carries a credential: the store and coordinator are named by
// their location (for example "s3://bucket/prefix"), never by a URL with
// its query or user information.
package observe
