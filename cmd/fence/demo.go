package main

import (
	"fmt"
	"sync"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence/scenario"
)

func (a *app) demoCmd() *cobra.Command {
	var opts scenario.StaleHolderOptions
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the stale-holder scenario: a paused holder's late write is rejected",
		Long: `demo runs the scenario of the reference document on the store:

  holder A takes the lease (token T) and pauses past its expiry;
  holder B takes the lease (token above T), fences the domain and writes;
  A wakes and writes with its old token; the store rejects it;
  a reader reads the key and sees B's bytes.

It prints a step / event / token table and exits 0 only if the store
rejected A's write and the reader saw B's bytes. Tokens keep rising across
runs. A run takes about --ttl, while B waits for A's lease to expire.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			store, c, closeAll, err := a.open(cmd, allWrites)
			if err != nil {
				return err
			}
			defer closeAll()
			if !a.json {
				// The header waits for the first step, so a demo that
				// fails at once (a store that ignores conditional writes)
				// prints nothing.
				header := sync.OnceFunc(func() {
					fmt.Fprintf(a.stdout, "Stale holder on domain %q, key %q, lease TTL %s\n\n", opts.Domain, opts.Key, opts.TTL)
					fmt.Fprint(a.stdout, "| Step | Event | Token |\n|---|---|---|\n")
				})
				opts.OnStep = func(s scenario.Step) {
					header()
					fmt.Fprintf(a.stdout, "| %d | %s | %d |\n", s.N, s.Event, s.Token)
				}
			}
			res, err := scenario.StaleHolder(cmd.Context(), store, c, &opts)
			if err != nil {
				return fail(fmt.Errorf("demo: %w", err))
			}
			if a.json {
				if err := a.printJSON(struct {
					scenario.Result
					OK bool `json:"ok"`
				}{res, res.OK()}); err != nil {
					return err
				}
			} else {
				fmt.Fprintln(a.stdout)
				if res.Rejection != "" {
					fmt.Fprintf(a.stdout, "The store said: %s\n", res.Rejection)
				}
			}
			if !res.OK() {
				return fail(fmt.Errorf("demo: fencing failed: stale write rejected: %t, reader saw holder B's bytes: %t", res.StaleRejected, res.ReaderSawB))
			}
			if !a.json {
				fmt.Fprintf(a.stdout, "OK: holder A's stale write (token %d) was rejected and the reader saw holder B's bytes (token %d).\n", res.TokenA, res.TokenB)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Domain, "domain", scenario.DefaultDomain, "domain the two holders compete for")
	f.StringVar(&opts.Key, "key", scenario.DefaultKey, "key both holders write")
	f.DurationVar(&opts.TTL, "ttl", scenario.DefaultTTL, "lease duration; holder B waits this long for A's lease to expire")
	return cmd
}
