package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence/coord"
)

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
			l, c, closeAll, err := a.heldLease(cmd, domain, holder)
			if err != nil {
				return err
			}
			defer closeAll()
			holder, token := l.Holder, l.Token
			l, err = c.Renew(cmd.Context(), l, ttl)
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
