package serve

import (
	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/objstore"
)

// Attribution names the lease holder a commit was made under. A commit's
// own holder (objstore.LogRecord.Holder) is the committing process's
// name, "<user>@<host>" for the CLI, which may not be the lease's holder:
// 'fence lease acquire --holder worker-b' and then 'fence put' as root
// on vm logs the put as root@vm.
type Attribution struct {
	// LeaseHolder is the holder of the commit's token: the one the
	// coordinator's record names when its token is the commit's, else
	// the one the takeover record of that token in the manifest's log
	// names. A takeover by 'fence lease acquire', 'fence exec' or
	// fence.Acquire is logged under the lease's holder; with --no-fence
	// (fence.AcquireOptions.NoFence) it is the first commit at the token
	// that raises the domain, logged under the committing process's name.
	LeaseHolder string `json:"lease_holder"`
	// From says which: "lease" (the coordinator's record now) or
	// "takeover" (the log).
	From string `json:"from"`
}

// attribute returns the lease holder of rec, a record of recs (a
// domain's log, oldest first), where the lease l or the log knows it;
// nil when neither does (the lease has moved on or was released, and
// the token's takeover is older than the log).
func attribute(recs []objstore.LogRecord, rec objstore.LogRecord, l *LeaseStatus) *Attribution {
	if l != nil && l.Token == rec.Token && l.Holder != "" {
		return &Attribution{LeaseHolder: l.Holder, From: "lease"}
	}
	for _, r := range recs {
		if r.Fence && r.Token == rec.Token && r.Holder != "" {
			return &Attribution{LeaseHolder: r.Holder, From: "takeover"}
		}
	}
	return nil
}

// Other reports whether the lease holder differs from the commit's own
// holder, which the page then shows beside it.
func (a *Attribution) Other(holder string) bool { return a != nil && a.LeaseHolder != holder }

// eventBy is attribute for an event of a domain's audit trail, whose
// tenure holds its token's takeover when the log still has it.
func eventBy(e fence.AuditEvent, l *LeaseStatus) *Attribution {
	if l != nil && l.Token == e.Token && l.Holder != "" {
		return &Attribution{LeaseHolder: l.Holder, From: "lease"}
	}
	if e.Kind == "takeover" && e.Holder != "" {
		return &Attribution{LeaseHolder: e.Holder, From: "takeover"}
	}
	if e.Tenure != nil && e.Tenure.Since != nil && e.Tenure.Since.Holder != "" {
		return &Attribution{LeaseHolder: e.Tenure.Since.Holder, From: "takeover"}
	}
	return nil
}

// byText says who made a commit: the lease holder, with the committing
// process beside it when that differs ("worker-b (process root@vm)"),
// or the process alone when the lease holder is not known.
func byText(holder string, a *Attribution) string {
	switch {
	case a == nil:
		return holder + " (the lease holder is not known)"
	case a.Other(holder):
		return a.LeaseHolder + " (process " + holder + ")"
	}
	return holder
}
