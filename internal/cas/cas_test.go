package cas_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fencedstore/fence/internal/cas"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
)

// counter is an Updater that adds one to a decimal counter object, and
// recognises its own write in the value read back by an attempt id.
type counter struct {
	b       driver.Backend
	id      string
	wrote   bool
	landed  bool // seen in a read-back after a failed write
	failed  int
	stopErr error
}

type state struct {
	n  int
	by string // the attempt id of the last write
}

func (c *counter) Read(ctx context.Context) (state, string, error) {
	rc, info, err := c.b.Get(ctx, "n", driver.GetOptions{})
	if errors.Is(err, driver.ErrNotFound) {
		return state{}, "", nil
	}
	if err != nil {
		return state{}, "", err
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return state{}, "", err
	}
	var s state
	_, err = fmt.Sscan(string(data), &s.n, &s.by)
	return s, info.ETag, err
}

func (c *counter) Decide(_ context.Context, cur state) (cas.Write, bool, error) {
	if cur.by == c.id {
		c.landed = true
		return cas.Write{}, true, nil
	}
	return cas.Bytes([]byte(strconv.Itoa(cur.n+1) + " " + c.id)), false, nil
}

func (c *counter) Wrote(context.Context, string) { c.wrote = true }
func (c *counter) Failed(state, error)           { c.failed++ }
func (c *counter) Stop(err error) error {
	if c.failed > 0 {
		c.stopErr = fmt.Errorf("outcome unknown: %w", err)
	} else {
		c.stopErr = err
	}
	return c.stopErr
}

func run(t *testing.T, b driver.Backend, c *counter) error {
	t.Helper()
	cur, etag, err := c.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return cas.Run(t.Context(), b, cas.Update{Key: "n"}, cas.Updater[state](c), cur, etag)
}

// Concurrent updates each land exactly once: a lost race (412) reads
// again and decides on the new value, and no increment is lost.
func TestConcurrentUpdatesAllLand(t *testing.T) {
	b := memstore.New()
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			c := &counter{b: b, id: fmt.Sprint("w", i)}
			if err := run(t, b, c); err != nil || !c.wrote {
				t.Errorf("update %d: %v (wrote %v)", i, err, c.wrote)
			}
		})
	}
	wg.Wait()
	got, _, err := (&counter{b: b}).Read(t.Context())
	if err != nil || got.n != n {
		t.Fatalf("counter = %d, %v; want %d", got.n, err, n)
	}
}

// A write whose reply was lost is found in the read-back and is not
// applied again.
func TestLostReplySettledByReadBack(t *testing.T) {
	b := faulty.New(memstore.New())
	b.Add(faulty.Once(faulty.OpPut, "n", faulty.Fault{DropReply: true}))
	c := &counter{b: b, id: "once"}
	if err := run(t, b, c); err != nil || !c.landed || c.failed != 1 {
		t.Fatalf("Run = %v, landed %v, failed %d; want the lost reply settled as landed", err, c.landed, c.failed)
	}
	got, _, _ := c.Read(t.Context())
	if got.n != 1 {
		t.Fatalf("counter = %d; want 1 (applied once)", got.n)
	}
}

// A write that fails ambiguously every time ends through Stop once the
// backoff runs out, which reports that it may have landed, and names the
// last write's error as well as the backoff's end.
func TestAmbiguousUntilTheEnd(t *testing.T) {
	b := faulty.New(memstore.New())
	b.Add(faulty.Always(faulty.OpPut, "n", faulty.Fault{Err: &faulty.HTTPError{Status: 503}}))
	c := &counter{b: b, id: "x"}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := cas.Run(ctx, b, cas.Update{Key: "n"}, cas.Updater[state](c), state{}, "")
	if err == nil || c.stopErr == nil || c.failed == 0 {
		t.Fatalf("Run = %v (failed %d); want Stop's outcome-unknown error", err, c.failed)
	}
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "503") {
		t.Fatalf("Run = %v; want it to name the end of the wait and the last write's 503", err)
	}
}

// A missing bucket (ErrNotFound on a write) ends the update at once: the
// write did not land.
func TestMissingBucketStops(t *testing.T) {
	b := faulty.New(memstore.New())
	b.Add(faulty.Always(faulty.OpPut, "n", faulty.Fault{Err: &faulty.HTTPError{Status: 404, Code: "NoSuchBucket"}}))
	c := &counter{b: b, id: "x"}
	err := run(t, b, c)
	if !errors.Is(err, driver.ErrNotFound) || c.failed != 0 {
		t.Fatalf("Run = %v after %d failed writes; want ErrNotFound at once", err, c.failed)
	}
}

// A refusal (ErrPermanent: access denied, a full disk) ends the update at
// once too.
func TestRefusalStops(t *testing.T) {
	b := faulty.New(memstore.New())
	b.Add(faulty.Always(faulty.OpPut, "n", faulty.Fault{Err: fmt.Errorf("AccessDenied: %w", driver.ErrPermission)}))
	c := &counter{b: b, id: "x"}
	err := run(t, b, c)
	if !errors.Is(err, driver.ErrPermanent) || c.failed != 0 || b.Calls(faulty.OpPut) != 1 {
		t.Fatalf("Run = %v after %d puts (%d failed writes); want the refusal after one", err, b.Calls(faulty.OpPut), c.failed)
	}
}
