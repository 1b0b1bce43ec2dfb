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
gets a higher token. Releasing a lease that expired, was released, was
broken or was taken over fails with exit 5, as every command that finds
its lease lost does.`,
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
				err = fmt.Errorf("lease release %q: %q does not hold the lease with token %d (it expired, was released, was broken or was taken over): %w", domain, holder, token, err)
			} else if err != nil {
				err = fmt.Errorf("lease release %q: %w", domain, err)
			}
			return fail(err)
		},
	}
	f := cmd.Flags()
	f.String("token", "", "the lease's fencing token `N` (env "+envToken+")")
	f.StringVar(&holder, "holder", "", "holder `NAME` (default <user>@<hostname>)")
	return cmd
}
