package outbox_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/outbox"
)

func TestHTTPDeliverer(t *testing.T) {
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Idempotency-Key") != "k1" || r.Method != http.MethodPost || r.Header.Get("Content-Type") != "text/plain" {
			t.Errorf("request %s %v", r.Method, r.Header)
		}
		w.WriteHeader(status)
	}))
	defer srv.Close()
	d := outbox.HTTPDeliverer{}
	rec := outbox.Record{Destination: srv.URL, ContentType: "text/plain", Payload: []byte("x"), Key: "k1"}
	for _, c := range []struct {
		status    int
		ok, final bool
	}{
		{200, true, false}, {204, true, false},
		{500, false, false}, {503, false, false}, {429, false, false}, {408, false, false},
		{400, false, true}, {404, false, true}, {409, false, true},
	} {
		status = c.status
		err := d.Deliver(context.Background(), rec)
		var perm *outbox.PermanentError
		if (err == nil) != c.ok || errors.As(err, &perm) != c.final {
			t.Errorf("status %d: %v; want ok %v, permanent %v", c.status, err, c.ok, c.final)
		}
	}
	rec.Destination = "mailto:ops@example.com"
	var perm *outbox.PermanentError
	if err := d.Deliver(context.Background(), rec); !errors.As(err, &perm) {
		t.Errorf("a mailto destination = %v; want a PermanentError", err)
	}
}

// A delivery that fails leaves its record pending, for the next dispatch.
func TestDispatchFailedDeliveryStaysPending(t *testing.T) {
	var fail atomic.Bool
	fail.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	ctx := context.Background()
	store, c := open(t, t.TempDir())
	sess, err := fence.Acquire(ctx, store, c, "d", nil)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := outbox.Add(sess.Lease().Token, srv.URL, "", []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fence.NewHolder(sess, store).Commit(ctx, []objstore.Change{ch}, nil); err != nil {
		t.Fatal(err)
	}
	_ = sess.Release(ctx)
	res, err := outbox.Dispatch(ctx, store, c, "d", outbox.HTTPDeliverer{}, nil)
	if err != nil || res.Delivered != 0 || len(res.Failed) != 1 || res.Left != 1 {
		t.Fatalf("dispatch to a failing destination = %+v, %v", res, err)
	}
	fail.Store(false)
	res, err = outbox.Dispatch(ctx, store, c, "d", outbox.HTTPDeliverer{}, nil)
	if err != nil || res.Delivered != 1 || res.Left != 0 {
		t.Fatalf("dispatch after the destination recovered = %+v, %v", res, err)
	}
}

// A dispatch that stops on an error still says how many records are left.
func TestDispatchLeftOnError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) }))
	defer srv.Close()
	ctx := context.Background()
	store, c := open(t, t.TempDir())
	sess, err := fence.Acquire(ctx, store, c, "d", nil)
	if err != nil {
		t.Fatal(err)
	}
	var changes []objstore.Change
	for range 2 {
		ch, err := outbox.Add(sess.Lease().Token, srv.URL, "", []byte("{}"))
		if err != nil {
			t.Fatal(err)
		}
		changes = append(changes, ch)
	}
	if _, err := fence.NewHolder(sess, store).Commit(ctx, changes, nil); err != nil {
		t.Fatal(err)
	}
	_ = sess.Release(ctx)
	// The first delivery's record is fenced: another holder takes the
	// domain over while it is delivered.
	hooks := outbox.Hooks{Delivered: func(outbox.Record) {
		if _, err := fence.Break(ctx, store, c, "d", &fence.BreakOptions{Holder: "other"}); err != nil {
			t.Error(err)
		}
	}}
	res, err := outbox.Dispatch(ctx, store, c, "d", outbox.HTTPDeliverer{}, &outbox.DispatchOptions{Holder: "disp", Hooks: hooks})
	if err == nil || res.Delivered != 0 || res.Left != 2 {
		t.Fatalf("dispatch fenced mid-way = %+v, %v; want an error, nothing delivered, 2 left", res, err)
	}
}
