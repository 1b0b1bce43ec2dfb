package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence/objstore"
)

func (a *app) commitCmd() *cobra.Command {
	var sources []string
	cmd := &cobra.Command{
		Use:   "commit DOMAIN --token N --receipts FILE|DIR|- [--receipts ...]",
		Short: "Publish staged values from their receipts, in one commit",
		Long: `commit publishes the values that 'fence stage' uploaded, in ONE commit of
DOMAIN at the token from --token (or FENCE_TOKEN): readers see all of
them or none. --receipts names a file of receipts (JSON lines, as 'fence
stage' prints them; blank lines are skipped), a directory (every file in
it and below it, in lexical order) or '-' for standard input; repeat it
to read several.

Before anything is published, every receipt is checked against the
commit and the store: it must be of DOMAIN and of the commit's token,
and its version object must exist with its size. A receipt that fails
names itself in the error, and nothing is published.

Exits 0 when committed; 3 when the store rejects the token because the
domain has accepted a higher one; 2 for a malformed receipt; 1 for a
receipt refused by its check (another domain or token, or a missing or
resized version object).`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) != 1:
				return usage("commit: want DOMAIN, got %d arguments", len(args))
			case len(sources) == 0:
				return usage("commit: no --receipts: pass a file, a directory, or '-' for standard input")
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
			stdin := false
			for _, src := range sources {
				if src == "-" {
					if stdin {
						return usage("commit: standard input ('-') can be read once only")
					}
					stdin = true
				}
				rs, err := a.readReceipts(src)
				if err != nil {
					return err
				}
				for _, r := range rs {
					changes = append(changes, objstore.PutReceipt(r))
				}
			}
			if len(changes) == 0 {
				return usage("commit: no receipts in %q", sources)
			}
			return a.commitChanges(cmd, domain, token, changes,
				fmt.Sprintf("commit %d receipts in domain %q", len(changes), domain),
				fmt.Sprintf("committed %d receipts in domain %q", len(changes), domain))
		},
	}
	f := cmd.Flags()
	f.String("token", "", "fencing token `N` from 'fence lease acquire' (env "+envToken+")")
	f.StringArrayVar(&sources, "receipts", nil, "read receipts from `FILE`, every file under a directory, or '-' for standard input (repeatable)")
	return cmd
}

// readReceipts reads the receipts of src: a file, a directory of files,
// or "-" for standard input.
func (a *app) readReceipts(src string) ([]objstore.Receipt, error) {
	if src == "-" {
		return parseReceipts(a.stdin, "standard input")
	}
	fi, err := os.Stat(src)
	if err != nil {
		return nil, usage("commit: --receipts %q: %v", src, err)
	}
	if !fi.IsDir() {
		return readReceiptFile(src)
	}
	var all []objstore.Receipt
	err = filepath.WalkDir(src, func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rs, err := readReceiptFile(name)
		all = append(all, rs...)
		return err
	})
	if err != nil {
		return nil, fail(fmt.Errorf("commit: --receipts %q: %w", src, err))
	}
	return all, nil
}

func readReceiptFile(name string) ([]objstore.Receipt, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, usage("commit: --receipts: %v", err)
	}
	defer f.Close()
	return parseReceipts(f, name)
}

// parseReceipts reads JSON lines of receipts from r, named name in
// errors. A line that is not a well-formed receipt is a usage error
// naming the file and line.
func parseReceipts(r io.Reader, name string) ([]objstore.Receipt, error) {
	var out []objstore.Receipt
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var rc objstore.Receipt
		if err := json.Unmarshal(line, &rc); err != nil {
			return nil, usage("commit: %s:%d: not a receipt: %v", name, n, err)
		}
		if err := rc.Validate(); err != nil {
			return nil, usage("commit: %s:%d: %v", name, n, err)
		}
		out = append(out, rc)
	}
	if err := sc.Err(); err != nil {
		return nil, fail(fmt.Errorf("commit: read receipts from %s: %w", name, err))
	}
	return out, nil
}
