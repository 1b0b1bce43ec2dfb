package coord_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/objstore/memstore"
)

func Example() {
	ctx := context.Background()
	c := coord.New(bucketlease.New(memstore.New(), nil))

	l, err := c.TakeLease(ctx, "reports/monthly", &coord.TakeOptions{Holder: "worker-1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := coord.NewSession(ctx, c, l, nil)
	fmt.Println("worker-1 holds token", s.Lease().Token)
	// Do the work under s.Ctx(), attaching ("reports/monthly", token) to
	// every write.

	_, err = c.TakeLease(ctx, "reports/monthly", &coord.TakeOptions{Holder: "worker-2"})
	fmt.Println("worker-2 refused:", errors.Is(err, coord.ErrLeaseHeld))

	if err := s.Release(ctx); err != nil {
		fmt.Println(err)
		return
	}
	l2, err := c.TakeLease(ctx, "reports/monthly", &coord.TakeOptions{Holder: "worker-2"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("worker-2 holds token", l2.Token)
	// Output:
	// worker-1 holds token 1
	// worker-2 refused: true
	// worker-2 holds token 2
}
