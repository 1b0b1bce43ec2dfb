// Package testhook holds switches that deliberately break a guarantee,
// for the fault suite's negative controls (integration/faults): each
// control turns one on in its writer processes, and the suite's checks
// must catch what follows. Internal to the module, so no program outside
// it can reach them; nothing in a production path sets them.
package testhook

import "sync/atomic"

// SkipReceiptCheck, once set, makes every objstore.Store in the process
// publish the receipts a commit is given (objstore.PutReceipt) without
// checking them: neither their domain and token against the commit's nor
// their version objects against the store. For the control
// control-staged-skip-check only.
var SkipReceiptCheck atomic.Bool
