package bench

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/fencedstore/fence/coord/dynamocoord"
	"github.com/fencedstore/fence/objstore/driver"
)

// cleanupTimeout bounds the cleanup, which runs even when the run's
// context is done.
const cleanupTimeout = 5 * time.Minute

// cleanup deletes everything the run wrote.
func (r *runner) cleanup(ctx context.Context) Cleanup {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	var c Cleanup
	var errs []error
	prefix := r.scratch + "/"
	if _, err := r.plain.abortUploads(ctx, prefix); err != nil {
		errs = append(errs, err)
	}
	for _, b := range append([]driver.Backend{r.cfg.Backend}, r.extra...) {
		n, left, err := deleteAll(ctx, b, prefix)
		c.Deleted += n
		if err != nil {
			errs = append(errs, err)
		}
		if left > 0 {
			c.Left = append(c.Left, fmt.Sprintf("%d objects under %s in %s", left, prefix, describeBackend(b)))
		}
	}
	if len(r.dynamoItems) > 0 {
		if dc, ok := r.coord.Driver().(*dynamocoord.Driver); ok && r.cfg.DynamoDB != nil {
			for _, d := range r.dynamoItems {
				if err := deleteItem(ctx, r.cfg.DynamoDB, dc.Table(), d); err != nil {
					errs = append(errs, err)
					c.Left = append(c.Left, fmt.Sprintf("DynamoDB item domain=%s in table %s", d, dc.Table()))
				}
			}
		} else if ok {
			for _, d := range r.dynamoItems {
				c.Left = append(c.Left, fmt.Sprintf("DynamoDB item domain=%s in table %s (no DynamoDB client in Config)", d, dc.Table()))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		c.Error = err.Error()
	}
	return c
}

// deleteAll deletes every object under prefix in b, deleteParallelism
// at a time. It lists again until nothing is left (some S3-compatible
// stores hide objects from a listing while a longer key shares their name
// as a folder), at most ten times, and returns how many it deleted and
// how many are left.
func deleteAll(ctx context.Context, b driver.Backend, prefix string) (deleted, left int, err error) {
	list := func() ([]string, error) {
		var keys []string
		err := b.List(ctx, prefix, func(o driver.ObjectInfo) error {
			keys = append(keys, o.Key)
			return nil
		})
		if err != nil {
			return keys, fmt.Errorf("bench: cleanup: list %s: %w", prefix, err)
		}
		return keys, nil
	}
	for range 10 {
		keys, err := list()
		if err != nil || len(keys) == 0 {
			return deleted, len(keys), err
		}
		var n atomic.Int64
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(deleteParallelism)
		for _, k := range keys {
			g.Go(func() error {
				if err := b.Delete(gctx, k); err != nil {
					return fmt.Errorf("bench: cleanup: delete %s: %w", k, err)
				}
				n.Add(1)
				return nil
			})
		}
		err = g.Wait()
		deleted += int(n.Load())
		if err != nil {
			return deleted, len(keys) - int(n.Load()), err
		}
	}
	keys, err := list()
	return deleted, len(keys), err
}

// deleteParallelism bounds concurrent deletes during cleanup.
const deleteParallelism = 16
