// Command fence runs fence's stale-holder demo and gives scripts fenced
// leases, writes and reads on an object store. See README.md for the
// contract: commands, flags, environment and exit codes.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
