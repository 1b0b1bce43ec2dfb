package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
)

// DispatchOptions tunes Dispatch. nil or zero fields mean defaults.
type DispatchOptions struct {
	// Holder, TTL and Wait are those of the dispatcher's lease
	// (fence.AcquireOptions).
	Holder string
	TTL    time.Duration
	Wait   bool
	// Limit is the most records delivered in one run; 0 means all.
	Limit int
	// Hooks are called at each step of a record's delivery.
	Hooks Hooks
}

// Hooks observe Dispatch's steps. Each may be nil. They are called on
// Dispatch's goroutine; a test can end the process in one to see what a
// dispatcher killed at that step leaves.
type Hooks struct {
	Acquired   func(token uint64) // the lease is held
	Delivering func(r Record)     // about to deliver
	Delivered  func(r Record)     // the Deliverer returned success
	Recorded   func(r Record)     // the delivery's commit landed
}

// Failure is a record whose delivery failed in this run; it stays
// pending.
type Failure struct {
	Name string
	Key  string
	Err  error
}

// DispatchResult says what one Dispatch did.
type DispatchResult struct {
	Token     uint64 // the dispatcher's lease token
	Delivered int
	Failed    []Failure
	// Left counts the records still pending when it stopped (failed ones
	// included; past Limit ones too).
	Left int
}

// Dispatch delivers domain's pending outbox records with d, at least once
// each: it takes the domain's lease (fencing the previous holder, as
// fence.Acquire does; with opts.Wait it waits for a live one), and for
// each record, oldest first, delivers it and then records the delivery
// with a fenced commit that removes the record and keeps a Delivery under
// DeliveredPrefix. A record whose delivery fails stays pending. A record
// delivered but not recorded (the dispatcher died, or its commit was
// fenced or its outcome unknown) is delivered again by a later dispatch,
// with the same Key.
//
// Dispatch returns an error when the lease cannot be taken or is lost, or
// a commit fails; the records before it are recorded.
func Dispatch(ctx context.Context, store *objstore.Store, c *coord.Coordinator, domain string, d Deliverer, opts *DispatchOptions) (res DispatchResult, err error) {
	var o DispatchOptions
	if opts != nil {
		o = *opts
	}
	// ctx's end ends the dispatch, the session included (Lifetime).
	sess, err := fence.Acquire(ctx, store, c, domain, &fence.AcquireOptions{Holder: o.Holder, TTL: o.TTL, Wait: o.Wait, Lifetime: ctx})
	if err != nil {
		return res, fmt.Errorf("outbox: dispatch %q: %w", domain, err)
	}
	defer func() { _ = sess.Release(context.WithoutCancel(ctx)) }()
	res.Token = sess.Lease().Token
	if o.Hooks.Acquired != nil {
		o.Hooks.Acquired(res.Token)
	}
	h := fence.NewHolder(sess, store)
	pending, err := store.List(sess.Ctx(), domain, &objstore.ListOptions{Prefix: PendingPrefix})
	defer func() { res.Left = len(pending) - res.Delivered }() // on every return, errors too
	if err != nil && !errors.Is(err, objstore.ErrNotFound) {
		return res, fmt.Errorf("outbox: dispatch %q: list the outbox: %w", domain, err)
	}
	for _, v := range pending {
		if o.Limit > 0 && res.Delivered+len(res.Failed) >= o.Limit {
			break
		}
		name := strings.TrimPrefix(v.Key, PendingPrefix)
		data, _, err := store.ReadAll(sess.Ctx(), domain, v.Key)
		if err != nil {
			return res, fmt.Errorf("outbox: dispatch %q: read record %s: %w", domain, name, err)
		}
		rec, err := decode(domain, name, data)
		if err != nil {
			res.Failed = append(res.Failed, Failure{Name: name, Err: err})
			continue
		}
		if o.Hooks.Delivering != nil {
			o.Hooks.Delivering(rec)
		}
		if err := d.Deliver(sess.Ctx(), rec); err != nil {
			if cause := sess.Err(); cause != nil {
				return res, fmt.Errorf("outbox: dispatch %q: stopped at record %s: %w", domain, name, cause)
			}
			res.Failed = append(res.Failed, Failure{Name: name, Key: rec.Key, Err: err})
			continue
		}
		if o.Hooks.Delivered != nil {
			o.Hooks.Delivered(rec)
		}
		mark, err := json.Marshal(Delivery{Format: deliveredFormat, Key: rec.Key, Destination: rec.Destination, Token: rec.Token, DeliveredAt: time.Now().UTC(), ByToken: res.Token})
		if err != nil {
			return res, err
		}
		if _, err := h.Commit(ctx, []objstore.Change{objstore.DeleteKey(v.Key), objstore.PutBytes(DeliveredPrefix+name, mark)}, nil); err != nil {
			return res, fmt.Errorf("outbox: dispatch %q: record the delivery of %s (key %s; a later dispatch delivers it again, with the same key): %w", domain, name, rec.Key, err)
		}
		res.Delivered++
		if o.Hooks.Recorded != nil {
			o.Hooks.Recorded(rec)
		}
	}
	return res, nil
}

// Pending returns domain's pending records, oldest first.
func Pending(ctx context.Context, store *objstore.Store, domain string) ([]Record, error) {
	var out []Record
	err := each(ctx, store, domain, PendingPrefix, func(name string, data []byte) error {
		r, err := decode(domain, name, data)
		out = append(out, r)
		return err
	})
	return out, err
}

// Deliveries returns the deliveries domain's outbox has recorded.
func Deliveries(ctx context.Context, store *objstore.Store, domain string) ([]Delivery, error) {
	var out []Delivery
	err := each(ctx, store, domain, DeliveredPrefix, func(name string, data []byte) error {
		var dl Delivery
		if err := json.Unmarshal(data, &dl); err != nil || dl.Format != deliveredFormat {
			return fmt.Errorf("outbox: delivery %s%s in %q is not a %s record", DeliveredPrefix, name, domain, deliveredFormat)
		}
		out = append(out, dl)
		return nil
	})
	return out, err
}

// each calls fn with the name (below prefix) and bytes of every live key
// of domain under prefix, in key order.
func each(ctx context.Context, store *objstore.Store, domain, prefix string, fn func(name string, data []byte) error) error {
	vs, err := store.List(ctx, domain, &objstore.ListOptions{Prefix: prefix})
	if err != nil {
		return err
	}
	for _, v := range vs {
		data, _, err := store.ReadAll(ctx, domain, v.Key)
		if err != nil {
			return err
		}
		if err := fn(strings.TrimPrefix(v.Key, prefix), data); err != nil {
			return err
		}
	}
	return nil
}
