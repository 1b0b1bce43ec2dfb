package objstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
)

// refusal is an error a backend returns for a request the store refused
// for good, such as a full disk.
func refusal(class error) error {
	return fmt.Errorf("backend: write /data/x: %w: no space left on device", class)
}

// TestProbeNamesRefusedWrite: a store that refuses every write (disk
// full, permission denied, read-only) fails the commit at the probe's
// first writes (its concurrent creates), with an error that names the
// refusal and is not ErrUnsafeStore: the store was never asked about
// conditional writes.
func TestProbeNamesRefusedWrite(t *testing.T) {
	for _, class := range []error{driver.ErrNoSpace, driver.ErrPermission, driver.ErrReadOnly} {
		t.Run(class.Error(), func(t *testing.T) {
			fb := faulty.New(memstore.New())
			fb.Add(faulty.Always(faulty.OpPut, "", faulty.Fault{Err: refusal(class)}))
			s := objstore.New(fb, versionsOnly)
			_, err := s.Put(context.Background(), "d", "k", 1, strings.NewReader("x"), 1)
			switch {
			case !errors.Is(err, class) || !errors.Is(err, objstore.ErrPermanent):
				t.Fatalf("err = %v, want %v (permanent)", err, class)
			case errors.Is(err, objstore.ErrUnsafeStore):
				t.Fatalf("err = %v: a refused write is blamed on conditional writes", err)
			case !strings.Contains(err.Error(), "cannot write to "+fb.Location()):
				t.Fatalf("err = %v, want it to say the store cannot be written", err)
			}
			if n := fb.Calls(faulty.OpPut); n != driver.ProbeRacers {
				t.Fatalf("%d puts, want %d (the probe's concurrent creates): the refusal was retried", n, driver.ProbeRacers)
			}
		})
	}
}

// TestPermanentErrorsAreNotRetried: a version upload or a manifest read
// that the store refuses for good fails at once, after one request.
func TestPermanentErrorsAreNotRetried(t *testing.T) {
	ctx := context.Background()
	t.Run("upload", func(t *testing.T) {
		fb := faulty.New(memstore.New())
		s := objstore.New(fb, versionsOnly)
		if _, err := s.Put(ctx, "d", "k", 1, strings.NewReader("x"), 1); err != nil {
			t.Fatal(err)
		}
		versions := 0
		fb.Add(faulty.Rule{Op: faulty.OpPut, Every: true,
			Match: func(c faulty.Call) bool { return strings.HasPrefix(c.Key, format.VersionPrefix("d")) },
			Func: func(context.Context, faulty.Call) faulty.Fault {
				versions++
				return faulty.Fault{Err: refusal(driver.ErrNoSpace)}
			}})
		_, err := s.Put(ctx, "d", "k", 1, strings.NewReader("y"), 1)
		if !errors.Is(err, driver.ErrNoSpace) {
			t.Fatalf("err = %v, want ErrNoSpace", err)
		}
		if versions != 1 {
			t.Fatalf("%d version uploads, want 1: the refusal was retried", versions)
		}
	})
	t.Run("manifest read", func(t *testing.T) {
		fb := faulty.New(memstore.New())
		if _, err := objstore.New(fb, versionsOnly).Put(ctx, "d", "k", 1, strings.NewReader("x"), 1); err != nil {
			t.Fatal(err)
		}
		fb.Add(faulty.Always(faulty.OpGet, format.ManifestKey("d"), faulty.Fault{Err: refusal(driver.ErrPermission)}))
		gets := fb.Calls(faulty.OpGet)
		_, _, err := objstore.New(fb, versionsOnly).ReadAll(ctx, "d", "k")
		if !errors.Is(err, driver.ErrPermission) {
			t.Fatalf("err = %v, want ErrPermission", err)
		}
		if n := fb.Calls(faulty.OpGet) - gets; n != 1 {
			t.Fatalf("%d gets, want 1: the refusal was retried", n)
		}
	})
}
