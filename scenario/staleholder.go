package scenario

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/fencedstore/fence"
	"strings"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
)

// Defaults of StaleHolderOptions.
const (
	DefaultDomain  = "demo/reports/monthly"
	DefaultKey     = "report.txt"
	DefaultTTL     = time.Second
	DefaultHolderA = "demo-holder-A"
	DefaultHolderB = "demo-holder-B"
)

// StaleHolderOptions tunes StaleHolder. nil means defaults.
type StaleHolderOptions struct {
	// Domain is the ownership domain the two holders compete for.
	// Default DefaultDomain. Tokens keep rising across runs.
	Domain string
	// Key is the key both holders write. Default DefaultKey.
	Key string
	// TTL is the lease duration. Holder B waits for A's lease to expire,
	// so a run takes at least this long. Default DefaultTTL (1s).
	TTL time.Duration
	// HolderA and HolderB name the two holders. Defaults DefaultHolderA
	// and DefaultHolderB.
	HolderA, HolderB string
	// Clock is passed to coord.Acquire. Default: the system clock.
	Clock coord.Clock
	// OnStep, if set, is called with each step as it happens, before
	// StaleHolder returns (for progress output while B waits).
	OnStep func(Step)
}

// Step is one row of the scenario's table.
type Step struct {
	N      int    `json:"step"`
	Holder string `json:"holder,omitempty"` // "A", "B" or "" for the store and the reader
	Event  string `json:"event"`
	Token  uint64 `json:"token"`
}

// Result is what a StaleHolder run did and saw.
type Result struct {
	Domain string `json:"domain"`
	Key    string `json:"key"`
	TokenA uint64 `json:"token_a"`
	TokenB uint64 `json:"token_b"`
	Steps  []Step `json:"steps"`
	// StaleRejected is true when the store rejected A's late write with a
	// fenced error naming A's token and a highest token of at least B's.
	StaleRejected bool `json:"stale_rejected"`
	// Rejection is the store's error for A's write, when it failed.
	Rejection string `json:"rejection,omitempty"`
	// ReaderSawB is true when a reader, after both writes, read exactly
	// B's bytes.
	ReaderSawB bool `json:"reader_saw_b"`
}

// OK reports whether fencing worked: the stale write was rejected and the
// reader saw B's bytes.
func (r Result) OK() bool { return r.StaleRejected && r.ReaderSawB }

// Table renders the steps as a Markdown table like the reference's.
func (r Result) Table() string {
	var b strings.Builder
	b.WriteString("| Step | Event | Token |\n|---|---|---|\n")
	for _, s := range r.Steps {
		fmt.Fprintf(&b, "| %d | %s | %d |\n", s.N, s.Event, s.Token)
	}
	return b.String()
}

