package main

import (
	"github.com/spf13/cobra"

	"github.com/fencedstore/fence/objstore"
)

// commitChanges opens the store, commits changes to domain with token,
// and reports the commit: as JSON with --json, else done (a sentence
// about what was committed) with its token and manifest seq on stderr. A
// refused or failed commit is an error naming what, with the exit code
// of its cause (fenced: 3).
func (a *app) commitChanges(cmd *cobra.Command, domain string, token uint64, changes []objstore.Change, what, done string) error {
	store, _, closeAll, err := a.open(cmd, storeWrites)
	if err != nil {
		return err
	}
	defer closeAll()
	c, err := store.Commit(cmd.Context(), domain, token, changes, nil)
	if err != nil {
		return fenced(what, err)
	}
	if a.json {
		return a.printJSON(c)
	}
	a.info("%s with token %d, manifest seq %d", done, token, c.Seq)
	return nil
}
