package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
)

func (a *app) gcCmd() *cobra.Command {
	var grace time.Duration
	cmd := &cobra.Command{
		Use:   "gc DOMAIN [--grace 1h]",
		Short: "Delete DOMAIN's versions and shards that no manifest needs any more",
		Long: `gc deletes the versions that DOMAIN's manifest no longer names (superseded,
deleted, or uploaded by a stale writer and never published) and shards that
a later fold replaced, when no commit can ever publish them again: their
token is below the domain's highest, or the commit attempt that wrote them
has landed. Objects that a commit in progress may still publish are
pending and stay, whatever their age, so gc is safe beside writers with
any --grace and any clock. --grace only keeps collectable objects a while
for readers: one that takes longer than --grace between reading the
manifest and reading a version may find it gone; pick a grace period above
your slowest reader. gc needs no lease.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			domain := args[0]
			store, _, closeAll, err := a.open(cmd, storeWrites)
			if err != nil {
				return err
			}
			defer closeAll()
			res, err := store.Collect(cmd.Context(), domain, grace)
			if isNotFound(err) {
				return &exitErr{code: exitError, err: fmt.Errorf("gc: not found: no such domain %q (nothing was ever committed to it)", domain)}
			}
			if err != nil {
				return fail(fmt.Errorf("gc %q: %w", domain, err))
			}
			if a.json {
				return a.printJSON(res)
			}
			a.info("scanned %d objects: %d live, %d deleted, %d pending (a commit in progress may still publish them), %d kept (unreferenced for less than %s)", res.Scanned, res.Live, res.Deleted, res.Pending, res.Kept, grace)
			if res.FencedRecords > 0 {
				a.info("fenced-attempt records: %d deleted, %d kept (stored less than %s ago)", res.FencedDeleted, res.FencedRecords-res.FencedDeleted, grace)
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&grace, "grace", time.Hour, "keep collectable objects this long after they were last referenced, for slow readers")
	return cmd
}
