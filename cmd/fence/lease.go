package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
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
		wait    bool
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

Exits 4 when another holder's lease is live (with --wait, when it is still
live after --timeout). The lease is not renewed: it ends after --ttl unless
released earlier.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
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
			// acquiring and fencing.
			ctx := cmd.Context()
			actx, cancel := ctx, context.CancelFunc(func() {})
			if timeout > 0 {
				actx, cancel = context.WithTimeout(ctx, timeout)
			}
			defer cancel()
			sess, err := fence.Acquire(actx, store, c, domain, &fence.AcquireOptions{Holder: holder, TTL: ttl, Wait: wait, NoFence: noFence})
			if err != nil {
				return a.acquireFailed(ctx, c, domain, timeout, err)
			}
			// The command exits now: the lease lives on, unrenewed, until
			// --ttl has passed or it is released.
			l := sess.Orphan()
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
	f.BoolVar(&wait, "wait", false, "wait for another holder's lease to end instead of exiting 4")
	f.DurationVar(&timeout, "timeout", 0, "give up after this long (0: no limit)")
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

func (a *app) leaseReleaseCmd() *cobra.Command {
	var holder string
	cmd := &cobra.Command{
		Use:   "release DOMAIN --token N",
		Short: "End a lease early, keeping the token counter",
		Long: `release ends the lease on DOMAIN that --holder holds with token N (from
--token, or FENCE_TOKEN when the flag is absent). The next acquisition
gets a higher token. Releasing a lease that expired, was released or was
taken over fails with exit 1.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			domain := args[0]
			if holder == "" {
				holder = defaultHolder()
			}
			token, err := a.token(cmd)
			if err != nil {
				return err
			}
			_, c, closeAll, err := a.open(cmd, leaseWrites)
			if err != nil {
				return err
			}
			defer closeAll()
			err = c.Release(cmd.Context(), coord.Lease{Domain: domain, Holder: holder, Token: token})
			if errors.Is(err, coord.ErrLeaseLost) {
				// Exit 1, not exitLost: scripts written before exit 5
				// existed test release for 1.
				return &exitErr{code: exitError, err: fmt.Errorf("lease release %q: %q does not hold the lease with token %d (it expired, was released or was taken over): %w", domain, holder, token, err)}
			}
			if err != nil {
				return fail(fmt.Errorf("lease release %q: %w", domain, err))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.String("token", "", "the lease's fencing token `N` (env "+envToken+")")
	f.StringVar(&holder, "holder", "", "holder `NAME` (default <user>@<hostname>)")
	return cmd
}

// fenced formats a rejected write's error (exit 3), naming both tokens.
func fenced(op string, err error) error {
	var fe *objstore.FencedError
	if errors.As(err, &fe) {
		var why string
		switch {
		case fe.Issued != 0:
			why = fmt.Sprintf("the coordinator has issued token %d for domain %q since", fe.Issued, fe.Domain)
		case fe.Token == fe.Highest:
			why = fmt.Sprintf("another acquisition already claimed it in domain %q (the coordinator issued it twice)", fe.Domain)
		default:
			why = fmt.Sprintf("the domain %q has accepted token %d", fe.Domain, fe.Highest)
		}
		return &exitErr{code: exitFenced, err: fmt.Errorf("%s rejected: token %d is fenced: %s; acquire a new lease", op, fe.Token, why)}
	}
	return fail(fmt.Errorf("%s: %w", op, err))
}

// coordReads opens the store and the coordinator to read them only.
var coordReads = access{coord: true}

func (a *app) leaseStatusCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "status DOMAIN",
		Short: "Show DOMAIN's lease holder, token and expiry, and the store's highest token",
		Long: `status prints what the coordinator records for DOMAIN (holder, token,
expiry and the time left by this machine's clock, and whether the lease
is live by that clock) and the store's highest accepted token for DOMAIN.
With --json it prints them as one JSON object. Exits 0 whether the lease
is held or not; a domain whose lease was never acquired is reported as
such.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			domain := args[0]
			store, c, closeAll, err := a.open(cmd, coordReads)
			if err != nil {
				return err
			}
			defer closeAll()
			st, err := c.State(cmd.Context(), domain)
			if err != nil {
				return fail(fmt.Errorf("lease status %q: %w", domain, err))
			}
			highest, err := store.Highest(cmd.Context(), domain)
			if err != nil {
				return fail(fmt.Errorf("lease status %q: read the store's highest token: %w", domain, err))
			}
			return a.printStatus(st, highest, time.Now())
		},
	}
}

