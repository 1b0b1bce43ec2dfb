package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func (a *app) syncPlainCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "sync-plain DOMAIN",
		Short: "Bring DOMAIN's plain copies (DOMAIN/KEY) up to its current commit",
		Long: `sync-plain writes the plain copy (the object DOMAIN/KEY, which any S3 client
can read) of every live key whose copy is missing or older than the
domain's current commit, and removes the copies this domain wrote for keys
that are no longer live. Run it after a put, exec or rm with
--plain-copies reported that copies failed, or to start plain copies in a
domain that already has keys. It needs no lease: each copy is tagged with
the commit it comes from and never replaces a newer one.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, _, closeAll, err := a.open(cmd, storeWrites)
			if err != nil {
				return err
			}
			defer closeAll()
			if err := store.SyncPlain(cmd.Context(), args[0]); err != nil {
				return fail(fmt.Errorf("sync-plain %q: %w", args[0], err))
			}
			return nil
		},
	}
}
