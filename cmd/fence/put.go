package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

func (a *app) putCmd() *cobra.Command {
	var (
		dir string
		del bool
	)
	cmd := &cobra.Command{
		Use:   "put DOMAIN KEY FILE|- [KEY FILE]... | put DOMAIN --dir DIR[:PREFIX] [--delete]",
		Short: "Write keys in DOMAIN with a fencing token, in one commit",
		Long: `put commits FILE's bytes (standard input when FILE is '-') as KEY
in DOMAIN, carrying the token from --token, or from FENCE_TOKEN when the
flag is absent. The bytes are streamed, not held in memory.

Several KEY FILE pairs, or --dir DIR[:PREFIX] (every file under DIR as
PREFIX/<path>), are committed as ONE commit: readers see all of them or
none. With --dir, --delete also deletes, in the same commit, the keys
under PREFIX that are no longer files in DIR.

Exits 0 when committed, and 3 when the store rejects the token because the
domain has accepted a higher one (a newer lease holder took over).`,
		Args: func(cmd *cobra.Command, args []string) error { return putArgs(args, dir != "", del) },
		RunE: func(cmd *cobra.Command, args []string) error {
			token, err := a.token(cmd)
			if err != nil {
				return err
			}
			if dir != "" || len(args) > 3 {
				return a.putMany(cmd, args, token, dir, del)
			}
			domain, key := args[0], args[1]
			body, size, closeBody, err := a.openInput(args[2])
			if err != nil {
				return err
			}
			defer closeBody()
			store, _, closeAll, err := a.open(cmd, storeWrites)
			if err != nil {
				return err
			}
			defer closeAll()
			// A signal ends the upload at the next read.
			body = interruptible(cmd.Context(), body)
			body, done := a.progress(body, size, "put "+key)
			defer done()
			c, err := store.Put(cmd.Context(), domain, key, token, body, size)
			done()
			if err != nil {
				return fenced(fmt.Sprintf("put %q in domain %q", key, domain), err)
			}
			if a.json {
				return a.printJSON(c)
			}
			if len(c.Versions) == 1 {
				v := c.Versions[0]
				a.info("committed %q in domain %q with token %d: %d bytes, sha256 %s, manifest seq %d", key, domain, token, v.Size, v.SHA256, c.Seq)
			} else {
				a.info("committed %q in domain %q with token %d, manifest seq %d", key, domain, token, c.Seq)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.String("token", "", "fencing token `N` from 'fence lease acquire' (env "+envToken+")")
	f.StringVar(&dir, "dir", "", "commit every file under `DIR[:PREFIX]` as PREFIX/<path>, at once")
	f.BoolVar(&del, "delete", false, "with --dir, also delete keys under PREFIX that are not in DIR")
	return cmd
}

// putArgs wants DOMAIN and KEY FILE pairs, or DOMAIN alone with --dir.
// Standard input needs an explicit '-', so that a script that lost its
// FILE argument does not commit an empty standard input.
func putArgs(args []string, dir, del bool) error {
	switch {
	case del && !dir:
		return usage("put: --delete needs --dir")
	case dir && len(args) != 1:
		return usage("put: with --dir, want DOMAIN alone, got %d arguments", len(args))
	case dir:
		return nil
	case len(args) == 2:
		return usage("put: no FILE: pass a file name, or '-' to read standard input")
	case len(args) < 3 || len(args)%2 == 0:
		return usage("put: want DOMAIN KEY FILE|- [KEY FILE|-]..., got %d arguments", len(args))
	}
	stdin := 0
	for i := 2; i < len(args); i += 2 {
		if args[i] == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return usage("put: standard input ('-') can be the FILE of one key only")
	}
	return nil
}

// openInput opens put's input: the named file, or standard input for
// "-". size is the exact length of a regular file, else -1. Only a
// regular file is passed on as an io.Seeker, so that the store can retry
// its upload from the start.
func (a *app) openInput(name string) (r io.Reader, size int64, closeFn func(), err error) {
	if name == "-" {
		return struct{ io.Reader }{a.stdin}, -1, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, nil, fail(fmt.Errorf("put: %w", err))
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, nil, fail(fmt.Errorf("put: %w", err))
	}
	switch {
	case fi.IsDir():
		f.Close()
		return nil, 0, nil, usage("put: %s is a directory", name)
	case fi.Mode().IsRegular():
		return f, fi.Size(), func() { f.Close() }, nil
	default:
		return struct{ io.Reader }{f}, -1, func() { f.Close() }, nil
	}
}
