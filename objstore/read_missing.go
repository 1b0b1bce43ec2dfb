package objstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/fencedstore/fence/objstore/driver"
)

// readFailed reports err, the backend's answer to a read of v, the
// version of v.Key at the snapshot. A missing version is data loss only
// if the domain's current manifest still names it; if the key has moved
// on since the snapshot, gc may have collected the version: the error
// then matches ErrNotFound and says to read again from a newer snapshot.
func (sn *Snapshot) readFailed(ctx context.Context, v Version, err error) error {
	if !errors.Is(err, driver.ErrNotFound) {
		return fmt.Errorf("objstore: read %q in domain %q (version %q): %w", v.Key, sn.domain, v.Object, err)
	}
	cur, cerr := sn.s.Snapshot(ctx, sn.domain)
	if cerr != nil {
		return fmt.Errorf("objstore: read %q in domain %q: version %q, named at manifest seq %d, is missing, and reading the current manifest failed: %w", v.Key, sn.domain, v.Object, sn.m.Seq, cerr)
	}
	if cv, verr := cur.Version(ctx, v.Key); verr != nil || cv.Object != v.Object {
		// Not found, and not data loss: the version was superseded.
		return fmt.Errorf("objstore: read %q in domain %q: version %q of the snapshot at manifest seq %d is gone: the key was replaced or deleted since (the manifest is at seq %d) and gc collected the version; read again from a newer snapshot: %w", v.Key, sn.domain, v.Object, sn.m.Seq, cur.Seq(), err)
	}
	return &DataLossError{Domain: sn.domain, Key: v.Key, Version: v.Object, Seq: cur.Seq(), Err: err}
}
