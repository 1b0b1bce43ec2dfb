package coord_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/observe"
)

// TestObserverLeases: acquisitions, a held lease, renewals, a release and
// a lease lost to a takeover reach the observer, the loss naming the new
// holder and token.
func TestObserverLeases(t *testing.T) {
	ctx := context.Background()
	rec := &observe.Recorder{}
	c := coord.New(bucketlease.New(memstore.New(), nil), coord.WithObserver(rec))
	a, err := c.TakeLease(ctx, "d", &coord.TakeOptions{Holder: "a", TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.TakeLease(ctx, "d", &coord.TakeOptions{Holder: "b", TTL: time.Minute}); !errors.Is(err, coord.ErrLeaseHeld) {
		t.Fatalf("second holder = %v; want held", err)
	}
	if a, err = c.Renew(ctx, a, time.Minute); err != nil {
		t.Fatal(err)
	}
	b, err := c.TakeLease(ctx, "d", &coord.TakeOptions{Holder: "b", TTL: time.Minute, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Renew(ctx, a, time.Minute); !errors.Is(err, coord.ErrLeaseLost) {
		t.Fatalf("renewal after the takeover = %v; want lost", err)
	}
	if err := c.Release(ctx, b); err != nil {
		t.Fatal(err)
	}
	type ev struct {
		event         observe.LeaseEvent
		holder        string
		token         uint64
		other         string
		otherToken    uint64
		wantErr       bool
		wantExpiresAt bool
	}
	want := []ev{
		{observe.Acquired, "a", a.Token, "", 0, false, true},
		{observe.Held, "b", 0, "a", a.Token, true, false},
		{observe.Renewed, "a", a.Token, "", 0, false, true},
		{observe.Acquired, "b", b.Token, "", 0, false, true},
		{observe.Lost, "a", a.Token, "b", b.Token, true, false},
		{observe.Released, "b", b.Token, "", 0, false, false},
	}
	got := rec.Leases()
	if len(got) != len(want) {
		t.Fatalf("%d lease events, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Event != w.event || g.Domain != "d" || g.Holder != w.holder || g.Token != w.token || g.OtherHolder != w.other || g.OtherToken != w.otherToken ||
			(g.Err != nil) != w.wantErr || (w.wantExpiresAt && g.Expires.IsZero()) {
			t.Errorf("event %d = %+v\nwant %+v", i, g, w)
		}
	}
	ops := map[string]int{}
	for _, call := range rec.Calls() {
		if call.System != observe.Coordinator || call.Err != nil {
			t.Errorf("call %+v", call)
		}
		ops[call.Op]++
	}
	if ops["acquire"] != 3 || ops["renew"] != 2 || ops["release"] != 1 {
		t.Errorf("calls by op = %v", ops)
	}
}
