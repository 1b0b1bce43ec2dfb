package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence"
)

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
