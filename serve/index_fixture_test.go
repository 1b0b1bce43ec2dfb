package serve_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/memstore"
)

// driverPut writes an object unconditionally, as a foreign client does.
var driverPut = driver.PutOptions{}

// coordDown is a coordinator whose every read fails with msg.
func coordDown(msg string) *coord.Coordinator { return coord.New(errDriver{msg: msg}) }

type errDriver struct {
	coord.Driver
	msg string
}

func (d errDriver) State(context.Context, string) (coord.State, error) {
	return coord.State{}, errorString(d.msg)
}

type errorString string

func (e errorString) Error() string { return string(e) }

// newAttributionFixture is a store where the process root@vm committed
// in three domains under leases held by others: "fenced" under
// worker-b's lease, which fenced the domain and is released now;
// "nofence" under worker-c's lease, taken without a fence and held
// still; "old" under worker-d's, released, and with more commits since
// its takeover than its log keeps, so that nothing names its holder.
func newAttributionFixture(t *testing.T) *fixture {
	t.Helper()
	b := memstore.New()
	c := coord.New(bucketlease.New(b, nil))
	for _, d := range []struct {
		domain, holder   string
		noFence, release bool
		commits          int
	}{
		{"fenced", "worker-b", false, true, 1},
		{"nofence", "worker-c", true, false, 1},
		{"old", "worker-d", false, true, 3},
	} {
		store := objstore.New(b, &objstore.Options{Holder: "root@vm", LogLimit: 2})
		l, err := fence.AcquireToken(ctx(t), store, c, d.domain, &fence.AcquireOptions{Holder: d.holder, TTL: time.Hour, NoFence: d.noFence})
		if err != nil {
			t.Fatal(err)
		}
		for range d.commits {
			if _, err := store.Put(ctx(t), d.domain, "k", l.Token, strings.NewReader("v"), 1); err != nil {
				t.Fatal(err)
			}
		}
		if d.release {
			if err := c.Release(ctx(t), l); err != nil {
				t.Fatal(err)
			}
		}
	}
	return &fixture{b: b, store: objstore.New(b, nil), c: c}
}
