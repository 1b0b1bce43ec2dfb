package faulty

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/fencedstore/fence/objstore/driver"
)

// Backend is a driver.Backend that passes every call to the backend it
// wraps, with the faults its rules give. The zero value is not usable;
// call New. It is safe for concurrent use.
type Backend struct {
	inner driver.Backend
	calls [5]atomic.Int64 // by opIndex

	mu    sync.Mutex
	rules []*rule
}

// rule is an installed Rule and how many matches it has seen.
type rule struct {
	Rule
	seen int
}

var (
	_ driver.Backend         = (*Backend)(nil)
	_ driver.MultipartPutter = (*Backend)(nil)
)

// New returns b with no rules: every call runs normally until Add.
func New(b driver.Backend) *Backend { return &Backend{inner: b} }

// Unwrap returns the wrapped backend, whose calls no rule sees.
func (b *Backend) Unwrap() driver.Backend { return b.inner }

// Add installs rules after those already installed.
func (b *Backend) Add(rules ...Rule) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range rules {
		b.rules = append(b.rules, &rule{Rule: r})
	}
}

// Clear removes every rule. Calls that already have their fault are not
// affected.
func (b *Backend) Clear() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.rules = nil
}

// Calls returns how many calls of op the Backend has seen, including
// calls that a fault failed.
func (b *Backend) Calls(op Op) int64 { return b.calls[opIndex(op)].Load() }

func opIndex(op Op) int {
	switch op {
	case OpGet:
		return 0
	case OpHead:
		return 1
	case OpPut:
		return 2
	case OpDelete:
		return 3
	}
	return 4
}

// fault counts c and returns the fault its first live matching rule
// gives, consuming a rule that fires once.
func (b *Backend) fault(ctx context.Context, c Call) Fault {
	b.calls[opIndex(c.Op)].Add(1)
	b.mu.Lock()
	var hit *rule
	for i, r := range b.rules {
		if !r.matches(c) {
			continue
		}
		r.seen++
		if r.seen <= r.Skip {
			continue
		}
		if !r.Every {
			b.rules = append(b.rules[:i:i], b.rules[i+1:]...)
		}
		hit = r
		break
	}
	b.mu.Unlock()
	switch {
	case hit == nil:
		return Fault{}
	case hit.Func != nil:
		return hit.Func(ctx, c)
	}
	return hit.Fault
}

func wrap(c Call, err error) error {
	return fmt.Errorf("faulty: %s %q: %w", c.Op, c.Key, err)
}

// Get passes the call on with its fault.
func (b *Backend) Get(ctx context.Context, key string, opts driver.GetOptions) (io.ReadCloser, driver.ObjectInfo, error) {
	c := Call{Op: OpGet, Key: key}
	f := b.fault(ctx, c)
	if err := f.before(ctx); err != nil {
		return nil, driver.ObjectInfo{}, wrap(c, err)
	}
	rc, info, err := b.inner.Get(ctx, key, opts)
	if err != nil {
		return nil, info, err
	}
	if err := f.after(); err != nil {
		rc.Close()
		return nil, driver.ObjectInfo{}, wrap(c, err)
	}
	return rc, info, nil
}

// Head passes the call on with its fault.
func (b *Backend) Head(ctx context.Context, key string) (driver.ObjectInfo, error) {
	c := Call{Op: OpHead, Key: key}
	f := b.fault(ctx, c)
	if err := f.before(ctx); err != nil {
		return driver.ObjectInfo{}, wrap(c, err)
	}
	info, err := b.inner.Head(ctx, key)
	if err != nil {
		return info, err
	}
	if err := f.after(); err != nil {
		return driver.ObjectInfo{}, wrap(c, err)
	}
	return info, nil
}

// Put passes the call on with its fault.
func (b *Backend) Put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	c := Call{Op: OpPut, Key: key, Opts: opts}
	f := b.fault(ctx, c)
	if err := f.before(ctx); err != nil {
		return driver.ObjectInfo{}, wrap(c, err)
	}
	info, err := b.inner.Put(ctx, key, body, size, opts)
	if err != nil {
		return info, err
	}
	if err := f.after(); err != nil {
		return driver.ObjectInfo{}, wrap(c, err)
	}
	return info, nil
}

// PutMultipart passes the call on as a Put (OpPut), with its fault, when
// the wrapped backend is a driver.MultipartPutter, so that the capability
// probe reaches its multipart path; otherwise it fails with
// driver.ErrUnsupported, doing and counting nothing.
func (b *Backend) PutMultipart(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	mp, ok := b.inner.(driver.MultipartPutter)
	if !ok {
		return driver.ObjectInfo{}, driver.ErrUnsupported
	}
	c := Call{Op: OpPut, Key: key, Opts: opts}
	f := b.fault(ctx, c)
	if err := f.before(ctx); err != nil {
		return driver.ObjectInfo{}, wrap(c, err)
	}
	info, err := mp.PutMultipart(ctx, key, body, size, opts)
	if err != nil {
		return info, err
	}
	if err := f.after(); err != nil {
		return driver.ObjectInfo{}, wrap(c, err)
	}
	return info, nil
}

// Delete passes the call on with its fault.
func (b *Backend) Delete(ctx context.Context, key string) error {
	c := Call{Op: OpDelete, Key: key}
	f := b.fault(ctx, c)
	if err := f.before(ctx); err != nil {
		return wrap(c, err)
	}
	if err := b.inner.Delete(ctx, key); err != nil {
		return err
	}
	if err := f.after(); err != nil {
		return wrap(c, err)
	}
	return nil
}

// List passes the call on with its fault. With DropReply or ErrAfter, fn
// has seen every object before the error replaces List's reply.
func (b *Backend) List(ctx context.Context, prefix string, fn func(driver.ObjectInfo) error) error {
	c := Call{Op: OpList, Key: prefix}
	f := b.fault(ctx, c)
	if err := f.before(ctx); err != nil {
		return wrap(c, err)
	}
	if err := b.inner.List(ctx, prefix, fn); err != nil {
		return err
	}
	if err := f.after(); err != nil {
		return wrap(c, err)
	}
	return nil
}

// Location is the wrapped backend's: the Backend sees its objects.
func (b *Backend) Location() string { return b.inner.Location() }

// Close closes the wrapped backend.
func (b *Backend) Close() error { return b.inner.Close() }

// Capabilities are the wrapped backend's.
func (b *Backend) Capabilities() driver.Capabilities { return driver.CapabilitiesOf(b.inner) }

// SSE and StoredSSE are the wrapped backend's (driver.SSEReporter), so
// the probe's encryption check sees through the wrapper.
func (b *Backend) SSE() (sse, kmsKeyID string) { return driver.SSEOf(b.inner) }

// StoredSSE is passed on without a fault.
func (b *Backend) StoredSSE(ctx context.Context, key string) (sse, kmsKeyID string, err error) {
	return driver.StoredSSE(ctx, b.inner, key)
}
