package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence/objstore"
)

func (a *app) rmCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rm DOMAIN KEY... --token N",
		Short: "Delete keys from DOMAIN in one commit with a fencing token",
		Long: `rm deletes every KEY from DOMAIN in one commit, carrying the token from
--token, or from FENCE_TOKEN when the flag is absent: either all of them
stop being live or none does. A KEY that is not live is not an error.

Exits 0 when committed, and 3 when the store rejects the token because the
domain has accepted a higher one (a newer lease holder took over).`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			domain, keys := args[0], args[1:]
			token, err := a.token(cmd)
			if err != nil {
				return err
			}
			changes := make([]objstore.Change, len(keys))
			for i, k := range keys {
				changes[i] = objstore.DeleteKey(k)
			}
			return a.commitChanges(cmd, domain, token, changes,
				fmt.Sprintf("rm %s in domain %q", quoteAll(keys), domain),
				fmt.Sprintf("deleted %s in domain %q", quoteAll(keys), domain))
		},
	}
	cmd.Flags().String("token", "", "fencing token `N` from 'fence lease acquire' (env "+envToken+")")
	return cmd
}

// quoteAll quotes each key and joins them with spaces.
func quoteAll(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = fmt.Sprintf("%q", k)
	}
	return strings.Join(q, " ")
}
