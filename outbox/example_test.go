package outbox_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/outbox"
)

// A job commits its report and the webhook that announces it in one
// fenced commit; a dispatcher then posts the webhook with an
// Idempotency-Key header.
func Example() {
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Printf("POST %s %s, Idempotency-Key of %d characters\n", r.URL.Path, body, len(r.Header.Get("Idempotency-Key")))
		w.WriteHeader(http.StatusAccepted)
	}))
	defer hook.Close()

	ctx := context.Background()
	b := memstore.New()
	c := coord.New(bucketlease.New(b, nil))
	store := objstore.New(b, &objstore.Options{Issuer: fence.Issuer(c)})

	sess, err := fence.Acquire(ctx, store, c, "reports/daily", nil)
	if err != nil {
		panic(err)
	}
	job := fence.NewHolder(sess, store)
	announce, err := outbox.Add(job.Token(), hook.URL+"/report-ready", "application/json", []byte(`{"report":"2026-12-01.csv"}`))
	if err != nil {
		panic(err)
	}
	if _, err := job.Commit(ctx, []objstore.Change{objstore.PutBytes("2026-12-01.csv", []byte("region,total\neu,3\n")), announce}, nil); err != nil {
		panic(err)
	}
	_ = sess.Release(ctx)

	res, err := outbox.Dispatch(ctx, store, c, "reports/daily", outbox.HTTPDeliverer{}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("delivered %d, left %d\n", res.Delivered, res.Left)
	// Output:
	// POST /report-ready {"report":"2026-12-01.csv"}, Idempotency-Key of 32 characters
	// delivered 1, left 0
}
