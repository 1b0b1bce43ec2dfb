package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence/coord"
)

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
			l, c, closeAll, err := a.heldLease(cmd, domain, holder)
			if err != nil {
				return err
			}
			defer closeAll()
			holder, token := l.Holder, l.Token
			err = c.Release(cmd.Context(), l)
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
