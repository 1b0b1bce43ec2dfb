package job

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
)

// Cause says why a job's lease ended while its command ran.
type Cause int

// Causes of a LostError.
const (
	// Unproven: no renewal was confirmed in time and the lease record
	// could not be read either (the coordinator is unreachable); the lease
	// may still be live.
	Unproven Cause = iota
	// Expired: the lease expired, or no renewal was confirmed in time
	// and the session gave it up just before it would have; nobody has
	// taken it since.
	Expired
	// Released: the lease was released with its own token by another
	// process ('fence lease release'), and nobody has taken it since.
	Released
	// Broken: a newer token was issued and already released, as
	// fence.Break ('fence lease break') does.
	Broken
	// TakenOver: another holder holds the lease with a newer token.
	TakenOver
)

// LostError reports a lease that ended, or could no longer be proven
// live, while the command ran: the command was stopped and nothing was
// published. It matches coord.ErrLeaseLost.
type LostError struct {
	Lease coord.Lease
	Cause Cause
	// By and Token are, for Broken and TakenOver, the holder of the newer
	// token and that token. By is the holder the store's log records for
	// the fence at Token (for Broken: who broke it), or the lease record's
	// holder; "" when neither says.
	By    string
	Token uint64
	// At is when the newer holder fenced the store, by its clock; zero
	// when the store's log does not say.
	At  time.Time
	Err error // how the job learned of it: the session's end, or the check
}

func (e *LostError) Error() string {
	var what string
	switch e.Cause {
	case Broken:
		what = fmt.Sprintf("lease broken by %s at token %d", e.by(), e.Token)
		if !e.At.IsZero() {
			what += " (" + e.At.UTC().Format(time.RFC3339) + ")"
		}
	case TakenOver:
		what = fmt.Sprintf("lease taken over by %s at token %d", e.by(), e.Token)
		if !e.At.IsZero() {
			what += " (" + e.At.UTC().Format(time.RFC3339) + ")"
		}
	case Released:
		what = "lease released by another process ('fence lease release' with its token)"
	case Expired:
		what = fmt.Sprintf("lease expired (nobody has taken it since): %v", e.Err)
	default:
		what = fmt.Sprintf("lease could no longer be proven live: %v", e.Err)
	}
	return fmt.Sprintf("job: %q (token %d): %s; the command was stopped and nothing was published", e.Lease.Domain, e.Lease.Token, what)
}

func (e *LostError) by() string {
	if e.By == "" {
		return "another holder"
	}
	return fmt.Sprintf("%q", e.By)
}

func (e *LostError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, coord.ErrLeaseLost) true whatever ended the
// lease.
func (e *LostError) Is(target error) bool { return target == coord.ErrLeaseLost }

// explain builds the LostError of lease l from st, the lease record as
// read after the loss (ok false when it could not be read), naming the
// newer holder from the store's log when there is one.
func explain(ctx context.Context, store *objstore.Store, l coord.Lease, st coord.State, ok bool, why error) *LostError {
	e := &LostError{Lease: l, Err: why}
	switch {
	case !ok:
		e.Cause = Unproven
	case st.Token > l.Token:
		e.Cause, e.Token, e.By = TakenOver, st.Token, st.Holder
		if st.Holder == "" {
			e.Cause = Broken
		}
		if rec, found := fenceRecord(ctx, store, l.Domain, st.Token); found {
			e.By, e.At = rec.Holder, rec.Time
		}
	case st.Token == l.Token && st.Holder == "":
		e.Cause = Released
	default:
		e.Cause = Expired
	}
	return e
}

// fenceRecord returns the store's log record of the first commit at
// token in domain: the fence of the holder the token was issued to.
func fenceRecord(ctx context.Context, store *objstore.Store, domain string, token uint64) (objstore.LogRecord, bool) {
	recs, err := store.History(ctx, domain, nil)
	if err != nil && !errors.Is(err, objstore.ErrNotFound) {
		return objstore.LogRecord{}, false
	}
	for _, r := range recs {
		if r.Token == token {
			return r, true
		}
	}
	return objstore.LogRecord{}, false
}
