package fence_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
)

// row is one line of the error table in doc.go.
type row struct {
	situation, errName string
	is                 []string
	exit               string
}

// errorTable reads the error table from the package documentation.
func errorTable(t *testing.T) []row {
	t.Helper()
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var rows []row
	for line := range strings.Lines(string(src)) {
		line, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "//\t")
		cells := strings.Split(line, "|")
		if !ok || len(cells) != 4 {
			continue
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if cells[0] == "situation" {
			continue
		}
		r := row{situation: cells[0], errName: cells[1], exit: cells[3]}
		for is := range strings.SplitSeq(cells[2], ",") {
			r.is = append(r.is, strings.TrimSpace(is))
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatal("no error table in doc.go")
	}
	return rows
}

// sentinels are the errors.Is targets the table may name.
var sentinels = map[string]error{
	"fence.ErrStale":             fence.ErrStale,
	"objstore.ErrFenced":         objstore.ErrFenced,
	"coord.ErrLeaseLost":         coord.ErrLeaseLost,
	"objstore.ErrOutcomeUnknown": objstore.ErrOutcomeUnknown,
	"coord.ErrReleased":          coord.ErrReleased,
	"coord.ErrLeaseHeld":         coord.ErrLeaseHeld,
	"objstore.ErrInvalid":        objstore.ErrInvalid,
}

// types are the error types the table may name, as errors.As tests.
var types = map[string]func(error) bool{
	"*objstore.FencedError":         func(err error) bool { var e *objstore.FencedError; return errors.As(err, &e) },
	"*objstore.UnknownOutcomeError": func(err error) bool { var e *objstore.UnknownOutcomeError; return errors.As(err, &e) },
	"*coord.HeldError":              func(err error) bool { var e *coord.HeldError; return errors.As(err, &e) },
	"*objstore.InvalidError":        func(err error) bool { var e *objstore.InvalidError; return errors.As(err, &e) },
}

// TestErrorTable drives every layer into every situation of the table in
// the package documentation and checks the error it returns: its type or
// sentinel, every errors.Is target the row names, and none of the
// table's other targets.
func TestErrorTable(t *testing.T) {
	got := situations(t)
	for _, r := range errorTable(t) {
		layers, ok := got[r.situation]
		if !ok || len(layers) == 0 {
			t.Errorf("situation %q of the table is not driven by the test", r.situation)
			continue
		}
		for layer, err := range layers {
			if err == nil {
				t.Errorf("%s, %s: no error", r.situation, layer)
				continue
			}
			if as, ok := types[r.errName]; ok {
				if !as(err) {
					t.Errorf("%s, %s: %v is not a %s", r.situation, layer, err, r.errName)
				}
			} else if s, ok := sentinels[r.errName]; !ok || !errors.Is(err, s) {
				t.Errorf("%s, %s: %v does not match %s", r.situation, layer, err, r.errName)
			}
			for name, s := range sentinels {
				want := false
				for _, is := range r.is {
					if _, known := sentinels[is]; !known {
						t.Fatalf("table names unknown target %q", is)
					}
					want = want || is == name
				}
				if errors.Is(err, s) != want {
					t.Errorf("%s, %s: errors.Is(%v, %s) = %v, want %v", r.situation, layer, err, name, !want, want)
				}
			}
		}
	}
}

// situations drives each layer into each situation and returns the
// errors, by situation and layer.
func situations(t *testing.T) map[string]map[string]error {
	ctx := t.Context()
	out := map[string]map[string]error{}
	put := func(situation, layer string, err error) {
		if out[situation] == nil {
			out[situation] = map[string]error{}
		}
		out[situation][layer] = err
	}
	body := func() *strings.Reader { return strings.NewReader("late") }
	stream := func(w interface {
		Write([]byte) (int, error)
		Close() error
	}) error {
		w.Write([]byte("late"))
		return w.Close()
	}

	// fenced: A's session is live (renewed every 20 minutes), but B broke
	// the lease and fenced the store with a newer token.
	{
		mem := memstore.New()
		store := objstore.New(mem, nil)
		leases := coord.New(bucketlease.New(mem, nil))
		a, err := fence.Acquire(ctx, store, leases, "d", &fence.AcquireOptions{Holder: "A", TTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Orphan()
		if _, err := fence.Break(ctx, store, leases, "d", nil); err != nil {
			t.Fatal(err)
		}
		h := fence.NewHolder(a, store)
		_, err = h.Put(ctx, "k", body(), -1)
		put("fenced", "Holder.Put", err)
		put("fenced", "HolderWriter.Close", stream(h.NewWriter(ctx, "k")))
		_, err = store.Put(ctx, "d", "k", h.Token(), body(), -1)
		put("fenced", "Store.Put", err)
		put("fenced", "Writer.Close", stream(store.NewWriter(ctx, "d", "k", h.Token())))
	}

	// lost: renewals are refused, so the session ends with ErrLeaseLost.
	{
		mem := memstore.New()
		store := objstore.New(mem, nil)
		leases := coord.New(refusesRenewal{bucketlease.New(mem, nil)})
		sess, err := fence.Acquire(ctx, store, leases, "d", &fence.AcquireOptions{Holder: "A", TTL: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		h := fence.NewHolder(sess, store)
		live := h.NewWriter(ctx, "k") // started while the session was live
		if _, err := live.Write([]byte("early")); err != nil {
			t.Fatal(err)
		}
		<-sess.Done()
		_, err = h.Put(ctx, "k", body(), -1)
		put("lost", "Holder.Put", err)
		_, werr := live.Write([]byte("late"))
		put("lost", "HolderWriter.Write", werr)
		cerr := live.Close()
		put("lost", "HolderWriter.Close", cerr)
		late := h.NewWriter(ctx, "k") // started after the session ended
		_, werr2 := late.Write([]byte("late"))
		cerr2 := late.Close()
		put("lost", "HolderWriter.Write (after the end)", werr2)
		// The streaming writer's errors are the same from run to run,
		// with the session's end before its cause.
		want := fmt.Sprintf(`fence: write of "k" in "d" with token %d: the session has ended, nothing was written: coord: `, h.Token())
		for _, err := range []error{werr, cerr, werr2, cerr2} {
			if err == nil || !strings.HasPrefix(err.Error(), want) || err.Error() != werr.Error() {
				t.Errorf("lost: writer error %q; want the same text for each, starting %q", err, want)
			}
		}
	}

	// unknown: the manifest write's reply is lost and no read-back
	// succeeds before ctx ends.
	{
		mem := memstore.New()
		fb := faulty.New(mem)
		store := objstore.New(fb, nil)
		leases := coord.New(bucketlease.New(mem, nil))
		sess, err := fence.Acquire(ctx, store, leases, "d", &fence.AcquireOptions{Holder: "A", TTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Release(context.Background())
		h := fence.NewHolder(sess, store)
		unknown := func(write func(context.Context) error) error {
			fb.Add(faulty.Once(faulty.OpPut, faulty.Manifest("d"), faulty.Fault{DropReply: true}),
				faulty.Always(faulty.OpGet, faulty.Manifest("d"), faulty.Fault{Err: errors.New("test: unreachable")}))
			defer fb.Clear()
			uctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel()
			return write(uctx)
		}
		put("unknown", "Holder.Put", unknown(func(ctx context.Context) error { _, err := h.Put(ctx, "k", body(), 4); return err }))
		put("unknown", "Store.Put", unknown(func(ctx context.Context) error {
			_, err := store.Put(ctx, "d", "k", h.Token(), body(), 4)
			return err
		}))
	}

	// released, held and invalid.
	{
		mem := memstore.New()
		store := objstore.New(mem, nil)
		leases := coord.New(bucketlease.New(mem, nil))
		sess, err := fence.Acquire(ctx, store, leases, "d", &fence.AcquireOptions{Holder: "A", TTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		h := fence.NewHolder(sess, store)
		_, err = h.Put(ctx, "a//b", body(), -1)
		put("invalid", "Holder.Put", err)
		_, err = store.Put(ctx, "d", "a//b", h.Token(), body(), -1)
		put("invalid", "Store.Put", err)
		_, err = fence.Acquire(ctx, store, leases, "d/", nil)
		put("invalid", "fence.Acquire", err)
		_, err = leases.TakeLease(ctx, "d", &coord.TakeOptions{TTL: time.Millisecond})
		put("invalid", "Coordinator.TakeLease", err)

		_, err = fence.Acquire(ctx, store, leases, "d", &fence.AcquireOptions{Holder: "B"})
		put("held", "fence.Acquire", err)

		if err := sess.Release(ctx); err != nil {
			t.Fatal(err)
		}
		_, err = h.Put(ctx, "k", body(), -1)
		put("released", "Holder.Put", err)
		put("released", "HolderWriter.Close", stream(h.NewWriter(ctx, "k")))
	}
	return out
}
