package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// jsonLogs reports whether --log-format (FENCE_LOG_FORMAT) asks for JSON
// lines: then every line fence writes to stderr is one JSON object. It is
// answered from the command line itself when the flags could not be
// parsed (a usage error), so that the error is JSON too.
func (a *app) jsonLogs() bool {
	if a.logFormat != "" {
		return a.logFormat == "json"
	}
	format := a.getenv(envLogFormat)
	for i, arg := range a.args {
		if arg == "--" {
			break
		}
		if v, ok := strings.CutPrefix(arg, "--log-format="); ok {
			format = v
		} else if arg == "--log-format" && i+1 < len(a.args) {
			format = a.args[i+1]
		}
	}
	return strings.EqualFold(format, "json")
}

// stderrJSON returns the logger that writes fence's own stderr lines
// (notices, warnings, the final error) as JSON objects.
func (a *app) stderrJSON() *slog.Logger {
	if a.jsonErr == nil {
		a.jsonErr = slog.New(slog.NewJSONHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return a.jsonErr
}

// notice writes a line that is not the command's data to stderr: "fence:
// MESSAGE", or with --log-format json one JSON object at level.
func (a *app) notice(level slog.Level, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if a.jsonLogs() {
		a.stderrJSON().Log(context.Background(), level, msg)
		return
	}
	fmt.Fprintf(a.stderr, "fence: %s\n", msg)
}

// lines is an io.Writer that passes each whole line written to it to
// a.notice, for progress that a library writes to stderr.
type lines struct {
	a   *app
	buf []byte
}

func (w *lines) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			return len(p), nil
		}
		w.a.stderrJSON().Info(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
}

// progressOut returns where a library's progress lines go: stderr, or
// with --log-format json a writer that makes each line a JSON object.
func (a *app) progressOut() io.Writer {
	if a.jsonLogs() {
		return &lines{a: a}
	}
	return a.stderr
}
