package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fencedstore/fence/objstore"
)

// fencedLine is one fenced attempt in 'fence history --jsonl'.
type fencedLine struct {
	Kind string `json:"kind"` // "fenced"
	objstore.FencedAttempt
}

// fencedSince returns domain's fenced attempts on record (the newest
// objstore.MaxFencedAttempts), oldest first, those refused before since
// left out.
func fencedSince(ctx context.Context, store *objstore.Store, domain string, since time.Time) ([]objstore.FencedAttempt, error) {
	all, _, err := store.FencedAttempts(ctx, domain, nil)
	if err != nil {
		return nil, err
	}
	all = slices.DeleteFunc(all, func(a objstore.FencedAttempt) bool { return fencedTime(a).Before(since) })
	slices.SortStableFunc(all, func(a, b objstore.FencedAttempt) int { return fencedTime(a).Compare(fencedTime(b)) })
	return all, nil
}

// fencedTime is when a was refused, by its writer's clock as the log's
// commit times are, or, for an unreadable record, when it was stored.
func fencedTime(a objstore.FencedAttempt) time.Time {
	if a.Time.IsZero() {
		return a.Recorded
	}
	return a.Time
}

// fencedEvent describes one fenced attempt in the history table.
func fencedEvent(a objstore.FencedAttempt) string {
	var what string
	switch {
	case a.Error != "":
		what = "unreadable record: " + a.Error
	case a.Fence:
		what = "fence"
	default:
		var parts []string
		if a.Puts > 0 {
			keys := make([]string, len(a.PutKeys))
			for i, k := range a.PutKeys {
				keys[i] = fmt.Sprintf("%s (%s)", k, bytesOf(a.PutSizes[i]))
			}
			parts = append(parts, "put "+names(keys, a.Puts))
		}
		if a.Deletes > 0 {
			parts = append(parts, "deleted "+names(a.DeletedKeys, a.Deletes))
		}
		what = strings.Join(parts, "; ")
	}
	return fmt.Sprintf("Fenced: %s; refused: %s", what, refusal(a))
}

// refusal says why a was refused.
func refusal(a objstore.FencedAttempt) string {
	switch a.Reason {
	case "issued":
		return fmt.Sprintf("the coordinator had issued token %d", a.FencedBy)
	case "claimed":
		return fmt.Sprintf("token %d was already claimed by another commit", a.FencedBy)
	}
	return fmt.Sprintf("token %d was accepted", a.FencedBy)
}

// bytesOf writes a value's size; -1 is unknown.
func bytesOf(n int64) string {
	if n < 0 {
		return "size unknown"
	}
	return fmt.Sprintf("%d bytes", n)
}
