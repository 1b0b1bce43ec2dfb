package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/objstore"
)

// audit prints domain's audit trail as JSON lines, or one commit of it.
func (a *app) audit(cmd *cobra.Command, domain, commitID string, since time.Time) error {
	store, c, closeAll, err := a.open(cmd, access{coord: true})
	if err != nil {
		return err
	}
	defer closeAll()
	trail, err := fence.Audit(cmd.Context(), store, c, domain)
	if isNotFound(err) {
		return &exitErr{code: exitError, err: fmt.Errorf("history: not found: no such domain %q (nothing was ever committed to it)", domain)}
	}
	if err != nil {
		return fail(fmt.Errorf("history %q: %w", domain, err))
	}
	if commitID != "" {
		e, err := trail.Find(commitID)
		if errors.Is(err, fence.ErrNotInLog) {
			return &exitErr{code: exitError, err: fmt.Errorf("history %q: %w", domain, err)}
		}
		if err != nil {
			return fail(err)
		}
		if a.json {
			return a.printJSON(e)
		}
		fmt.Fprintln(a.stdout, describeCommit(e))
		return nil
	}
	fenced, err := fencedSince(cmd.Context(), store, domain, since)
	if err != nil {
		return fail(fmt.Errorf("history %q: %w", domain, err))
	}
	enc := json.NewEncoder(a.stdout)
	for _, e := range trail.Events {
		for len(fenced) > 0 && (e.Kind == "lease" || fencedTime(fenced[0]).Before(e.Time)) {
			if err := enc.Encode(fencedLine{Kind: "fenced", FencedAttempt: fenced[0]}); err != nil {
				return err
			}
			fenced = fenced[1:]
		}
		if e.Kind != "lease" && e.Time.Before(since) {
			continue
		}
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	for _, f := range fenced {
		if err := enc.Encode(fencedLine{Kind: "fenced", FencedAttempt: f}); err != nil {
			return err
		}
	}
	return nil
}

// describeCommit tells one commit and its tenure in a few lines.
func describeCommit(e fence.AuditEvent) string {
	when := func(ev *fence.AuditEvent) string {
		return fmt.Sprintf("%s (seq %d, holder %q, commit %s)", ev.Time.UTC().Format(time.RFC3339Nano), ev.Seq, ev.Holder, ev.CommitID)
	}
	s := fmt.Sprintf("%s %s: seq %d at %s, token %d, holder %q", e.Kind, e.CommitID, e.Seq, e.Time.UTC().Format(time.RFC3339Nano), e.Token, e.Holder)
	if e.Kind == "commit" {
		s += "\n  " + event(logRecordOf(e))
	}
	if t := e.Tenure; t != nil {
		if t.Since != nil {
			s += fmt.Sprintf("\n  token %d began with the takeover at %s", t.Token, when(t.Since))
		} else {
			s += fmt.Sprintf("\n  token %d was taken before the oldest commit the log holds", t.Token)
		}
		if t.EndedBy != nil {
			s += fmt.Sprintf("\n  token %d ended at %s, by token %d: from then on the store rejected token %d", t.Token, when(t.EndedBy), t.EndedBy.Token, t.Token)
		} else {
			s += fmt.Sprintf("\n  token %d is still the domain's highest", t.Token)
		}
	}
	return s
}

// logRecordOf is e as the history table's event column reads it.
func logRecordOf(e fence.AuditEvent) objstore.LogRecord {
	return objstore.LogRecord{Token: e.Token, Puts: e.Puts, Deletes: e.Deletes, PutKeys: e.PutKeys, DeletedKeys: e.DeletedKeys, Fence: e.Kind == "takeover"}
}
