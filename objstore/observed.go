package objstore

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/observe"
)

// observed reports every call to a backend, with its latency, as an
// observe.Call. It keeps the backend's optional interfaces: Capable,
// KeyChecker, MultipartPutter and SSEReporter always (with the defaults
// of a backend that lacks them: no capabilities, every key,
// ErrUnsupported, no encryption),
// HashingPutter as observedHashing when the backend has it.
type observed struct {
	inner driver.Backend
	o     observe.Observer
}

// observeBackend returns b, reporting its calls to o when o is set.
func observeBackend(b driver.Backend, o observe.Observer) driver.Backend {
	if o == nil {
		return b
	}
	ob := observed{inner: b, o: o}
	if _, ok := b.(driver.HashingPutter); ok {
		return observedHashing{ob}
	}
	return ob
}

func (b observed) call(ctx context.Context, op string, start time.Time, err error) {
	if errors.Is(err, driver.ErrNotFound) || errors.Is(err, driver.ErrNotModified) || errors.Is(err, driver.ErrPreconditionFailed) {
		err = nil // answers, not failures
	}
	b.o.Call(ctx, observe.Call{System: observe.Store, Op: op, Duration: time.Since(start), Err: err})
}

func (b observed) Get(ctx context.Context, key string, opts driver.GetOptions) (io.ReadCloser, driver.ObjectInfo, error) {
	start := time.Now()
	rc, info, err := b.inner.Get(ctx, key, opts)
	b.call(ctx, "get", start, err)
	return rc, info, err
}

func (b observed) Head(ctx context.Context, key string) (driver.ObjectInfo, error) {
	start := time.Now()
	info, err := b.inner.Head(ctx, key)
	b.call(ctx, "head", start, err)
	return info, err
}

func (b observed) Put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	start := time.Now()
	info, err := b.inner.Put(ctx, key, body, size, opts)
	b.call(ctx, "put", start, err)
	return info, err
}

// PutMultipart keeps the probe's multipart check (driver.Probe) on a
// backend that has one.
func (b observed) PutMultipart(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	if _, ok := b.inner.(driver.MultipartPutter); !ok {
		return driver.ObjectInfo{}, driver.ErrUnsupported
	}
	start := time.Now()
	info, err := driver.PutMultipart(ctx, b.inner, key, body, size, opts)
	b.call(ctx, "put", start, err)
	return info, err
}

func (b observed) Delete(ctx context.Context, key string) error {
	start := time.Now()
	err := b.inner.Delete(ctx, key)
	b.call(ctx, "delete", start, err)
	return err
}

func (b observed) List(ctx context.Context, prefix string, fn func(driver.ObjectInfo) error) error {
	start := time.Now()
	err := b.inner.List(ctx, prefix, fn)
	b.call(ctx, "list", start, err)
	return err
}

func (b observed) Location() string { return b.inner.Location() }
func (b observed) Close() error     { return b.inner.Close() }

func (b observed) Capabilities() driver.Capabilities { return driver.CapabilitiesOf(b.inner) }

// Conditions and MultipartCommitName keep the probe's messages in the
// inner store's terms.
func (b observed) Conditions() driver.Conditions { return driver.ConditionsOf(b.inner) }
func (b observed) MultipartCommitName() string   { return driver.MultipartCommitName(b.inner) }

// SSE and StoredSSE keep the probe's encryption check (driver.Probe).
func (b observed) SSE() (sse, kmsKeyID string) { return driver.SSEOf(b.inner) }

func (b observed) StoredSSE(ctx context.Context, key string) (sse, kmsKeyID string, err error) {
	start := time.Now()
	sse, kmsKeyID, err = driver.StoredSSE(ctx, b.inner, key)
	b.call(ctx, "head", start, err)
	return sse, kmsKeyID, err
}

func (b observed) CheckKey(key string) error {
	if kc, ok := b.inner.(driver.KeyChecker); ok {
		return kc.CheckKey(key)
	}
	return nil
}

type observedHashing struct{ observed }

func (b observedHashing) PutHashed(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, driver.Digest, error) {
	start := time.Now()
	info, dg, err := b.inner.(driver.HashingPutter).PutHashed(ctx, key, body, size, opts)
	b.call(ctx, "put", start, err)
	return info, dg, err
}
