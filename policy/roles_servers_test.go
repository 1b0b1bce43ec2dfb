package policy_test

import (
	"bytes"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/serve"
)

// roleRig is a store under test for exerciseRoles, on whichever cloud.
type roleRig struct {
	// as makes the calls from now on count as role's.
	as func(role string)
	// open returns a fenced store, keeping plain copies when plain, and
	// its coordinator, both sending their calls where they are recorded.
	open func(plain bool) (*objstore.Store, *coord.Coordinator)
	// part is the size above which the backend sends a body in parts
	// (S3 multipart, GCS resumable chunks, Azure staged blocks).
	part int
	// deleteFloor deletes a domain's floor marker behind fence's back.
	deleteFloor func(domain string)
}

// rolesDomain is the domain exerciseRoles writes, reads and collects.
const rolesDomain = "reports/daily"

// failing yields n bytes, then fails: an upload cut short.
type failing struct{ n int }

func (f *failing) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("the source broke")
	}
	k := min(len(p), f.n)
	clear(p[:k])
	f.n -= k
	return k, nil
}

// exerciseRoles runs what each role does, labelling the calls with
// r.as: "writer" (leases and their renewals, commits of every size, an
// upload cut short, a delete, a takeover that fences the old holder,
// a release and a new acquisition), "writer+plain" (a writer keeping
// plain copies, which deletes them), "reader" (reads, listings, history,
// lease state, a domain never written, fence serve's pages), "admin"
// (deleting a floor marker behind fence's back) and "gc" (a collection
// that finds the floor marker missing, and one of a domain never
// written).
func exerciseRoles(t *testing.T, r roleRig) {
	t.Helper()
	ctx := t.Context()

	// Writer.
	r.as("writer")
	store, c := r.open(false)
	sess, err := fence.Acquire(ctx, store, c, rolesDomain, &fence.AcquireOptions{Holder: "w1", Session: &coord.SessionOptions{TTL: 3 * time.Second, RenewEvery: 200 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	h := fence.NewHolder(sess, store)
	big := bytes.Repeat([]byte("b"), 2*r.part+1)
	steps := []func() error{
		func() error { _, err := h.Put(ctx, "small.csv", strings.NewReader("a,b\n"), 4); return err },
		func() error {
			_, err := h.Put(ctx, "streamed.bin", bytes.NewReader(big[:r.part+1]), int64(r.part+1))
			return err
		},
		func() error {
			_, err := h.Put(ctx, "multipart.bin", struct{ io.Reader }{bytes.NewReader(big)}, -1)
			return err
		},
		func() error {
			_, err := h.Put(ctx, "broken.bin", &failing{n: r.part + 10}, -1)
			if err == nil {
				return errors.New("a put from a broken source succeeded")
			}
			return nil
		},
		func() error { _, err := h.Delete(ctx, "small.csv"); return err },
		func() error { // leaves the first version for gc
			_, err := h.Put(ctx, "streamed.bin", bytes.NewReader(big[1:r.part+1]), int64(r.part))
			return err
		},
		func() error { _, _, err := store.ReadAll(ctx, rolesDomain, "streamed.bin"); return err },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(500 * time.Millisecond) // renewals
	if _, err := fence.Break(ctx, store, c, rolesDomain, &fence.BreakOptions{Holder: "w2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Put(ctx, "late.csv", strings.NewReader("x"), 1); !errors.Is(err, objstore.ErrFenced) && !errors.Is(err, coord.ErrLeaseLost) {
		t.Fatalf("the old holder's put after the break = %v; want fenced or lease lost", err)
	}
	_ = sess.Release(ctx)
	sess2, err := fence.Acquire(ctx, store, c, rolesDomain, &fence.AcquireOptions{Holder: "w3"})
	if err != nil {
		t.Fatal(err)
	}
	if err := sess2.Release(ctx); err != nil {
		t.Fatal(err)
	}

	// A writer with plain copies deletes them too.
	r.as("writer+plain")
	pstore, pc := r.open(true)
	psess, err := fence.Acquire(ctx, pstore, pc, "plain", &fence.AcquireOptions{Holder: "p1"})
	if err != nil {
		t.Fatal(err)
	}
	ph := fence.NewHolder(psess, pstore)
	if _, err := ph.Put(ctx, "k", strings.NewReader("v"), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := ph.Delete(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	_ = psess.Release(ctx)

	// Reader.
	r.as("reader")
	rstore, rc := r.open(false)
	if _, _, err := rstore.ReadAll(ctx, rolesDomain, "multipart.bin"); err != nil {
		t.Fatal(err)
	}
	if _, err := rstore.List(ctx, rolesDomain, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := rstore.History(ctx, rolesDomain, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := rc.State(ctx, rolesDomain); err != nil {
		t.Fatal(err)
	}
	if _, _, err := rstore.ReadAll(ctx, "never-written", "k"); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("read of a domain never written = %v; want not found", err)
	}
	// fence serve's pages, as the reader.
	srv := httptest.NewServer(serve.New(rstore, rc, nil).Handler())
	for _, path := range []string{"/", "/domain/" + rolesDomain, "/domain/never-written"} {
		resp, err := srv.Client().Get(srv.URL + path + "?format=json")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if want := map[bool]int{true: 404, false: 200}[strings.HasSuffix(path, "never-written")]; resp.StatusCode != want {
			t.Fatalf("fence serve %s: %d, want %d", path, resp.StatusCode, want)
		}
	}
	srv.Close()

	// Collector, on a domain whose floor marker is missing.
	r.as("admin")
	r.deleteFloor(rolesDomain)
	r.as("gc")
	gstore, _ := r.open(false)
	if res, err := gstore.Collect(ctx, rolesDomain, 0); err != nil || res.Deleted == 0 {
		t.Fatalf("collect = %+v, %v; want something deleted", res, err)
	}
	if _, err := gstore.Collect(ctx, "never-written", 0); err != nil && !errors.Is(err, objstore.ErrNotFound) {
		t.Fatal(err)
	}
}
