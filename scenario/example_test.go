package scenario_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/scenario"
)

// The stale-holder scenario on an in-memory store.
func ExampleStaleHolder() {
	b := memstore.New()
	store := objstore.New(b, nil)
	res, err := scenario.StaleHolder(context.Background(), store, coord.New(bucketlease.New(b, nil)),
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
