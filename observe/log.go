package observe

import (
	"context"
	"log/slog"
)

// Log returns an Observer that writes every event to l:
//   - commits at info when accepted, warn when fenced or of unknown
//     outcome, error when they failed;
//   - lease acquisitions, releases and held leases at info, renewals at
//     debug, losses and failed calls at warn;
//   - collections at info (warn when they failed);
//   - calls to the store and coordinator at debug.
//
// Each record carries the domain, token, holder and commit id it is about
// as attributes.
func Log(l *slog.Logger) Observer { return logger{l} }

type logger struct{ l *slog.Logger }

func (g logger) Commit(ctx context.Context, e Commit) {
	attrs := []slog.Attr{
		slog.String("domain", e.Domain), slog.Uint64("token", e.Token), slog.String("holder", e.Holder),
		slog.String("commit_id", e.ID), slog.String("outcome", string(e.Outcome)),
	}
	level, msg := slog.LevelInfo, "fence: commit accepted"
	switch e.Outcome {
	case Accepted:
		attrs = append(attrs, slog.Uint64("seq", e.Seq))
		if e.Fence {
			msg = "fence: domain fenced at a new token"
		}
	case Fenced:
		level, msg = slog.LevelWarn, "fence: commit fenced: a newer holder's token is in force; nothing was written"
		attrs = append(attrs, slog.Uint64("highest", e.Highest))
	case Unknown:
		level, msg = slog.LevelWarn, "fence: commit outcome unknown: retry it with its commit id"
	default:
		level, msg = slog.LevelError, "fence: commit failed; nothing was written"
	}
	if e.Outcome != Accepted || !e.Fence {
		attrs = append(attrs, slog.Int("puts", e.Puts), slog.Int("deletes", e.Deletes))
	}
	if e.Fence {
		attrs = append(attrs, slog.Bool("fence", true))
	}
	if e.Retry {
		attrs = append(attrs, slog.Bool("retry", true))
	}
	if e.Settled {
		attrs = append(attrs, slog.Bool("settled", true))
	}
	if e.LeaseRemaining != 0 {
		attrs = append(attrs, slog.Duration("lease_remaining", e.LeaseRemaining))
	}
	attrs = append(attrs, slog.Duration("duration", e.Duration))
	if e.Err != nil {
		attrs = append(attrs, slog.String("err", e.Err.Error()))
	}
	g.l.LogAttrs(ctx, level, msg, attrs...)
}

func (g logger) Lease(ctx context.Context, e Lease) {
	attrs := []slog.Attr{slog.String("domain", e.Domain), slog.String("holder", e.Holder)}
	if e.Token != 0 {
		attrs = append(attrs, slog.Uint64("token", e.Token))
	}
	if !e.Expires.IsZero() && (e.Event == Acquired || e.Event == Renewed) {
		attrs = append(attrs, slog.Time("expires", e.Expires))
	}
	if e.OtherHolder != "" {
		attrs = append(attrs, slog.String("other_holder", e.OtherHolder))
	}
	if e.OtherToken != 0 {
		attrs = append(attrs, slog.Uint64("other_token", e.OtherToken))
	}
	attrs = append(attrs, slog.Duration("duration", e.Duration))
	if e.Err != nil {
		attrs = append(attrs, slog.String("err", e.Err.Error()))
	}
	level, msg := slog.LevelInfo, "fence: lease "+string(e.Event)
	switch e.Event {
	case Renewed:
		level = slog.LevelDebug
	case Held:
		msg = "fence: lease held by another holder"
	case Lost:
		level = slog.LevelWarn
	case CallFailed:
		level, msg = slog.LevelWarn, "fence: lease call failed"
	}
	g.l.LogAttrs(ctx, level, msg, attrs...)
}

func (g logger) Collect(ctx context.Context, e Collect) {
	attrs := []slog.Attr{
		slog.String("domain", e.Domain), slog.Int("deleted", e.Deleted), slog.Int64("deleted_bytes", e.DeletedBytes),
		slog.Int("scanned", e.Scanned), slog.Int("live", e.Live), slog.Int("pending", e.Pending), slog.Int("kept", e.Kept),
		slog.Duration("duration", e.Duration),
	}
	if e.Err != nil {
		g.l.LogAttrs(ctx, slog.LevelWarn, "fence: gc failed", append(attrs, slog.String("err", e.Err.Error()))...)
		return
	}
	g.l.LogAttrs(ctx, slog.LevelInfo, "fence: gc", attrs...)
}

func (g logger) Call(ctx context.Context, e Call) {
	if !g.l.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{slog.String("system", string(e.System)), slog.String("op", e.Op), slog.Duration("duration", e.Duration)}
	if e.Err != nil {
		attrs = append(attrs, slog.String("err", e.Err.Error()))
	}
	g.l.LogAttrs(ctx, slog.LevelDebug, "fence: call", attrs...)
}
