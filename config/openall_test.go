package config_test

import (
	"errors"
	"testing"

	"github.com/fencedstore/fence/config"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
)

// OpenOptions.WrapBackend puts a fault wrapper under the Store that Open
// returns, and faulty.Manifest names a domain's manifest without knowing
// the layout: a refused manifest write fails the commit and publishes
// nothing.
func TestOpenWrapBackend(t *testing.T) {
	ctx := t.Context()
	var fb *faulty.Backend
	o, err := config.Open(ctx, "file://"+t.TempDir(), &config.OpenOptions{WrapBackend: faulty.Into(&fb)})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if fb == nil || o.Store.Backend() != driver.Backend(fb) {
		t.Fatalf("the Store does not write through the wrapper (%T)", o.Store.Backend())
	}
	l, err := o.Coordinator.TakeLease(ctx, "d", nil)
	if err != nil {
		t.Fatal(err)
	}
	fb.Add(faulty.FailNext(faulty.OpPut, faulty.Manifest("d"), driver.ErrPermission))
	_, err = o.Store.Commit(ctx, "d", l.Token, []objstore.Change{objstore.PutBytes("k", []byte("v"))}, nil)
	if !errors.Is(err, objstore.ErrPermanent) {
		t.Fatalf("commit with the manifest write refused: %v; want ErrPermanent", err)
	}
	if h, err := o.Store.Highest(ctx, "d"); h != 0 || err != nil {
		t.Fatalf("highest %d, %v after a refused manifest write; want 0", h, err)
	}
	// The rule fired once: the next commit lands.
	if _, err := o.Store.Commit(ctx, "d", l.Token, []objstore.Change{objstore.PutBytes("k", []byte("v"))}, nil); err != nil {
		t.Fatal(err)
	}
}
