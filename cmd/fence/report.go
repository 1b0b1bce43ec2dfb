package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence/objstore/driver"
)

// report prints a failed command's error on stderr and returns the exit
// code: "fence: MESSAGE" (and, for a usage error, a line pointing at
// --help), or with --json one line {"error": MESSAGE, "code": N}, or
// with --log-format json one JSON object {"time", "level": "ERROR",
// "msg": MESSAGE, "code": N, "hint"} (hint for usage errors only). A
// command that a signal stopped exits 128 plus the signal's number.
func (a *app) report(ctx context.Context, cmd *cobra.Command, err error) int {
	if err == nil {
		return exitOK
	}
	if cmd != nil && cmd.Context() != nil && context.Cause(cmd.Context()) == errTimeout && !errors.Is(err, errTimeout) {
		err = fmt.Errorf("%w (--timeout %s): %w", errTimeout, a.timeout, err)
	}
	code := exitCode(err)
	if in := interruption(ctx); in != nil {
		// The command's own account of a signal comes first: exec
		// counts the first of SIGHUP, SIGQUIT, SIGINT and SIGTERM,
		// and a SIGTERM after a SIGHUP must not turn its 129 into 143.
		var own *interrupted
		if errors.As(err, &own) {
			in = own
		} else {
			err = fmt.Errorf("%w: %w", in, err)
		}
		code = in.exitCode()
	}
	// The line says what failed and the store's answer (its error code);
	// the SDK's full text, many lines for Azure, only at --log-level
	// debug.
	msg := tidy(driver.Brief(err))
	if a.logger != nil && a.logger.Enabled(ctx, slog.LevelDebug) && msg != err.Error() {
		a.logger.Debug("fence: the error in full", "err", err.Error())
	}
	if a.json {
		b, merr := json.Marshal(struct {
			Error string `json:"error"`
			Code  int    `json:"code"`
		}{msg, code})
		if merr == nil {
			fmt.Fprintf(a.stderr, "%s\n", b)
			return code
		}
	}
	hint := ""
	if code == exitUsage && cmd != nil {
		hint = fmt.Sprintf("Run '%s --help' for usage.", cmd.CommandPath())
	}
	if a.jsonLogs() {
		attrs := []any{"code", code}
		if hint != "" {
			attrs = append(attrs, "hint", hint)
		}
		a.stderrJSON().Error(msg, attrs...)
		return code
	}
	fmt.Fprintf(a.stderr, "fence: %s\n", msg)
	if hint != "" {
		fmt.Fprintln(a.stderr, hint)
	}
	return code
}
