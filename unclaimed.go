package fence

import (
	"context"
	"fmt"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
)

// AcquireToken takes domain's lease for a token that leaves this
// process: a script or a CI step that takes it with `fence lease
// acquire` and writes with `fence put --token`. It is Acquire without the
// session: nothing renews the lease, which lives until its TTL passes or
// it is released (coord.Coordinator.Release, `fence lease release`).
//
// With opts.NoFence, the first commit's claim (objstore.Store.Claim)
// cannot travel with the token, since commits through another Store
// claim nothing. So AcquireToken reads the store's highest token once
// more after acquiring, and refuses a token the store has already
// reached, releasing the lease (CheckUnclaimed): a coordinator whose
// records were wiped issued it a second time, and the other holder has
// written with it. Two holders of such a token can still both pass that
// read before either writes; the default, which fences, admits one.
func AcquireToken(ctx context.Context, store *objstore.Store, c *coord.Coordinator, domain string, opts *AcquireOptions) (coord.Lease, error) {
	var o AcquireOptions
	if opts != nil {
		o = *opts
	}
	l, err := acquire(ctx, store, c, domain, o)
	if err != nil {
		return coord.Lease{}, err
	}
	if o.NoFence {
		if err := CheckUnclaimed(ctx, store, domain, l.Token); err != nil {
			release(ctx, c, l)
			return coord.Lease{}, err
		}
	}
	return l, nil
}

// CheckUnclaimed fails with a *TakeoverError when domain's highest
// accepted token at store has already reached token: another commit has
// claimed it.
//
// It is for a NoFence token that leaves the Store given to Acquire, whose
// commits would have claimed it (objstore.Store.Claim): AcquireToken
// (`fence lease acquire --no-fence`) hands the token to other processes,
// and their commits claim nothing. Checked once after the acquisition, it refuses a
// token a wiped coordinator issued twice if the other holder has written
// with it already; it cannot see one that writes later, which the fence
// (the default) and a claim both refuse.
func CheckUnclaimed(ctx context.Context, store *objstore.Store, domain string, token uint64) error {
	h, err := store.Highest(ctx, domain)
	if err == nil && h >= token {
		err = fmt.Errorf("the store's highest token is already %d: the coordinator issued token %d again", h, token)
	}
	if err != nil {
		return &TakeoverError{Domain: domain, Token: token, Err: fmt.Errorf("check the store: %w", err)}
	}
	return nil
}
