package objstore

import (
	"context"
	"fmt"
	"time"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
)

// oldFenced lists domain's fenced-attempt records for Collect, counting
// them in res.FencedRecords, and returns those stored before cutoff (all of them when
// grace is 0). A record's age is the store's modification time of its
// object (compared with Collect's clock: skew only moves when a record
// goes, and no commit reads records); where the backend gives none, the
// time written in the record. Objects under the prefix that are not
// records are kept.
func (s *Store) oldFenced(ctx context.Context, domain string, cutoff time.Time, grace time.Duration, res *CollectResult) ([]driver.ObjectInfo, error) {
	var old []driver.ObjectInfo
	err := s.b.List(ctx, format.FencedPrefix(domain), func(o driver.ObjectInfo) error {
		if _, err := format.ParseFencedKey(o.Key); err != nil {
			return nil // not ours to judge
		}
		res.FencedRecords++
		stored := o.Modified
		if stored.IsZero() && grace > 0 {
			a, ok, err := s.readFenced(ctx, o)
			switch {
			case err != nil:
				return err
			case !ok:
				return nil // gone already
			}
			stored = a.Time
		}
		if grace > 0 && !stored.Before(cutoff) {
			return nil
		}
		old = append(old, o)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("objstore: collect %q: list fenced-attempt records: %w", domain, err)
	}
	return old, nil
}
