package drivertest

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
)

// Nesting is how a store treats two keys of which one is the other's
// prefix up to a "/", such as "a" and "a/b". fence's own layout never
// writes such a pair (every object key ends in "@<token>-<id>" or a file
// name under a reserved "_fence/" segment); a commit's plain copies can
// (keys "a" and "a/b" of one domain).
type Nesting int

const (
	// NestingListed: both keys are stored and listed (AWS S3, memstore,
	// filestore).
	NestingListed Nesting = iota
	// NestingHidden: both keys are stored, and Get and Head find both,
	// but List omits "a/b" while "a" exists (MinIO).
	NestingHidden
	// NestingRefused: the second key of the pair is refused, with an
	// error matching driver.ErrPermanent, and nothing is stored: a store
	// over a POSIX file system, where "a" is a file and "a/b" needs "a" to
	// be a directory (versitygw's POSIX backend).
	NestingRefused
)

func (n Nesting) String() string {
	switch n {
	case NestingListed:
		return "listed"
	case NestingHidden:
		return "hidden from List"
	case NestingRefused:
		return "refused"
	}
	return "unknown"
}

// ProbeNesting finds out how b treats nested keys, by writing keys under
// prefix (which should be empty; it is left empty). It checks both orders
// of the pair: "a" then "a/b", and "c/d" then "c". A store must treat
// them alike, and one that refuses a pair must refuse it permanently
// (driver.ErrPermanent: neither the Store nor the SDK retries it) and
// store nothing; ProbeNesting fails t otherwise. detail says what the
// store did.
func ProbeNesting(t testing.TB, b driver.Backend, prefix string) (n Nesting, detail string) {
	t.Helper()
	ctx := t.Context()
	var written []string
	defer func() {
		for _, k := range slices.Backward(written) {
			if err := b.Delete(ctx, k); err != nil {
				t.Errorf("ProbeNesting: Delete(%q): %v", k, err)
			}
		}
	}()
	var refusals []string
	for _, pair := range [][2]string{{"a", "a/b"}, {"c/d", "c"}} {
		first, second := prefix+pair[0], prefix+pair[1]
		if _, err := b.Put(ctx, first, strings.NewReader("x"), 1, driver.PutOptions{}); err != nil {
			t.Fatalf("ProbeNesting: Put(%q): %v", first, err)
		}
		written = append(written, first)
		_, err := b.Put(ctx, second, strings.NewReader("y"), 1, driver.PutOptions{Mode: driver.Create{}})
		switch {
		case err == nil:
			written = append(written, second)
		case errors.Is(err, driver.ErrPermanent):
			if _, herr := b.Head(ctx, second); !errors.Is(herr, driver.ErrNotFound) {
				t.Fatalf("ProbeNesting: the refused Put(%q) stored something: Head = %v", second, herr)
			}
			refusals = append(refusals, err.Error())
		default:
			t.Fatalf("ProbeNesting: Put(%q) beside %q: %v; want success, or a refusal matching ErrPermanent", second, first, err)
		}
	}
	switch len(refusals) {
	case 2:
		return NestingRefused, "the second key of a nested pair is refused: " + refusals[0]
	case 1:
		t.Fatalf("ProbeNesting: one order of a nested pair was refused and the other stored (%s)", refusals[0])
	}
	var listed []string
	if err := b.List(ctx, prefix, func(o driver.ObjectInfo) error {
		listed = append(listed, o.Key)
		return nil
	}); err != nil {
		t.Fatalf("ProbeNesting: List(%q): %v", prefix, err)
	}
	want := []string{prefix + "a", prefix + "a/b", prefix + "c", prefix + "c/d"}
	if slices.Equal(listed, want) {
		return NestingListed, "both keys of a nested pair are stored and listed"
	}
	for _, k := range want {
		if _, err := b.Head(ctx, k); err != nil {
			t.Fatalf("ProbeNesting: Head(%q) of a stored key: %v", k, err)
		}
	}
	return NestingHidden, "both keys of a nested pair are stored, but List(" + prefix + ") reports only " + strings.Join(listed, ", ")
}
