package fence

import (
	"context"
	"fmt"

	"github.com/fencedstore/fence/objstore"
)

// CheckUnclaimed fails with a *TakeoverError when domain's highest
// accepted token at store has already reached token: another commit has
// claimed it.
//
// It is for a NoFence token that leaves the Store given to Acquire, whose
// commits would have claimed it (objstore.Store.Claim): `fence lease
// acquire --no-fence` prints the token for other processes, and their
// commits claim nothing. Checked once after the acquisition, it refuses a
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
