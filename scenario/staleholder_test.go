package scenario_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/filestore"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/scenario"
)

func backends(t *testing.T) map[string]driver.Backend {
	fs, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() })
	return map[string]driver.Backend{"memstore": memstore.New(), "filestore": fs}
}

func TestStaleHolder(t *testing.T) {
	for name, b := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			store := objstore.New(b, nil)
			c := coord.New(bucketlease.New(b, nil))
			var streamed []scenario.Step
			opts := &scenario.StaleHolderOptions{TTL: 200 * time.Millisecond, OnStep: func(s scenario.Step) { streamed = append(streamed, s) }}

			res, err := scenario.StaleHolder(ctx, store, c, opts)
			if err != nil {
				t.Fatalf("StaleHolder: %v", err)
			}
			if !res.OK() || !res.StaleRejected || !res.ReaderSawB {
				t.Fatalf("StaleHolder = %+v, want the stale write rejected and B's bytes read\n%s", res, res.Table())
			}
			if res.TokenB <= res.TokenA || res.TokenA == 0 {
				t.Fatalf("tokens A=%d B=%d, want 0 < A < B", res.TokenA, res.TokenB)
			}
			if len(res.Steps) != 7 || len(streamed) != len(res.Steps) {
				t.Fatalf("%d steps, %d streamed, want 7:\n%s", len(res.Steps), len(streamed), res.Table())
			}
			for i, want := range []struct {
				event string
				token uint64
			}{
				{"Lease granted to holder A", res.TokenA},
				{"Holder A pauses, lease expires", res.TokenA},
				{"New lease granted to holder B", res.TokenB},
				{"Holder B writes", res.TokenB},
				{"Holder A wakes, sends old work", res.TokenA},
				{"Store rejects the old work", res.TokenA},
				{"Reader sees holder B's bytes", res.TokenB},
			} {
				s := res.Steps[i]
				if s.N != i+1 || !strings.HasPrefix(s.Event, want.event) || s.Token != want.token || streamed[i] != s {
					t.Errorf("step %d = %+v, want %q with token %d", i+1, s, want.event, want.token)
				}
			}
			for _, tok := range []uint64{res.TokenA, res.TokenB} {
				if !strings.Contains(res.Rejection, " "+strconv.FormatUint(tok, 10)) {
					t.Errorf("rejection %q does not name token %d", res.Rejection, tok)
				}
			}
			table := res.Table()
			if !strings.HasPrefix(table, "| Step | Event | Token |\n|---|---|---|\n| 1 | Lease granted to holder A") {
				t.Errorf("table:\n%s", table)
			}

			// A second run continues above the first: tokens never go back.
			res2, err := scenario.StaleHolder(ctx, store, c, opts)
			if err != nil || !res2.OK() {
				t.Fatalf("second run: %+v, %v", res2, err)
			}
			if res2.TokenA <= res.TokenB {
				t.Fatalf("second run's token A %d is not above the first run's B %d", res2.TokenA, res.TokenB)
			}
			// B's lease was released: the domain is free.
			st, err := c.State(ctx, scenario.DefaultDomain)
			if err != nil || st.Held(time.Now()) {
				t.Fatalf("after the run the lease is %+v, %v; want it released", st, err)
			}
		})
	}
}

// brokenDriver hands every holder token 1 and never reports a lease
// as held: what a lock service without fencing tokens amounts to.
type brokenDriver struct{}

func (brokenDriver) TryAcquire(_ context.Context, r coord.Request) (coord.Lease, error) {
	return coord.Lease{Domain: r.Domain, Holder: r.Holder, Token: 1, Expires: time.Now().Add(r.TTL)}, nil
}
func (brokenDriver) Renew(_ context.Context, l coord.Lease, ttl time.Duration) (coord.Lease, error) {
	return l, nil
}
func (brokenDriver) Release(context.Context, coord.Lease) error { return nil }
func (brokenDriver) State(_ context.Context, d string) (coord.State, error) {
	return coord.State{Domain: d}, nil
}

// TestStaleHolderBrokenCoordinatorRefused: a coordinator that hands every
// holder the same token (a lock service without fencing tokens, or one
// whose records were wiped mid-takeover) cannot let two holders in: B's
// takeover at A's token is refused by the store, and the scenario reports
// an error, never success.
func TestStaleHolderBrokenCoordinatorRefused(t *testing.T) {
	b := memstore.New()
	res, err := scenario.StaleHolder(context.Background(), objstore.New(b, nil), coord.New(brokenDriver{}), nil)
	var fe *objstore.FencedError
	if !errors.As(err, &fe) || fe.Token != 1 || fe.ClaimedBy == "" {
		t.Fatalf("StaleHolder with a coordinator that issues token 1 twice: %+v, %v; want B's fence refused as claimed", res, err)
	}
	if res.OK() {
		t.Fatalf("reported success:\n%s", res.Table())
	}
}

func TestStaleHolderCanceled(t *testing.T) {
	b := memstore.New()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := scenario.StaleHolder(ctx, objstore.New(b, nil), coord.New(bucketlease.New(b, nil)), nil); err == nil {
		t.Fatal("StaleHolder with a canceled context succeeded")
	}
}
