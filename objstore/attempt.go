package objstore

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
)

// FencedAttempt is a commit or fence that a Store refused as stale, as
// the record the refusing Store wrote says (see Store.FencedAttempts).
type FencedAttempt struct {
	Domain string `json:"domain"`
	// Token is the refused attempt's token; FencedBy the token that
	// refused it: the domain's highest accepted token, or, when Reason
	// is "issued", the newer token the coordinator had issued.
	Token    uint64 `json:"token"`
	FencedBy uint64 `json:"fenced_by"`
	// Reason is "below" (the domain had accepted a higher token),
	// "claimed" (another commit had raised the domain to this very token;
	// ClaimedBy names it) or "issued" (a newer lease existed).
	Reason    string `json:"reason"`
	ClaimedBy string `json:"claimed_by,omitempty"`
	Holder    string `json:"holder"`
	CommitID  string `json:"commit_id,omitempty"`
	// Time is when the attempt was refused, by the refused writer's
	// clock; Recorded is when the record was stored, by the store's
	// clock (the object's modification time).
	Time     time.Time `json:"time"`
	Recorded time.Time `json:"recorded"`
	// Fence is set for an attempt without changes (a takeover's fence).
	Fence bool `json:"fence"`
	// Puts and Deletes count the attempt's changes; PutKeys and
	// DeletedKeys name at most 16 of each, in key order, as the log
	// does; KeysTruncated says some were left out. PutSizes[i] is the
	// size of the value the attempt put to PutKeys[i] (-1 when the
	// writer did not know it).
	Puts          int      `json:"puts"`
	Deletes       int      `json:"deletes"`
	PutKeys       []string `json:"put_keys,omitempty"`
	PutSizes      []int64  `json:"put_sizes,omitempty"`
	DeletedKeys   []string `json:"deleted_keys,omitempty"`
	KeysTruncated bool     `json:"keys_truncated,omitempty"`
	// Object is the record's object key.
	Object string `json:"object"`
	// Error, when set, says why the record's content could not be read;
	// only what its key says (Domain, Token, FencedBy, Object) is known.
	Error string `json:"error,omitempty"`
}

// FencedRecordTimeout bounds the write of one fenced-attempt record. The
// write happens on the refused path only, before Commit returns, so a
// commit that lands never waits for it, and a process that exits after
// its commit was refused does not lose the record.
const FencedRecordTimeout = 2 * time.Second

// recordFenced writes a record of the attempt to commit changes to
// domain under opts, when err, Commit's error, is a refusal as stale
// (a *FencedError that is not an unknown outcome). It is best effort: a
// failure is logged at warn level and changes nothing else. The write
// gets FencedRecordTimeout, even if ctx has ended: a holder whose lease
// context was cancelled is the one whose refusal matters.
func (s *Store) recordFenced(ctx context.Context, domain string, changes []Change, opts *CommitOptions, err error) {
	var (
		fe *FencedError
		uo *UnknownOutcomeError
	)
	if !errors.As(err, &fe) || errors.As(err, &uo) {
		return
	}
	r := fencedRecord(domain, changes, opts, fe, s.opts.Holder, s.opts.Now())
	key := format.FencedKey(format.FencedName{Domain: domain, Token: r.Token, FencedBy: r.FencedBy, ID: newID()})
	body, eerr := format.EncodeFenced(r)
	if eerr == nil {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), FencedRecordTimeout)
		_, eerr = s.b.Put(wctx, key, bytes.NewReader(body), int64(len(body)), driver.PutOptions{Mode: driver.Create{}, ContentType: "application/json"})
		cancel()
	}
	if eerr != nil {
		s.opts.Logger.Warn("objstore: could not record a fenced attempt (the attempt was refused all the same)", "domain", domain, "token", r.Token, "fenced_by", r.FencedBy, "object", key, "err", eerr)
		return
	}
	s.opts.Logger.Debug("objstore: recorded a fenced attempt", "domain", domain, "token", r.Token, "fenced_by", r.FencedBy, "object", key)
}

// fencedRecord describes the refused attempt: fe is its error, holder
// the Store's default holder and now the time of refusal.
func fencedRecord(domain string, changes []Change, opts *CommitOptions, fe *FencedError, holder string, now time.Time) format.FencedRecord {
	r := format.FencedRecord{Domain: domain, Token: fe.Token, FencedBy: fe.Highest, Reason: format.FencedBelow, Holder: holder, CommitID: fe.CommitID, Time: now}
	switch {
	case fe.Issued != 0:
		r.FencedBy, r.Reason = fe.Issued, format.FencedIssued
	case fe.Highest == fe.Token:
		r.Reason, r.ClaimedBy = format.FencedClaimed, fe.ClaimedBy
	}
	if opts != nil {
		if opts.Holder != "" {
			r.Holder = opts.Holder
		}
		if r.CommitID == "" {
			r.CommitID = opts.ID
		}
	}
	var puts []format.FencedPut
	var deletes []string
	for _, ch := range changes {
		if ch.Delete {
			deletes = append(deletes, ch.Key)
		} else {
			puts = append(puts, format.FencedPut{Key: ch.Key, Size: max(ch.Size, -1)})
		}
	}
	r.Puts, r.Deletes = len(puts), len(deletes)
	slices.SortFunc(puts, func(a, b format.FencedPut) int { return strings.Compare(a.Key, b.Key) })
	slices.Sort(deletes)
	r.PutKeys = puts[:min(len(puts), format.LogKeysLimit)]
	r.DeletedKeys = deletes[:min(len(deletes), format.LogKeysLimit)]
	r.KeysTruncated = len(puts) > format.LogKeysLimit || len(deletes) > format.LogKeysLimit
	return r
}