// leaseStatus is the JSON of 'lease status'.
type leaseStatus struct {
	Domain   string     `json:"domain"`
	Acquired bool       `json:"acquired"` // false: the lease was never acquired
	Holder   string     `json:"holder"`   // "" when released or never acquired
	Token    uint64     `json:"token"`    // the last token issued
	Expires  *time.Time `json:"expires,omitempty"`
	// TimeLeft is the time to the expiry by this machine's clock, in
	// seconds; negative once it passed.
	TimeLeft     *float64 `json:"time_left_seconds,omitempty"`
	Live         bool     `json:"live"`
	StoreHighest uint64   `json:"store_highest_token"`
}

func (a *app) printStatus(st coord.State, highest uint64, now time.Time) error {
	s := leaseStatus{Domain: st.Domain, Acquired: st.Token != 0, Holder: st.Holder, Token: st.Token, Live: st.Held(now), StoreHighest: highest}
	if st.Holder != "" {
		exp, left := st.Expires.UTC(), st.Expires.Sub(now).Seconds()
		s.Expires, s.TimeLeft = &exp, &left
	}
	if a.json {
		return a.printJSON(s)
	}
	w := a.stdout
	fmt.Fprintf(w, "domain         %s\n", s.Domain)
	switch {
	case !s.Acquired:
		fmt.Fprintln(w, "lease          never acquired")
	case s.Holder == "":
		fmt.Fprintf(w, "lease          released (last token %d)\n", s.Token)
	default:
		live := "yes"
		if !s.Live {
			live = "no: expired by this machine's clock"
		}
		fmt.Fprintf(w, "holder         %s\n", s.Holder)
		fmt.Fprintf(w, "token          %d\n", s.Token)
		fmt.Fprintf(w, "expires        %s (%s)\n", s.Expires.Format(time.RFC3339Nano), timeLeft(st.Expires.Sub(now)))
		fmt.Fprintf(w, "live           %s\n", live)
	}
	fmt.Fprintf(w, "store highest  %d\n", s.StoreHighest)
	return nil
}

// timeLeft says how far an expiry is from now.
func timeLeft(d time.Duration) string {
	if d > 0 {
		return "in " + d.Round(time.Millisecond).String()
	}
	return (-d).Round(time.Millisecond).String() + " ago"
}

