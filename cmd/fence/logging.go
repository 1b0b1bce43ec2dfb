package main

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence/observe"
)

// Environment variables of the logging flags.
const (
	envLogLevel  = "FENCE_LOG_LEVEL"
	envLogFormat = "FENCE_LOG_FORMAT"
)

// logLevels are --log-level's values; "off", the default, logs nothing.
var logLevels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

// setupLogging resolves --log-level and --log-format: with a level, every
// decision at or above it (package observe) is logged to stderr, as text
// or as JSON lines.
func (a *app) setupLogging(cmd *cobra.Command) error {
	level := strings.ToLower(a.resolve(cmd, "log-level", envLogLevel))
	format := strings.ToLower(a.resolve(cmd, "log-format", envLogFormat))
	if format != "text" && format != "json" {
		return usage("--log-format %q: want text or json", format)
	}
	a.logFormat = format
	if level == "off" || level == "" {
		a.logger = slog.New(slog.DiscardHandler)
		return nil
	}
	l, ok := logLevels[level]
	if !ok {
		return usage("--log-level %q: want off, debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: l}
	if format == "json" {
		a.logger = slog.New(slog.NewJSONHandler(a.stderr, opts))
	} else {
		a.logger = slog.New(slog.NewTextHandler(a.stderr, opts))
	}
	a.logs = observe.Log(a.logger)
	return nil
}

// observer is what the Store and the coordinator report to: the log and,
// under fence exec --metrics-*, the metrics.
func (a *app) observer() observe.Observer {
	var obs []observe.Observer
	if a.logs != nil {
		obs = append(obs, a.logs)
	}
	if a.metrics != nil {
		obs = append(obs, a.metrics)
	}
	if len(obs) == 0 {
		return nil
	}
	return observe.Multi(obs...)
}

// logFlags adds the logging flags to the root's persistent flags.
func (a *app) logFlags(cmd *cobra.Command) {
	pf := cmd.PersistentFlags()
	pf.String("log-level", "off", fmt.Sprintf("log every decision (commits, fences, leases, gc) at or above this `level` to stderr: off, debug, info, warn, error (env %s)", envLogLevel))
	pf.String("log-format", "text", fmt.Sprintf("log records as text or json lines (env %s)", envLogFormat))
}
