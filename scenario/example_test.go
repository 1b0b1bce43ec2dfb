package scenario_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/filestore"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/scenario"
)

// The stale-holder scenario on an in-memory store.
func ExampleStaleHolder() {
	b := memstore.New()
	store := objstore.New(b, nil)
	res, err := scenario.StaleHolder(context.Background(), store, bucketlease.New(b, nil),
		&scenario.StaleHolderOptions{TTL: 200 * time.Millisecond})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(res.Table())
	fmt.Println("fencing worked:", res.OK())
	// Output:
	// | Step | Event | Token |
	// |---|---|---|
	// | 1 | Lease granted to holder A; store fenced at 1 | 1 |
	// | 2 | Holder A pauses, lease expires | 1 |
	// | 3 | New lease granted to holder B; store fenced at 2 | 2 |
	// | 4 | Holder B writes report.txt, store accepts (manifest seq 3) | 2 |
	// | 5 | Holder A wakes, sends old work | 1 |
	// | 6 | Store rejects the old work (token 1 < highest 2) | 1 |
	// | 7 | Reader sees holder B's bytes | 2 |
	// fencing worked: true
}

// A holder's life on the embedded default (a local directory): take the
// lease with fence.Acquire (the store's highest token as the floor, fence
// on takeover, a session that renews it), write through a Holder, which
// carries the domain and token and stops when the session ends, read
// back. README.md shows this code.
func Example_holder() {
	dir, err := os.MkdirTemp("", "fence-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	b, err := filestore.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	store := objstore.New(b, nil)
	defer store.Close()
	leases := bucketlease.New(b, nil) // lease records live in the same directory

	const domain = "reports/monthly"
	// The session renews the lease every TTL/3; its context ends before
	// the lease could lapse unnoticed, and so do the holder's writes.
	session, err := fence.Acquire(ctx, store, leases, domain, &fence.AcquireOptions{
		Holder: "worker-1", TTL: 10 * time.Second, Wait: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer session.Release(context.WithoutCancel(ctx))
	holder := fence.NewHolder(session, store)

	// One commit publishes both keys at once, or neither.
	_, err = holder.Commit(ctx, []objstore.Change{
		objstore.PutBytes("2026-01.csv", []byte("total,42\n")),
		objstore.PutBytes("index.txt", []byte("2026-01.csv\n")),
	}, nil)
	var fenced *objstore.FencedError
	switch {
	case errors.As(err, &fenced):
		log.Fatalf("a newer holder has token %d; stop", fenced.Highest)
	case errors.Is(err, coord.ErrLeaseLost):
		log.Fatal("the lease may be lost; stop")
	case err != nil:
		log.Fatal(err)
	}

	data, v, err := store.ReadAll(ctx, domain, "2026-01.csv")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("token %d wrote %q", v.Token, data)
	// Output: token 1 wrote "total,42\n"
}