// StaleHolder runs the stale-holder scenario against store, with leases
// from c:
//
//  1. holder A acquires the domain's lease (token T) and fences the domain
//     at the store with T;
//  2. A prepares its write and pauses (it blocks; nothing tells it its
//     lease expired);
//  3. holder B acquires, waiting for A's lease to expire, gets a token
//     above T, and fences the domain with it;
//  4. B writes its bytes;
//  5. A wakes and sends its write with token T;
//  6. the store must reject it, naming both tokens;
//  7. a reader reads the key and must see B's bytes.
//
// It returns an error only when a step could not be carried out (the
// store or the coordinator failed); a stale write that the store accepts
// is reported in the Result, whose OK is then false. B's lease is
// released before StaleHolder returns.
func StaleHolder(ctx context.Context, store *objstore.Store, c *coord.Coordinator, opts *StaleHolderOptions) (Result, error) {
	o := withDefaults(opts)
	res := Result{Domain: o.Domain, Key: o.Key}
	step := func(holder, event string, token uint64) {
		s := Step{N: len(res.Steps) + 1, Holder: holder, Event: event, Token: token}
		res.Steps = append(res.Steps, s)
		if o.OnStep != nil {
			o.OnStep(s)
		}
	}

	// Holder A runs in its own goroutine. It acquires, reports its lease,
	// and then pauses: it blocks on wake until B has taken over and
	// written. Its late write's outcome comes back on aDone.
	type aLease struct {
		lease coord.Lease
		err   error
	}
	aAcquired := make(chan aLease, 1)
	wake := make(chan struct{})
	aDone := make(chan error, 1)
	var bodyA []byte
	aCtx, cancelA := context.WithCancel(ctx)
	defer cancelA()
	go func() {
		l, err := takeOver(aCtx, store, c, o.Domain, o.HolderA, o.TTL, o.Clock)
		aAcquired <- aLease{l, err}
		if err != nil {
			return
		}
		bodyA = fmt.Appendf(nil, "written by holder A with token %d\n", l.Token)
		select { // the pause: A sees nothing until it wakes
		case <-wake:
		case <-aCtx.Done():
			aDone <- aCtx.Err()
			return
		}
		_, err = store.Put(aCtx, o.Domain, o.Key, l.Token, bytes.NewReader(bodyA), int64(len(bodyA)))
		aDone <- err
	}()

	var a aLease
	select {
	case a = <-aAcquired:
	case <-ctx.Done():
		return res, ctx.Err()
	}
	if a.err != nil {
		return res, fmt.Errorf("scenario: holder A: %w", a.err)
	}
	res.TokenA = a.lease.Token
	step("A", fmt.Sprintf("Lease granted to holder A; store fenced at %d", a.lease.Token), a.lease.Token)

	// B waits for A's lease to expire, then takes over.
	b, err := takeOver(ctx, store, c, o.Domain, o.HolderB, o.TTL, o.Clock)
	if err != nil {
		return res, fmt.Errorf("scenario: holder B: %w", err)
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = c.Release(rctx, b) // best effort; the lease expires anyway
	}()
	res.TokenB = b.Token
	step("A", "Holder A pauses, lease expires", a.lease.Token)
	step("B", fmt.Sprintf("New lease granted to holder B; store fenced at %d", b.Token), b.Token)

	bodyB := fmt.Appendf(nil, "written by holder B with token %d\n", b.Token)
	cb, err := store.Put(ctx, o.Domain, o.Key, b.Token, bytes.NewReader(bodyB), int64(len(bodyB)))
	if err != nil {
		return res, fmt.Errorf("scenario: holder B's write: %w", err)
	}
	step("B", fmt.Sprintf("Holder B writes %s, store accepts (manifest seq %d)", o.Key, cb.Seq), b.Token)

	close(wake)
	var errA error
	select {
	case errA = <-aDone:
	case <-ctx.Done():
		return res, ctx.Err()
	}
	step("A", "Holder A wakes, sends old work", a.lease.Token)
	var fe *objstore.FencedError
	switch {
	case errA == nil:
		step("", "Store ACCEPTED the old work: fencing failed", a.lease.Token)
	case errors.As(errA, &fe) && fe.Token == a.lease.Token && fe.Highest >= b.Token:
		res.StaleRejected = true
		res.Rejection = errA.Error()
		step("", fmt.Sprintf("Store rejects the old work (token %d < highest %d)", fe.Token, fe.Highest), a.lease.Token)
	case errors.Is(errA, objstore.ErrFenced):
		res.Rejection = errA.Error()
		step("", "Store rejects the old work with unexpected tokens: "+errA.Error(), a.lease.Token)
	default:
		return res, fmt.Errorf("scenario: holder A's late write: %w", errA)
	}

	got, v, err := store.ReadAll(ctx, o.Domain, o.Key)
	if err != nil {
		return res, fmt.Errorf("scenario: reader: %w", err)
	}
	switch {
	case bytes.Equal(got, bodyB):
		res.ReaderSawB = true
		step("", "Reader sees holder B's bytes", v.Token)
	case bytes.Equal(got, bodyA):
		step("", "Reader sees holder A's stale bytes", v.Token)
	default:
		step("", fmt.Sprintf("Reader sees unexpected bytes %q", got), v.Token)
	}
	return res, nil
}

// takeOver acquires domain's lease for holder, waiting for a live lease to
// expire, with the store's highest token as the floor, and fences the
// domain at the store with the new token: the takeover sequence every
// holder should follow.
func takeOver(ctx context.Context, store *objstore.Store, c *coord.Coordinator, domain, holder string, ttl time.Duration, clock coord.Clock) (coord.Lease, error) {
	sess, err := fence.Acquire(ctx, store, c, domain, &fence.AcquireOptions{Holder: holder, TTL: ttl, Wait: true, Clock: clock})
	if err != nil {
		return coord.Lease{}, err
	}
	// The scenario plays each holder's renewals (or their absence) itself.
	return sess.Orphan(), nil
}

func withDefaults(opts *StaleHolderOptions) StaleHolderOptions {
	var o StaleHolderOptions
	if opts != nil {
		o = *opts
	}
	if o.Domain == "" {
		o.Domain = DefaultDomain
	}
	if o.Key == "" {
		o.Key = DefaultKey
	}
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.HolderA == "" {
		o.HolderA = DefaultHolderA
	}
	if o.HolderB == "" {
		o.HolderB = DefaultHolderB
	}
	return o
}
