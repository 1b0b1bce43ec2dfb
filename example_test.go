package fence_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/config"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
)

// The pipeline a holder writes: open a store from its URL (here the
// embedded default, a local directory; s3://, minio:// and a dynamodb://
// coordinator work the same), take the lease, stream a CSV through a
// Writer, commit several keys at once, read a range back, and stop when
// the session ends. README.md shows this code.
func Example_holder() {
	dir, err := os.MkdirTemp("", "fence-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	// Lease records live in the same directory; Coord could name DynamoDB.
	o, err := config.Open(ctx, "file://"+dir, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer o.Close()

	// The session renews the lease every TTL/3 and ends before the lease
	// could lapse unnoticed; the holder's writes end with it.
	session, err := fence.Acquire(ctx, o.Store, o.Coordinator, "reports/monthly", &fence.AcquireOptions{
		Holder: "worker-1", TTL: 10 * time.Second, Wait: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer session.Release(context.WithoutCancel(ctx))
	holder := fence.NewHolder(session, o.Store)

	// Stream a CSV: nothing is visible until Close commits it.
	w := holder.NewWriter(ctx, "2026-01/rows.csv")
	for i := range 1000 {
		fmt.Fprintf(w, "%d,%d\n", i, i*i)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	// One commit publishes both keys at once, or neither.
	_, err = holder.Commit(ctx, []objstore.Change{
		objstore.PutBytes("2026-01/summary.csv", []byte("rows,1000\n")),
		objstore.PutBytes("index.txt", []byte("2026-01\n")),
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

	// Read rows 500 to 502 back: a range of the CSV.
	rc, err := o.Store.NewRangeReader(ctx, "reports/monthly", "2026-01/rows.csv", 4927, 33)
	if err != nil {
		log.Fatal(err)
	}
	defer rc.Close()
	part, err := io.ReadAll(rc)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("token %d; bytes 4927 to 4959:\n%s", holder.Token(), part)
	// Output:
	// token 1; bytes 4927 to 4959:
	// 500,250000
	// 501,251001
	// 502,252004
}
