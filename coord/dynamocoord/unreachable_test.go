package dynamocoord

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/fencedstore/fence/coord"
)

// errRefused is a connection refused, as the SDK reports it: the
// request was never sent.
var errRefused = fmt.Errorf("operation error DynamoDB: UpdateItem, request send failed: %w",
	&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)})

// TestAcquireRefusedConnection: a refused connection is reported at once
// as a failure, after one update, never as an unknown outcome: nothing
// was sent, so nothing can have applied.
func TestAcquireRefusedConnection(t *testing.T) {
	if got := classify(errRefused); got != final {
		t.Errorf("classify(connection refused) = %d, want final", got)
	}
	f, c := newFake(t, step{err: errRefused}, step{err: errRefused}, step{err: errRefused})
	_, err := c.TryAcquire(t.Context(), request())
	if !errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, coord.ErrOutcomeUnknown) || f.updates != 1 {
		t.Fatalf("TryAcquire = %v after %d updates; want the refused connection after 1", err, f.updates)
	}
}
