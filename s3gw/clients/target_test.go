package clients

import (
	"context"
	"errors"
	"os/exec"
	"testing"
)

// A target is an S3 endpoint that a scenario's CMD writes through, with
// the way to run CMD against it and to read back what it stored.
// minioTarget talks to MinIO directly and sets the contract itself. A
// target for the gateway would run CMD as `fence exec DOMAIN --s3 -- CMD`
// (its command: fence's argv followed by CMD's, with an environment that
// holds fence's own settings and extra), leave the contract to exec, and
// read back through fence's store; runClients(t, thatTarget) then runs
// every client through it.
type target interface {
	// open prepares a fresh place for one client's scenario (a bucket, a
	// domain) and removes it when t ends.
	open(t *testing.T, client string) run
}

// A run is one client's place on a target.
type run interface {
	// prefix is the key prefix the scenario writes under, ending in "/".
	prefix() string
	// command returns CMD (argv) set to run against the target, with
	// extra (NAME=value entries the harness adds, such as FENCE_S3_SRC)
	// in its environment on top of the contract.
	command(ctx context.Context, argv []string, extra []string) *exec.Cmd
	// read returns the bytes stored under key (a full key, prefix
	// included, as the client named it), or an error wrapping errNotFound.
	read(ctx context.Context, key string) ([]byte, error)
	// keys returns every key stored under prefix().
	keys(ctx context.Context) ([]string, error)
}

// errNotFound is what run.read wraps for a key that holds nothing.
var errNotFound = errors.New("no such key")
