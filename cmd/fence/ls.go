package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence/objstore"
)

func (a *app) lsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "ls DOMAIN",
		Short: "List DOMAIN's live keys with token, size and commit time",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			domain := args[0]
			store, _, closeAll, err := a.open(cmd, readOnly)
			if err != nil {
				return err
			}
			defer closeAll()
			vs, err := store.List(cmd.Context(), domain, nil)
			if isNotFound(err) {
				return &exitErr{code: exitError, err: fmt.Errorf("ls: not found: no such domain %q (nothing was ever committed to it)", domain)}
			}
			if err != nil {
				return fail(fmt.Errorf("ls %q: %w", domain, err))
			}
			if a.json {
				if vs == nil {
					vs = []objstore.Version{}
				}
				return a.printJSON(vs)
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "KEY\tTOKEN\tSIZE\tCOMMITTED")
			for _, v := range vs {
				fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", v.Key, v.Token, v.Size, v.Committed.UTC().Format(time.RFC3339))
			}
			if err := tw.Flush(); err != nil {
				return fail(fmt.Errorf("ls %q: write output: %w", domain, err))
			}
			return nil
		},
	}
}
