package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func (a *app) getCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "get DOMAIN KEY [-o FILE]",
		Short: "Read KEY's current bytes from DOMAIN",
		Long: `get writes KEY's current bytes in DOMAIN to standard output, or to FILE
with -o. Reads need no lease. Size and checksums (CRC-32C and CRC-32, or
SHA-256 for values written before them) are verified against the
manifest; with -o, FILE is written to a temporary file beside it and
renamed into place once they match. A new FILE gets mode 0666 less the
umask. SIGINT or SIGTERM stops the copy and removes the temporary file.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			domain, key := args[0], args[1]
			store, _, closeAll, err := a.open(cmd, readOnly)
			if err != nil {
				return err
			}
			defer closeAll()
			r, err := store.Get(cmd.Context(), domain, key)
			if isNotFound(err) {
				return &exitErr{code: exitError, err: fmt.Errorf("get: not found: no key %q in domain %q", key, domain)}
			}
			if err != nil {
				return fail(fmt.Errorf("get %q in domain %q: %w", key, domain, err))
			}
			defer r.Close()
			// A signal ends the copy at the next read.
			var body io.Reader = ctxReader{ctx: cmd.Context(), r: r}
			// No bar over bytes written to the same terminal.
			if out != "" && out != "-" || !a.isTerminal(a.stdout) {
				var done func()
				body, done = a.progress(body, r.Version.Size, "get "+key)
				defer done()
			}
			if out == "" || out == "-" {
				// A signal also ends a write blocked on a full pipe.
				if _, err := io.Copy(ctxWriter{cmd.Context(), a.stdout}, body); err != nil {
					return fail(fmt.Errorf("get %q in domain %q: %w", key, domain, err))
				}
				return nil
			}
			if err := writeFileAtomic(out, body); err != nil {
				return fail(fmt.Errorf("get %q in domain %q: %w", key, domain, err))
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to `FILE` instead of standard output")
	return cmd
}
