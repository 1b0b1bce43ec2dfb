package format

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/fencedstore/fence/objstore/driver"
)

// ReadManifest reads and decodes domain's manifest from b in one
// unconditional read, without retries, caches or the checks a Store runs
// around its reads: for tests and diagnostics that inspect what is in the
// bucket. A missing manifest is (nil, nil).
func ReadManifest(ctx context.Context, b driver.Backend, domain string) (*Manifest, error) {
	key := ManifestKey(domain)
	rc, _, err := b.Get(ctx, key, driver.GetOptions{})
	if errors.Is(err, driver.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read manifest %q: %w", key, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, MaxManifestSize))
	if err != nil {
		return nil, fmt.Errorf("read manifest %q: %w", key, err)
	}
	return Decode(domain, key, data)
}
