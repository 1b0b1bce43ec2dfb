package main

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/outbox"
)

func (a *app) outboxCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "outbox",
		Short: "Side effects of fenced commits, delivered at least once with an idempotency key",
		Long: `A webhook, an email or a payment request cannot be taken back by a later
rejection, so a job does not send it: it adds an outbox record to the
domain with its token ('outbox add', or outbox.Add in the same commit as
its data), and a dispatcher ('outbox dispatch') takes the domain's lease,
POSTs each record to its URL with an Idempotency-Key header, and records
the delivery with a fenced commit. A dispatcher that dies at any step
loses no record; a record delivered but not recorded is delivered again
with the same key.`,
		Args: cobra.NoArgs,
		RunE: helpOnly,
	}
	cmd.AddCommand(a.outboxAddCmd(), a.outboxDispatchCmd(), a.outboxLsCmd())
	return cmd
}

func (a *app) outboxAddCmd() *cobra.Command {
	var to, contentType string
	cmd := &cobra.Command{
		Use:   "add DOMAIN --to URL FILE|- [--token N]",
		Short: "Add one record to DOMAIN's outbox, fenced with the token",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			domain, file := args[0], args[1]
			if to == "" {
				return usage("outbox add: --to URL is required")
			}
			tok, err := a.token(cmd)
			if err != nil {
				return err
			}
			var payload []byte
			if file == "-" {
				payload, err = io.ReadAll(a.stdin)
			} else {
				payload, err = os.ReadFile(file)
			}
			if err != nil {
				return fail(fmt.Errorf("outbox add: read %s: %w", file, err))
			}
			ch, err := outbox.Add(tok, to, contentType, payload)
			if err != nil {
				return fail(fmt.Errorf("outbox add: %w", err))
			}
			store, _, closeAll, err := a.open(cmd, storeWrites)
			if err != nil {
				return err
			}
			defer closeAll()
			res, err := store.Commit(cmd.Context(), domain, tok, []objstore.Change{ch}, nil)
			if err != nil {
				return fenced(fmt.Sprintf("outbox add to %q", domain), err)
			}
			a.info("added outbox record %s to domain %q with token %d (commit %s, seq %d)", strings.TrimPrefix(ch.Key, outbox.PendingPrefix), domain, tok, res.ID, res.Seq)
			return nil
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the record's destination `URL` (http:// or https://)")
	cmd.Flags().StringVar(&contentType, "content-type", "", "the payload's content type (default application/json)")
	cmd.Flags().String("token", "", "fencing token `N` from 'fence lease acquire' (env "+envToken+")")
	return cmd
}

func (a *app) outboxDispatchCmd() *cobra.Command {
	var (
		holder string
		ttl    time.Duration
		wait   bool
		limit  int
	)
	cmd := &cobra.Command{
		Use:   "dispatch DOMAIN [--wait] [--limit N]",
		Short: "Deliver DOMAIN's pending outbox records, holding its lease",
		Long: `dispatch takes DOMAIN's lease (fencing the previous holder; with --wait it
waits for a live one to end), POSTs each pending record to its URL with
an Idempotency-Key header, oldest first, and records each delivery with a
fenced commit. A 2xx answer is a delivery; 408, 429, a 5xx or no answer
leave the record for the next dispatch, and so does any other 4xx (it is
reported as permanent). Exits 0 when every record was delivered, 1 when
some failed (each is named), 3 when another holder fenced the dispatcher,
4 when the lease is held (without --wait), 5 when it was lost.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			domain := args[0]
			if holder == "" {
				// One per process, as exec's: a dispatcher must not take
				// over a lease its user holds elsewhere as its own.
				holder = fmt.Sprintf("%s/outbox-%d", defaultHolder(), os.Getpid())
			}
			store, c, closeAll, err := a.open(cmd, allWrites)
			if err != nil {
				return err
			}
			defer closeAll()
			res, err := outbox.Dispatch(cmd.Context(), store, c, domain, outbox.HTTPDeliverer{Client: httpClient()}, &outbox.DispatchOptions{Holder: holder, TTL: ttl, Wait: wait, Limit: limit})
			if err != nil {
				return fail(err)
			}
			for _, f := range res.Failed {
				a.notice(slog.LevelWarn, "outbox dispatch %q: record %s (key %s) not delivered: %v", domain, f.Name, f.Key, f.Err)
			}
			a.info("outbox %q: delivered %d, failed %d, %d left (dispatcher token %d)", domain, res.Delivered, len(res.Failed), res.Left, res.Token)
			if len(res.Failed) > 0 {
				return &exitErr{code: exitError, err: fmt.Errorf("outbox dispatch %q: %d of %d records not delivered", domain, len(res.Failed), res.Delivered+len(res.Failed))}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&holder, "holder", "", "holder `NAME` of the dispatcher's lease (default <user>@<hostname>/outbox-<pid>, one per process)")
	f.DurationVar(&ttl, "ttl", coord.DefaultTTL, "the dispatcher's lease duration, renewed in the background")
	f.BoolVar(&wait, "wait", false, "wait for another holder's lease to end instead of exiting 4")
	f.IntVar(&limit, "limit", 0, "deliver at most `N` records (0: all)")
	return cmd
}

func (a *app) outboxLsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "ls DOMAIN",
		Short: "List DOMAIN's pending and delivered outbox records",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			domain := args[0]
			store, _, closeAll, err := a.open(cmd, readOnly)
			if err != nil {
				return err
			}
			defer closeAll()
			pending, err := outbox.Pending(cmd.Context(), store, domain)
			if err != nil && !isNotFound(err) {
				return fail(fmt.Errorf("outbox ls %q: %w", domain, err))
			}
			done, err := outbox.Deliveries(cmd.Context(), store, domain)
			if err != nil && !isNotFound(err) {
				return fail(fmt.Errorf("outbox ls %q: %w", domain, err))
			}
			if a.json {
				type row struct {
					State       string    `json:"state"`
					Key         string    `json:"key"`
					Destination string    `json:"destination"`
					Token       uint64    `json:"token"`
					DeliveredAt time.Time `json:"delivered_at,omitzero"`
				}
				rows := []row{}
				for _, r := range pending {
					rows = append(rows, row{"pending", r.Key, r.Destination, r.Token, time.Time{}})
				}
				for _, d := range done {
					rows = append(rows, row{"delivered", d.Key, d.Destination, d.Token, d.DeliveredAt})
				}
				return a.printJSON(rows)
			}
			fmt.Fprintln(a.stdout, "STATE      KEY                               TOKEN  DESTINATION")
			for _, r := range pending {
				fmt.Fprintf(a.stdout, "pending    %s  %-5d  %s\n", r.Key, r.Token, r.Destination)
			}
			for _, d := range done {
				fmt.Fprintf(a.stdout, "delivered  %s  %-5d  %s (%s)\n", d.Key, d.Token, d.Destination, d.DeliveredAt.Format(time.RFC3339))
			}
			return nil
		},
	}
}

// httpClient is the client of outbox deliveries: bounded per request, as
// fence's own calls are.
func httpClient() *http.Client { return &http.Client{Timeout: 30 * time.Second} }
