package fence

import "github.com/fencedstore/fence/rules"

// ErrStale answers "was I fenced?": the caller is no longer provably the
// holder of its lease, so it must stop writing. Every stale-holder path
// matches it, whichever layer found out: a *objstore.FencedError (the
// store accepted a newer token; it names both), coord.ErrLeaseLost (the
// session ended because the lease may be lost; nothing was written), a
// Holder's, a Store's or a Writer's alike. The package documentation has
// the table of situations and errors.
var ErrStale = rules.ErrStale
