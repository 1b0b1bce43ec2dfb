package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
)

func (a *app) leaseCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lease",
		Short: "Acquire, inspect, renew, break and release leases that carry fencing tokens",
		Args:  cobra.NoArgs,
		RunE:  helpOnly,
	}
	cmd.AddCommand(a.leaseAcquireCmd(), a.leaseStatusCmd(), a.leaseRenewCmd(), a.leaseBreakCmd(), a.leaseReleaseCmd())
	return cmd
}

func (a *app) leaseAcquireCmd() *cobra.Command {
	var (
		ttl     time.Duration
		holder  string
		noFence bool
		wait    waitFlag
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "acquire DOMAIN",
		Short: "Take DOMAIN's lease and print its fencing token",
		Long: `acquire takes DOMAIN's lease for --holder and prints the new fencing token
on stdout (with --json: domain, holder, token and expiry).

The token is above every token issued before in DOMAIN and above the
store's highest accepted token for DOMAIN (passed as the floor). Unless
--no-fence, the domain is then fenced at the store with the new token, so
the previous holder's late writes are rejected from now on, even before
this holder writes.

--wait waits for another holder's lease instead of exiting 4: --wait 5m
(or --wait=5m) at most 5 minutes, as for exec; --wait alone without a
limit. The older spelling --wait --timeout 5m still works (--timeout
bounds the whole takeover, with or without --wait).

Exits 4 when another holder's lease is live (with --wait, when it is still
live after the wait's bound). The lease is not renewed: it ends after --ttl
unless released earlier.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// --wait 5m, two words: 5m is among the arguments.
			args, err := wait.takeArg(a.args, args)
			if err != nil {
				return err
			}
			if err := cobra.ExactArgs(1)(cmd, args); err != nil {
				return usage("%v", err)
			}
			domain := args[0]
			if holder == "" {
				holder = defaultHolder()
			}
			store, c, closeAll, err := a.open(cmd, allWrites)
			if err != nil {
				return err
			}
			defer closeAll()
			// --timeout bounds the whole takeover: reading the floor,
			// acquiring and fencing; --wait D, the same (the smaller
			// bound when both are given).
			if wait.max > 0 && (timeout == 0 || wait.max < timeout) {
				timeout = wait.max
			}
			ctx := cmd.Context()
			actx, cancel := ctx, context.CancelFunc(func() {})
			if timeout > 0 {
				actx, cancel = context.WithTimeout(ctx, timeout)
			}
			defer cancel()
			// The command exits now: the lease lives on, unrenewed, until
			// --ttl has passed or it is released.
			l, err := fence.AcquireToken(actx, store, c, domain, &fence.AcquireOptions{Holder: holder, TTL: ttl, Wait: wait.set, NoFence: noFence})
			if err != nil {
				return a.acquireFailed(ctx, c, domain, timeout, err)
			}
			if a.json {
				return a.printJSON(struct {
					Domain  string    `json:"domain"`
					Holder  string    `json:"holder"`
					Token   uint64    `json:"token"`
					Expires time.Time `json:"expires"`
				}{l.Domain, l.Holder, l.Token, l.Expires.UTC()})
			}
			fmt.Fprintln(a.stdout, l.Token)
			return nil
		},
	}
	f := cmd.Flags()
	f.DurationVar(&ttl, "ttl", coord.DefaultTTL, "lease duration")
	f.StringVar(&holder, "holder", "", "holder `NAME` (default <user>@<hostname>)")
	f.BoolVar(&noFence, "no-fence", false, "do not fence the domain at the store with the new token")
	addWaitFlag(f, &wait)
	f.DurationVar(&timeout, "timeout", 0, "give up after this long (0: no limit); --wait --timeout D is the older spelling of --wait D")
	return cmd
}

// acquireFailed turns a failed acquisition into the CLI's error: exit 4
// naming the holder and its expiry when the lease is held.
func (a *app) acquireFailed(ctx context.Context, c *coord.Coordinator, domain string, timeout time.Duration, err error) error {
	var he *coord.HeldError
	errors.As(err, &he)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		// --timeout ran out while waiting: say who still holds it.
		if st, serr := c.State(ctx, domain); serr == nil && st.Holder != "" {
			he = &coord.HeldError{Domain: domain, Holder: st.Holder, Token: st.Token, Expires: st.Expires}
		}
		if he != nil {
			return &exitErr{code: exitHeld, err: fmt.Errorf("lease on %q still held by %q (token %d) until %s after waiting %s",
				domain, he.Holder, he.Token, expiry(he.Expires), timeout)}
		}
		return fail(fmt.Errorf("lease acquire %q: gave up after %s: %w", domain, timeout, err))
	}
	if he != nil && ctx.Err() == nil {
		return &exitErr{code: exitHeld, err: fmt.Errorf("lease on %q is held by %q (token %d) until %s; pass --wait to wait for it",
			domain, he.Holder, he.Token, expiry(he.Expires))}
	}
	if ctx.Err() != nil {
		return &exitErr{code: exitError, err: fmt.Errorf("lease acquire %q: %w", domain, err)}
	}
	return fail(fmt.Errorf("lease acquire %q: %w", domain, err))
}

// expiry formats a lease's expiry for messages, with the time left by
// this machine's clock when it has not passed.
func expiry(t time.Time) string {
	s := t.UTC().Format(time.RFC3339Nano)
	if left := time.Until(t); left > 0 {
		s += fmt.Sprintf(" (in %s)", left.Round(time.Millisecond))
	}
	return s
}

// heldLease returns the lease that release and renew name: DOMAIN,
// --holder (default <user>@<hostname>) and the token from --token, or
// FENCE_TOKEN when the flag is absent; and the coordinator, opened for
// lease writes, with the function that closes it.
func (a *app) heldLease(cmd *cobra.Command, domain, holder string) (coord.Lease, *coord.Coordinator, func(), error) {
	if holder == "" {
		holder = defaultHolder()
	}
	token, err := a.token(cmd)
	if err != nil {
		return coord.Lease{}, nil, nil, err
	}
	_, c, closeAll, err := a.open(cmd, leaseWrites)
	if err != nil {
		return coord.Lease{}, nil, nil, err
	}
	return coord.Lease{Domain: domain, Holder: holder, Token: token}, c, closeAll, nil
}
