package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence/job"
	"github.com/fencedstore/fence/objstore"
)

// putMany commits several KEY FILE pairs, or a directory, as one commit.
func (a *app) putMany(cmd *cobra.Command, args []string, token uint64, dir string, del bool) error {
	domain := args[0]
	store, _, closeAll, err := a.open(cmd, storeWrites)
	if err != nil {
		return err
	}
	defer closeAll()
	ctx := cmd.Context()
	var changes []objstore.Change
	if dir != "" {
		d, prefix, _ := strings.Cut(dir, ":")
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return usage("put: --dir %q: not a directory", d)
		}
		chs, closeFiles, err := job.Publish{Dir: d, Prefix: prefix, Delete: del}.Changes(ctx, store, domain)
		if err != nil {
			return fail(fmt.Errorf("put --dir %q: %w", d, err))
		}
		defer closeFiles()
		changes = chs
	} else {
		for i := 1; i < len(args); i += 2 {
			body, size, closeBody, err := a.openInput(args[i+1])
			if err != nil {
				return err
			}
			defer closeBody()
			changes = append(changes, objstore.PutReader(args[i], interruptible(ctx, body), size))
		}
	}
	if len(changes) == 0 {
		return usage("put --dir %q: no files, and nothing to delete", dir)
	}
	c, err := store.Commit(ctx, domain, token, changes, nil)
	if err != nil {
		return fenced(fmt.Sprintf("put %d keys in domain %q", len(changes), domain), err)
	}
	if a.json {
		return a.printJSON(c)
	}
	a.info("committed %d changes in domain %q with token %d, manifest seq %d", len(changes), domain, token, c.Seq)
	return nil
}
