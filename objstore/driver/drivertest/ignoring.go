package drivertest

import (
	"context"
	"io"

	"github.com/fencedstore/fence/objstore/driver"
)

// IgnoreConditions returns b as a store that accepts conditional headers
// and ignores them, as some S3-compatible stores and proxies do: it drops
// every put's mode before b sees it. Its Location differs from b's, so a
// probe that passed on b does not vouch for it.
func IgnoreConditions(b driver.Backend) driver.Backend { return ignoring{b} }

type ignoring struct{ driver.Backend }

// Put writes unconditionally, whatever opts.Mode says.
func (i ignoring) Put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	opts.Mode = nil
	return i.Backend.Put(ctx, key, body, size, opts)
}

// Location is "ignoring+" and the backend's.
func (i ignoring) Location() string { return "ignoring+" + i.Backend.Location() }
