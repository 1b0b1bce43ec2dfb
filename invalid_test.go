package fence_test

import (
	"errors"
	"testing"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
)

// objstore.ErrInvalid is the one ErrInvalid users test: arguments that
// coord rejects match it as well as those objstore rejects.
func TestOneErrInvalid(t *testing.T) {
	ctx := t.Context()
	c := coord.New(bucketlease.New(memstore.New(), nil))
	_, cerr := c.TakeLease(ctx, "d", &coord.TakeOptions{TTL: time.Millisecond})
	_, serr := objstore.New(memstore.New(), nil).Commit(ctx, "a//b", 1, nil, nil)
	for name, err := range map[string]error{"coord": cerr, "objstore": serr} {
		if !errors.Is(err, objstore.ErrInvalid) {
			t.Errorf("%s: %v does not match objstore.ErrInvalid", name, err)
		}
		if !errors.Is(err, coord.ErrInvalid) {
			t.Errorf("%s: %v does not match the alias coord.ErrInvalid", name, err)
		}
	}
}
