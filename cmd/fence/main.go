// Command fence runs fence's stale-holder demo and gives scripts fenced
// leases, writes and reads on an object store. See README.md for the
// contract: commands, flags, environment and exit codes.
package main

import (
	"context"
	"os"
)

func main() {
	ctx := signalContext(context.Background())
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
