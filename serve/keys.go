package serve

import (
	"context"

	"github.com/fencedstore/fence/objstore"
)

// listKeys returns one page of a snapshot's live keys after after, and
// whether more follow. It is the one place serve lists a domain's keys,
// so a change of objstore's List signature is a change here only.
func listKeys(ctx context.Context, sn *objstore.Snapshot, after string, limit int) ([]objstore.Version, bool, error) {
	vs, err := sn.List(ctx, &objstore.ListOptions{After: after, Limit: limit + 1})
	if err != nil {
		return nil, false, err
	}
	if len(vs) > limit {
		return vs[:limit], true, nil
	}
	return vs, false, nil
}
