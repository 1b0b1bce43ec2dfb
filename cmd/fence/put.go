package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

func (a *app) putCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "put DOMAIN KEY FILE|-",
		Short: "Write KEY in DOMAIN with a fencing token",
		Long: `put commits FILE's bytes (standard input when FILE is '-') as KEY
in DOMAIN, carrying the token from --token, or from FENCE_TOKEN when the
flag is absent. The bytes are streamed, not held in memory.

Exits 0 when committed, and 3 when the store rejects the token because the
domain has accepted a higher one (a newer lease holder took over).`,
		Args: putArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			domain, key := args[0], args[1]
			token, err := a.token(cmd)
			if err != nil {
				return err
			}
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
	cmd.Flags().String("token", "", "fencing token `N` from 'fence lease acquire' (env "+envToken+")")
	return cmd
}

// putArgs wants DOMAIN, KEY and FILE. Standard input needs an explicit
// '-', so that a script that lost its FILE argument does not commit an
// empty standard input.
func putArgs(_ *cobra.Command, args []string) error {
	switch {
	case len(args) == 2:
		return usage("put: no FILE: pass a file name, or '-' to read standard input")
	case len(args) != 3:
		return usage("put: want DOMAIN KEY FILE|-, got %d arguments", len(args))
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
