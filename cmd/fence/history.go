package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence/objstore"
)

func (a *app) historyCmd() *cobra.Command {
	var (
		since, commitID string
		jsonl           bool
	)
	cmd := &cobra.Command{
		Use:   "history DOMAIN",
		Short: "Show DOMAIN's recent commits and fenced attempts: seq, token, holder, keys, fences",
		Long: `history prints DOMAIN's recent commits from the manifest's log (the last
64 by default), oldest first, as a table of seq, time, event, token,
holder and commit id. An event is a commit (the keys it put and deleted,
up to 16 of each) or a fence: a commit without changes that raised the
domain's token, from which on every older token was rejected. Between
them, rows with seq "-" are fenced attempts on record: commits and fences
the store refused as stale, with the keys and sizes they tried to write
and the token that refused them (kept until fence gc's grace period has
passed; see docs/observability.md, "Fenced attempts on record").

--since keeps the commits at or after a time: a duration back from now
(90m, 24h) or an RFC 3339 time (2026-12-01T09:00:00Z). With --json it
prints the commits as a JSON array.

The audit trail joins them with the lease (fence.Audit):
  --jsonl        one JSON object per line: each takeover, commit and
                 fenced attempt ("kind":"fenced", with its "token" and
                 the "fenced_by" token that refused it), a commit with
                 the tenure of its token (the takeover that opened it,
                 the one that ended it), then the coordinator's current
                 lease
  --commit ID    that commit alone, with its tenure; exit 1 when it is not
                 in the log (it did not land, as a fenced commit never
                 does, or it is older than the log), saying what the log
                 still covers. The id is in the writer's log records
                 (commit_id) and in its errors.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			domain := args[0]
			var opts objstore.HistoryOptions
			if since != "" {
				t, err := parseSince(since, time.Now())
				if err != nil {
					return err
				}
				opts.Since = t
			}
			if commitID != "" || jsonl {
				return a.audit(cmd, domain, commitID, opts.Since)
			}
			store, _, closeAll, err := a.open(cmd, readOnly)
			if err != nil {
				return err
			}
			defer closeAll()
			recs, err := store.History(cmd.Context(), domain, &opts)
			if isNotFound(err) {
				return &exitErr{code: exitError, err: fmt.Errorf("history: not found: no such domain %q (nothing was ever committed to it)", domain)}
			}
			if err != nil {
				return fail(fmt.Errorf("history %q: %w", domain, err))
			}
			if a.json {
				if recs == nil {
					recs = []objstore.LogRecord{}
				}
				return a.printJSON(recs)
			}
			fenced, err := fencedSince(cmd.Context(), store, domain, opts.Since)
			if err != nil {
				return fail(fmt.Errorf("history %q: %w", domain, err))
			}
			fmt.Fprintln(a.stdout, "| Seq | Time | Event | Token | Holder | Commit |")
			fmt.Fprintln(a.stdout, "|---|---|---|---|---|---|")
			row := func(seq, t, what string, token uint64, holder, id string) {
				fmt.Fprintf(a.stdout, "| %s | %s | %s | %d | %s | %s |\n", seq, t, what, token, cell(holder), id)
			}
			for _, r := range recs {
				for len(fenced) > 0 && fencedTime(fenced[0]).Before(r.Time) {
					f := fenced[0]
					row("-", fencedTime(f).UTC().Format(time.RFC3339), fencedEvent(f), f.Token, f.Holder, f.CommitID)
					fenced = fenced[1:]
				}
				row(fmt.Sprint(r.Seq), r.Time.UTC().Format(time.RFC3339), event(r), r.Token, r.Holder, r.ID)
			}
			for _, f := range fenced {
				row("-", fencedTime(f).UTC().Format(time.RFC3339), fencedEvent(f), f.Token, f.Holder, f.CommitID)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&since, "since", "", "only commits at or after `DURATION|TIME` (24h, or 2026-12-01T09:00:00Z)")
	cmd.Flags().StringVar(&commitID, "commit", "", "show the commit with this `ID` and the tenure of its token")
	cmd.Flags().BoolVar(&jsonl, "jsonl", false, "print the audit trail (takeovers, commits with their tenure, the lease) as JSON lines")
	return cmd
}

// parseSince reads --since: a duration back from now, or an RFC 3339 time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, usage("--since %q: want a duration back from now (90m, 24h) or an RFC 3339 time (2026-12-01T09:00:00Z)", s)
}

// event describes one commit in the table.
func event(r objstore.LogRecord) string {
	if r.Fence {
		return fmt.Sprintf("Fence: token raised to %d, older tokens rejected", r.Token)
	}
	var parts []string
	if r.Puts > 0 {
		parts = append(parts, "put "+names(r.PutKeys, r.Puts))
	}
	if r.Deletes > 0 {
		parts = append(parts, "deleted "+names(r.DeletedKeys, r.Deletes))
	}
	if len(parts) == 0 {
		return "Commit without changes"
	}
	return "Commit: " + strings.Join(parts, "; ")
}

// names lists the recorded key names of count keys.
func names(keys []string, count int) string {
	quoted := make([]string, len(keys))
	for i, k := range keys {
		quoted[i] = cell(k)
	}
	s := strings.Join(quoted, ", ")
	switch more := count - len(keys); {
	case len(keys) == 0:
		return fmt.Sprintf("%d keys (names not recorded)", count)
	case more > 0:
		return fmt.Sprintf("%s and %d more", s, more)
	}
	return s
}

// cell makes s safe in a table cell: a key may contain "|".
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
