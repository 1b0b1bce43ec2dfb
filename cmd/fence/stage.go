package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/fencedstore/fence/job"
	"github.com/fencedstore/fence/objstore"
)

func (a *app) stageCmd() *cobra.Command {
	var (
		dir      string
		parallel int
	)
	cmd := &cobra.Command{
		Use:   "stage DOMAIN KEY FILE|- --token N | stage DOMAIN --dir DIR[:PREFIX] --token N",
		Short: "Upload values under a token without publishing them; print their receipts",
		Long: `stage uploads FILE's bytes (standard input when FILE is '-') as a staged
value of KEY in DOMAIN under the token from --token (or FENCE_TOKEN), and
prints its receipt, one line of JSON, on standard output. Nothing is
published: readers do not see the value until 'fence commit' publishes
the receipt, with the receipts of any number of other workers, in one
commit at the same token.

With --dir DIR[:PREFIX], every file under DIR is staged as
PREFIX/<path>, --parallel at a time, and one receipt line is printed for
each, in the order they finish.

Exits 0 when every value is staged, and 3 when the domain has already
accepted a higher token (a newer lease holder took over); a worker fenced
later still uploads, but its receipts can never be published.`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case dir != "" && len(args) != 1:
				return usage("stage: with --dir, want DOMAIN alone, got %d arguments", len(args))
			case dir == "" && len(args) == 2:
				return usage("stage: no FILE: pass a file name, or '-' to read standard input")
			case dir == "" && len(args) != 3:
				return usage("stage: want DOMAIN KEY FILE|-, got %d arguments", len(args))
			case parallel < 1:
				return usage("stage: --parallel %d: must be at least 1", parallel)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			token, err := a.token(cmd)
			if err != nil {
				return err
			}
			domain := args[0]
			var changes []objstore.Change
			if dir != "" {
				d, prefix, _ := strings.Cut(dir, ":")
				if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
					return usage("stage: --dir %q: not a directory", d)
				}
				// Publish.Changes only lists the files (no store call
				// without Delete); their bodies open when read.
				chs, closeFiles, err := job.Publish{Dir: d, Prefix: prefix}.Changes(cmd.Context(), nil, domain)
				if err != nil {
					return fail(fmt.Errorf("stage --dir %q: %w", d, err))
				}
				defer closeFiles()
				if len(chs) == 0 {
					return usage("stage --dir %q: no files", d)
				}
				changes = chs
			} else {
				body, size, closeBody, err := a.openInput(args[2])
				if err != nil {
					return err
				}
				defer closeBody()
				changes = []objstore.Change{objstore.PutReader(args[1], body, size)}
			}
			store, _, closeAll, err := a.open(cmd, storeWrites)
			if err != nil {
				return err
			}
			defer closeAll()
			return a.stage(cmd, store, domain, token, changes, parallel)
		},
	}
	f := cmd.Flags()
	f.String("token", "", "fencing token `N` from 'fence lease acquire' (env "+envToken+")")
	f.StringVar(&dir, "dir", "", "stage every file under `DIR[:PREFIX]` as PREFIX/<path>")
	f.IntVar(&parallel, "parallel", 16, "with --dir, stage at most `N` files at once")
	return cmd
}

// stage uploads each change's body as a staged value, parallel at a
// time, and prints each receipt as a JSON line as soon as it is staged.
func (a *app) stage(cmd *cobra.Command, store *objstore.Store, domain string, token uint64, changes []objstore.Change, parallel int) error {
	var (
		mu  sync.Mutex
		enc = json.NewEncoder(a.stdout)
	)
	// The first failure stops the uploads still running.
	g, ctx := errgroup.WithContext(cmd.Context())
	g.SetLimit(parallel)
	for _, ch := range changes {
		g.Go(func() error {
			r, err := store.Stage(ctx, domain, ch.Key, token, interruptible(ctx, ch.Body), ch.Size)
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			if err := enc.Encode(r); err != nil {
				return fail(fmt.Errorf("stage: write receipt: %w", err))
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return fenced(fmt.Sprintf("stage in domain %q", domain), err)
	}
	return nil
}
