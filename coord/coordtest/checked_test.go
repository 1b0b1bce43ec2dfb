package coordtest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/fencedstore/fence/coord"
)

// TestCheckedReportsInvalidArguments: the suite's wrapper reports every
// invalid argument that reaches it and does not pass it on (its Driver is
// nil, so passing one on would panic).
func TestCheckedReportsInvalidArguments(t *testing.T) {
	var reports []string
	c := checked{errorf: func(format string, args ...any) { reports = append(reports, fmt.Sprintf(format, args...)) }}
	ctx := context.Background()
	valid := coord.Lease{Domain: "d", Holder: "A", Token: 1}
	_, err1 := c.TryAcquire(ctx, coord.Request{Domain: "a//b", Holder: "A", TTL: time.Second})
	_, err2 := c.Renew(ctx, coord.Lease{Domain: "d", Holder: "A"}, time.Second)
	_, err3 := c.Renew(ctx, valid, time.Millisecond)
	err4 := c.Release(ctx, coord.Lease{Domain: "d", Token: 1})
	_, err5 := c.State(ctx, "/abs")
	for i, err := range []error{err1, err2, err3, err4, err5} {
		if !errors.Is(err, coord.ErrInvalid) {
			t.Errorf("call %d: %v; want ErrInvalid", i+1, err)
		}
	}
	if len(reports) != 5 {
		t.Fatalf("%d reports; want one per invalid call: %q", len(reports), reports)
	}
}