func (a *app) leaseRenewCmd() *cobra.Command {
	var (
		ttl    time.Duration
		holder string
	)
	cmd := &cobra.Command{
		Use:   "renew DOMAIN --token N",
		Short: "Extend a live lease by --ttl, keeping its token",
		Long: `renew extends the lease on DOMAIN that --holder holds with token N (from
--token, or FENCE_TOKEN when the flag is absent) to now + --ttl, and
prints the new expiry (with --json: domain, holder, token and expiry).

Exits 5 when the lease is lost: it expired, was released or was taken
over (also by 'lease break'); the message says who holds it now. A lost
lease cannot be renewed: acquire a new one, with a new token.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			domain := args[0]
			if holder == "" {
				holder = defaultHolder()
			}
			token, err := a.token(cmd)
			if err != nil {
				return err
			}
			_, c, closeAll, err := a.open(cmd, leaseWrites)
			if err != nil {
				return err
			}
			defer closeAll()
			l, err := c.Renew(cmd.Context(), coord.Lease{Domain: domain, Holder: holder, Token: token}, ttl)
			if errors.Is(err, coord.ErrLeaseLost) {
				return a.renewLost(cmd.Context(), c, domain, holder, token, err)
			}
			if err != nil {
				return fail(fmt.Errorf("lease renew %q: %w", domain, err))
			}
			if a.json {
				return a.printJSON(struct {
					Domain  string    `json:"domain"`
					Holder  string    `json:"holder"`
					Token   uint64    `json:"token"`
					Expires time.Time `json:"expires"`
				}{l.Domain, l.Holder, l.Token, l.Expires.UTC()})
			}
			fmt.Fprintln(a.stdout, l.Expires.UTC().Format(time.RFC3339Nano))
			return nil
		},
	}
	f := cmd.Flags()
	f.String("token", "", "the lease's fencing token `N` (env "+envToken+")")
	f.DurationVar(&ttl, "ttl", coord.DefaultTTL, "new lease duration, from now")
	f.StringVar(&holder, "holder", "", "holder `NAME` (default <user>@<hostname>)")
	return cmd
}

// renewLost is the error of a renewal whose lease is lost (exit 5): it
// reads the record again to say who holds the lease now.
func (a *app) renewLost(ctx context.Context, c *coord.Coordinator, domain, holder string, token uint64, err error) error {
	st, serr := c.State(ctx, domain)
	if serr != nil {
		return fail(fmt.Errorf("lease renew %q: %w", domain, err))
	}
	var now string
	switch {
	case st.Holder == holder && st.Token == token:
		now = "it expired at " + expiry(st.Expires)
	case st.Token == 0:
		now = "the lease was never acquired"
	case st.Holder == "":
		now = fmt.Sprintf("nobody holds it now (released; last token %d)", st.Token)
	default:
		now = fmt.Sprintf("it is held by %q with token %d until %s", st.Holder, st.Token, expiry(st.Expires))
	}
	return fail(fmt.Errorf("lease renew %q: %w: %q no longer holds it with token %d: %s; acquire a new lease", domain, coord.ErrLeaseLost, holder, token, now))
}

func (a *app) leaseBreakCmd() *cobra.Command {
	var holder string
	cmd := &cobra.Command{
		Use:   "break DOMAIN",
		Short: "End another holder's lease and fence it out of the store",
		Long: `break ends DOMAIN's lease, whoever holds it and whether or not it is live,
and fences the domain at the store, so the old holder's late writes are
rejected (exit 3 for it) from now on: it takes the lease as --holder with a
token above every earlier one, fences the store with that token, and
releases the lease again, so the next 'lease acquire' succeeds at once.
The old holder's 'lease renew' then exits 5.

Unlike removing a lock by hand, this is safe even if the old holder is
alive and about to write, and it does not depend on any clock.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			domain := args[0]
			if holder == "" {
				holder = defaultHolder()
			}
			store, c, closeAll, err := a.open(cmd, allWrites)
			if err != nil {
				return err
			}
			defer closeAll()
			res, err := fence.Break(cmd.Context(), store, c, domain, &fence.BreakOptions{Holder: holder})
			if err != nil {
				return fail(fmt.Errorf("lease break %q: %w", domain, err))
			}
			if a.json {
				return a.printJSON(struct {
					Domain    string `json:"domain"`
					OldHolder string `json:"old_holder"`
					OldToken  uint64 `json:"old_token"`
					Token     uint64 `json:"token"`
				}{res.Domain, res.Old.Holder, res.Old.Token, res.Token})
			}
			was := fmt.Sprintf("ended the lease of %q (token %d)", res.Old.Holder, res.Old.Token)
			switch {
			case res.Old.Token == 0:
				was = "the lease was never acquired"
			case res.Old.Holder == "":
				was = fmt.Sprintf("nobody held the lease (last token %d)", res.Old.Token)
			}
			fmt.Fprintf(a.stdout, "broke %q: %s; the store is fenced at token %d, so writes with older tokens are rejected; the lease is free\n", domain, was, res.Token)
			return nil
		},
	}
	cmd.Flags().StringVar(&holder, "holder", "", "holder `NAME` that breaks the lease, for the moment it holds it (default <user>@<hostname>)")
	return cmd
}
