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

// IgnoreConditionsOnComplete returns b as a store that honours
// conditional headers on PutObject and ignores them on
// CompleteMultipartUpload, as some stores do: it drops the mode of every
// write that b makes with a multipart upload, that is of PutMultipart
// and of a Put whose body is of unknown size or larger than threshold
// (b's multipart threshold). Its Location differs from b's.
func IgnoreConditionsOnComplete(b driver.Backend, threshold int64) driver.Backend {
	return ignoringComplete{b, threshold}
}

type ignoringComplete struct {
	driver.Backend
	threshold int64
}

// Put writes unconditionally when b would write with a multipart upload.
func (i ignoringComplete) Put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	if size < 0 || size > i.threshold {
		opts.Mode = nil
	}
	return i.Backend.Put(ctx, key, body, size, opts)
}

// PutMultipart writes unconditionally.
func (i ignoringComplete) PutMultipart(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	opts.Mode = nil
	return driver.PutMultipart(ctx, i.Backend, key, body, size, opts)
}

// MultipartCommitName is the backend's.
func (i ignoringComplete) MultipartCommitName() string { return driver.MultipartCommitName(i.Backend) }

// Location is "ignoring-complete+" and the backend's.
func (i ignoringComplete) Location() string { return "ignoring-complete+" + i.Backend.Location() }

// Conditions is the backend's, so that the probe names its mechanism.
func (i ignoring) Conditions() driver.Conditions { return driver.ConditionsOf(i.Backend) }
